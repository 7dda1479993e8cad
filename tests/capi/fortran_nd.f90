! N-D plans through the Fortran module (nbfft_nd_*): arrays of rank 2 to 5 in Fortran order
! (dimension 1 fastest), transforms along chosen dimensions, r2c and c2c, each forward
! against a serial DFT of the whole array and backward to the input; then an array declared
! in another order on one rank only, a Fortran axis out of range, a bad option and a shape
! whose element count overflows, each failing every rank with a message naming it. Every
! case runs twice: options as text (options=) and in an options handle (opts=, the one
! convention of every plan; nbfft_options_parse). Stops with a non-zero code on any failure.
program fortran_nd
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer :: rank, nprocs, failures, st
  character(len=32) :: gridtext
  logical :: via_handle = .false.
  integer :: pass

  call begin_test()
  do pass = 0, 1
    via_handle = pass == 1
    call cases()
  end do
  via_handle = .false.
  call user_boxes()
  call lean()
  call errors()

  call end_test("fortran_nd")

contains

  subroutine cases()

  ! numpy's rfftn(g, axes=(0, 1)) of g.shape (7, 6) is Fortran g(6, 7), axes [1, 2].
  call run_case("2-D r2c, every dimension", [6, 7], [integer ::], .false., "")
  call run_case("2-D c2c, dimension 2 first", [6, 7], [2, 1], .true., "kind=c2c")
  call run_case("3-D r2c over x and z (channel)", [6, 4, 5], [1, 3], .false., "")
  call run_case("3-D c2c over z and x, pairwise", [6, 4, 5], [3, 1], .true., "kind=c2c transport=pairwise:2@caller")
  call run_case("3-D r2c, y of 1 point", [7, 1, 6], [1, 3], .false., "transport=caller")
  call run_case("4-D r2c over three", [6, 4, 5, 3], [1, 2, 3], .false., "")
  call run_case("4-D c2c over three", [6, 4, 5, 3], [1, 3, 4], .true., "kind=c2c")
  call run_case("5-D r2c over two", [5, 3, 4, 3, 2], [2, 4], .false., "")
  call run_case("5-D c2c over two", [5, 3, 4, 3, 2], [4, 2], .true., "kind=c2c")
  call run_case("2-D r2c, transposed out", [6, 7], [integer ::], .false., "output_order=transposed")
  call run_case("3-D c2c over x and z, transposed out", [6, 4, 5], [1, 3], .true., &
                "kind=c2c output_order=transposed transport=pairwise:2@caller")
  call run_case("4-D r2c over three, transposed out", [6, 4, 5, 3], [1, 2, 3], .false., "output_order=transposed")
  ! Tuned through the options: the tuner's grid and transport, verified as any other plan.
  call run_case("3-D r2c over x and z, tuned", [6, 4, 5], [1, 3], .false., "tune=quick tune_budget=60")
  end subroutine

  include "fortran_nd_reference.inc"

  ! User boxes: the input in slabs of dimension 1 (x), the spectrum in slabs of dimension 3
  ! (z), against the plan's own blocks, both spectra gathered on every rank; then a box with
  ! a bound missing, which fails every rank.
  subroutine user_boxes()
    integer, parameter :: n(3) = [8, 6, 5], no(3) = [5, 6, 5]
    type(nbfft_nd_plan) :: own, mine
    integer :: lo(3), hi(3), ilo(3), ihi(3), olo(3), ohi(3), x, y, z
    real(dp) :: g(8, 6, 5)
    real(dp), allocatable :: u(:, :, :), v(:, :, :)
    complex(dp), allocatable :: uh(:, :, :)
    complex(dp) :: g1(5, 6, 5), g2(5, 6, 5)
    do z = 1, n(3)
      do y = 1, n(2)
        do x = 1, n(1)
          g(x, y, z) = sin(0.3_dp * x + 0.7_dp * y * y + 1.1_dp * z)
        end do
      end do
    end do
    ilo = [1 + n(1) * rank / nprocs, 1, 1]
    ihi = [n(1) * (rank + 1) / nprocs, n(2), n(3)]
    olo = [1, 1, 1 + no(3) * rank / nprocs]
    ohi = [no(1), no(2), no(3) * (rank + 1) / nprocs]
    call nbfft_nd_plan_create(own, MPI_COMM_WORLD, n, options="transport=pairwise:2@caller", status=st)
    call nbfft_nd_plan_create(mine, MPI_COMM_WORLD, n, options="transport=pairwise:2@caller", in_lo=ilo, in_hi=ihi, &
                              out_lo=olo, out_hi=ohi, status=st)
    call expect(st == NBFFT_SUCCESS, "user boxes: create")
    call nbfft_nd_box(mine, NBFFT_LAYOUT_INPUT, lo, hi)
    call expect(all(lo == ilo) .and. all(hi == ihi), "user boxes: the input box is the caller's")
    call nbfft_nd_box(mine, NBFFT_LAYOUT_OUTPUT, lo, hi)
    call expect(all(lo == olo) .and. all(hi == ohi), "user boxes: the spectrum box is the caller's")
    ! The plan's own blocks, gathered.
    call nbfft_nd_box(own, NBFFT_LAYOUT_INPUT, lo, hi)
    u = g(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3))
    call nbfft_nd_box(own, NBFFT_LAYOUT_OUTPUT, lo, hi)
    allocate(uh(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    call nbfft_nd_forward(own, u, uh)
    call nbfft_nd_gather(own, NBFFT_LAYOUT_OUTPUT, uh, g1, NBFFT_EVERY_RANK)
    deallocate(u, uh)
    ! The caller's blocks, gathered.
    u = g(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3))
    allocate(uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)), v(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3)))
    call nbfft_nd_forward(mine, u, uh, st)
    call expect(st == NBFFT_SUCCESS, "user boxes: forward")
    call nbfft_nd_gather(mine, NBFFT_LAYOUT_OUTPUT, uh, g2, NBFFT_EVERY_RANK)
    call expect(maxval(abs(g1 - g2)) < 1e-12_dp * max(1.0_dp, maxval(abs(g1))), &
                "user boxes: the spectrum in the caller's blocks is the plan's")
    call nbfft_nd_backward(mine, uh, v, st)
    call expect(st == NBFFT_SUCCESS .and. maxval(abs(v - u), mask=.true.) < 1e-12_dp, "user boxes: round trip")
    call nbfft_nd_plan_destroy(own)
    call nbfft_nd_plan_destroy(mine)
    call nbfft_nd_plan_create(mine, MPI_COMM_WORLD, n, in_lo=ilo, status=st)
    call expect_error(st, "in_lo and in_hi go together", "user boxes: in_lo without in_hi")
  end subroutine

  ! In place and the lean workspace through the options: one buffer of nbfft_nd_memory's
  ! in-place size, read through two c_f_pointer views (the input and the transposed spectrum),
  ! gives the default plan's results bit for bit; a lean call out of place fails every rank.
  subroutine lean()
    use, intrinsic :: iso_c_binding, only: c_loc, c_f_pointer, c_size_t
    type(nbfft_nd_plan) :: own, thin
    integer :: lo(2), hi(2), olo(2), ohi(2), x, y
    real(dp), allocatable :: u(:, :), v(:, :)
    complex(dp), allocatable :: uh(:, :)
    complex(dp), allocatable, target :: buf(:)
    real(dp), pointer :: r(:, :)
    complex(dp), pointer :: c(:, :)
    integer(c_size_t) :: inplace, work, work_thin
    logical :: is_lean
    call nbfft_nd_plan_create(own, MPI_COMM_WORLD, [14, 8], options="output_order=transposed")
    call nbfft_nd_plan_create(thin, MPI_COMM_WORLD, [14, 8], options="output_order=transposed lean_workspace=true", &
                              status=st)
    call expect(st == NBFFT_SUCCESS, "lean: create")
    call nbfft_nd_box(own, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(own, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(u(lo(1):hi(1), lo(2):hi(2)), v(lo(1):hi(1), lo(2):hi(2)), uh(olo(2):ohi(2), olo(1):ohi(1)))
    do y = lo(2), hi(2)
      do x = lo(1), hi(1)
        u(x, y) = sin(0.3_dp * x + 0.7_dp * y * y)
      end do
    end do
    call nbfft_nd_forward(own, u, uh)
    call nbfft_nd_backward(own, uh, v)
    call nbfft_nd_memory(own, inplace, work, is_lean)
    call expect(.not. is_lean, "lean: the default plan is not lean")
    call nbfft_nd_memory(thin, inplace, work_thin, is_lean)
    call expect(is_lean .and. work_thin < work, "lean: nbfft_nd_memory says lean, and less workspace")
    allocate(buf((inplace + 15) / 16))
    call c_f_pointer(c_loc(buf), r, shape(u))
    call c_f_pointer(c_loc(buf), c, shape(uh))
    r = u
    call nbfft_nd_forward_inplace(thin, buf, st)
    call expect(st == NBFFT_SUCCESS, "lean: forward in place")
    call expect(all(c == uh), "lean: forward in place gives the default plan's spectrum")
    call nbfft_nd_backward_inplace(thin, buf, st)
    call expect(st == NBFFT_SUCCESS, "lean: backward in place")
    call expect(all(r == v), "lean: backward in place gives the default plan's result")
    call nbfft_nd_forward(thin, u, uh, st)
    call expect_error(st, "in place only", "lean: a call out of place")
    r = u
    call nbfft_nd_forward_inplace(own, buf, st)  ! the default plan in place too
    call expect(st == NBFFT_SUCCESS .and. all(c == uh), "in place on the default plan")
    call nbfft_nd_plan_destroy(own)
    call nbfft_nd_plan_destroy(thin)
  end subroutine

  ! The flat index (from 0) in an array of extents g of the r-th point (from 0) of the box lo..hi.
  integer function global_index(lo, hi, g, r) result(f)
    integer, intent(in) :: lo(:), hi(:), g(:), r
    integer :: k, q, stride
    q = r
    f = 0
    stride = 1
    do k = 1, size(g)
      f = f + (lo(k) - 1 + mod(q, hi(k) - lo(k) + 1)) * stride
      q = q / (hi(k) - lo(k) + 1)
      stride = stride * g(k)
    end do
  end function

  ! The same for a box stored with its dimensions in order fo (fastest first).
  integer function global_index_in(lo, hi, g, fo, r) result(f)
    integer, intent(in) :: lo(:), hi(:), g(:), fo(:), r
    integer :: k, d, q
    q = r
    f = 0
    do k = 1, size(g)
      d = fo(k)
      f = f + (lo(d) - 1 + mod(q, hi(d) - lo(d) + 1)) * product(g(1:d - 1))
      q = q / (hi(d) - lo(d) + 1)
    end do
  end function

  subroutine run_case(name, n, axes, cplx, options)
    character(len=*), intent(in) :: name, options
    integer, intent(in) :: n(:), axes(:)
    logical, intent(in) :: cplx
    type(nbfft_nd_plan) :: p
    integer :: nd, lo(size(n)), hi(size(n)), olo(size(n)), ohi(size(n)), ins(size(n)), outs(size(n)), k, i, r2c
    integer :: fo(size(n))
    complex(dp), allocatable :: g(:), ul(:), uh(:), vl(:)
    real(dp) :: err, back, scale
    nd = size(n)
    if (via_handle) then
      block
        type(nbfft_options) :: h
        call nbfft_options_create(h)
        call nbfft_options_parse(h, options, status=st)
        call expect(st == NBFFT_SUCCESS, name // ": nbfft_options_parse")
        if (size(axes) > 0) then
          call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=axes, opts=h, status=st)
        else
          call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, opts=h, status=st)
        end if
        call nbfft_options_destroy(h)
      end block
    else if (size(axes) > 0) then
      call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=axes, options=options, status=st)
    else
      call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, options=options, status=st)
    end if
    call expect(st == NBFFT_SUCCESS, name // ": create" // merge(" (options handle)", "                 ", via_handle))
    if (st /= NBFFT_SUCCESS) return
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    call nbfft_nd_shape(p, ins, outs)
    call nbfft_nd_out_order(p, fo)
    call expect(count(fo /= [(k, k = 1, nd)]) == merge(2, 0, index(options, "output_order=") > 0), &
                name // ": the spectrum's memory order")
    r2c = 1
    if (size(axes) > 0) r2c = axes(1)
    call expect(all(ins == n), name // ": the input shape is the one given")
    if (.not. cplx) call expect(outs(r2c) == n(r2c) / 2 + 1, name // ": the first listed dimension is the r2c one")
    ! The reference: the whole array, DFT along every listed dimension.
    allocate(g(product(n)))
    do i = 0, size(g) - 1
      g(i + 1) = cmplx(value(i, 0), merge(value(i, 1), 0.0_dp, cplx), dp)
    end do
    if (size(axes) > 0) then
      do k = 1, size(axes)
        call dft(g, n, axes(k))
      end do
    else
      do k = 1, nd
        call dft(g, n, k)
      end do
    end if
    allocate(ul(product(hi - lo + 1)), vl(product(hi - lo + 1)), uh(product(ohi - olo + 1)))
    do i = 0, size(ul) - 1
      k = global_index(lo, hi, n, i)
      ul(i + 1) = cmplx(value(k, 0), merge(value(k, 1), 0.0_dp, cplx), dp)
    end do
    call transform(p, nd, lo, hi, olo, ohi, fo, cplx, ul, uh, vl)
    scale = max(1.0_dp, maxval(abs(g)))
    err = 0
    do i = 0, size(uh) - 1
      err = max(err, abs(uh(i + 1) - g(global_index_in(olo, ohi, n, fo, i) + 1)))
    end do
    back = 0
    if (size(ul) > 0) back = maxval(abs(vl - ul))
    call expect(err < 1d-12 * scale, name // ": forward against the serial DFT")
    call expect(back < 1d-12, name // ": backward gives the input back")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  ! Forward and backward through arrays of the plan's rank, declared in Fortran order from
  ! the boxes (data in and out through flat copies).
  subroutine transform(p, nd, lo, hi, olo, ohi, fo, cplx, ul, uh, vl)
    type(nbfft_nd_plan), intent(in) :: p
    integer, intent(in) :: nd, lo(:), hi(:), olo(:), ohi(:), fo(:)
    logical, intent(in) :: cplx
    complex(dp), intent(in) :: ul(:)
    complex(dp), intent(out) :: uh(:), vl(:)
    real(dp), allocatable :: r2(:,:), r3(:,:,:), r4(:,:,:,:), r5(:,:,:,:,:)
    complex(dp), allocatable :: c2(:,:), c3(:,:,:), c4(:,:,:,:), c5(:,:,:,:,:)
    complex(dp), allocatable :: h2(:,:), h3(:,:,:), h4(:,:,:,:), h5(:,:,:,:,:)
    integer :: s(nd), t(nd)
    s = hi - lo + 1
    t = ohi - olo + 1
    t = t(fo)  ! the spectrum declared in its memory order
    select case (nd)
    case (2)
      allocate(h2(t(1), t(2)))
      if (cplx) then
        c2 = reshape(ul, [s(1), s(2)])
        call nbfft_nd_forward(p, c2, h2)
        call nbfft_nd_backward(p, h2, c2)
        vl = reshape(c2, [size(vl)])
      else
        r2 = reshape(real(ul, dp), [s(1), s(2)])
        call nbfft_nd_forward(p, r2, h2)
        call nbfft_nd_backward(p, h2, r2)
        vl = reshape(r2, [size(vl)])
      end if
      uh = reshape(h2, [size(uh)])
    case (3)
      allocate(h3(t(1), t(2), t(3)))
      if (cplx) then
        c3 = reshape(ul, [s(1), s(2), s(3)])
        call nbfft_nd_forward(p, c3, h3)
        uh = reshape(h3, [size(uh)])
        call nbfft_nd_backward(p, h3, c3)
        vl = reshape(c3, [size(vl)])
      else
        r3 = reshape(real(ul, dp), [s(1), s(2), s(3)])
        call nbfft_nd_forward(p, r3, h3)
        uh = reshape(h3, [size(uh)])
        call nbfft_nd_backward(p, h3, r3)
        vl = reshape(r3, [size(vl)])
      end if
    case (4)
      allocate(h4(t(1), t(2), t(3), t(4)))
      if (cplx) then
        c4 = reshape(ul, [s(1), s(2), s(3), s(4)])
        call nbfft_nd_forward(p, c4, h4)
        uh = reshape(h4, [size(uh)])
        call nbfft_nd_backward(p, h4, c4)
        vl = reshape(c4, [size(vl)])
      else
        r4 = reshape(real(ul, dp), [s(1), s(2), s(3), s(4)])
        call nbfft_nd_forward(p, r4, h4)
        uh = reshape(h4, [size(uh)])
        call nbfft_nd_backward(p, h4, r4)
        vl = reshape(r4, [size(vl)])
      end if
    case (5)
      allocate(h5(t(1), t(2), t(3), t(4), t(5)))
      if (cplx) then
        c5 = reshape(ul, [s(1), s(2), s(3), s(4), s(5)])
        call nbfft_nd_forward(p, c5, h5)
        uh = reshape(h5, [size(uh)])
        call nbfft_nd_backward(p, h5, c5)
        vl = reshape(c5, [size(vl)])
      else
        r5 = reshape(real(ul, dp), [s(1), s(2), s(3), s(4), s(5)])
        call nbfft_nd_forward(p, r5, h5)
        uh = reshape(h5, [size(uh)])
        call nbfft_nd_backward(p, h5, r5)
        vl = reshape(r5, [size(vl)])
      end if
    end select
  end subroutine

  subroutine errors()
    type(nbfft_nd_plan) :: p
    integer :: lo(3), hi(3), olo(3), ohi(3), last, slo(2), shi(3)
    real(dp), allocatable :: u(:,:,:), ubad(:,:,:)
    complex(dp), allocatable :: uh(:,:,:), uhbad(:,:,:)
    character(len=:), allocatable :: text
    last = nprocs - 1
    ! A set grid, Fortran order: every rank along z (dimension 3), exchanged onto x.
    write (gridtext, '(a,i0)') "1x1x", nprocs
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [8, 3, 6], axes=[1, 3], grid=[1, 1, nprocs])
    call nbfft_nd_describe(p, text)
    call expect(index(text, "grid " // trim(gridtext(5:)) // "x1x1") > 0 .or. nprocs == 1, &
                "grid=[1, 1, P] is numpy's Px1x1: " // text)
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    call expect(lo(1) == 1 .and. hi(1) == 8 .and. hi(2) - lo(2) == 2, "the input keeps x and y whole")
    ! The same grid through an options handle, grid= adding to a copy of it; a key of the 3-D
    ! plan only in the handle fails every rank naming it.
    block
      type(nbfft_options) :: h
      type(nbfft_nd_plan) :: q
      integer :: qlo(3), qhi(3)
      call nbfft_options_create(h)
      call nbfft_options_set(h, "norm", "ortho")
      call nbfft_nd_plan_create(q, MPI_COMM_WORLD, [8, 3, 6], axes=[1, 3], grid=[1, 1, nprocs], opts=h, status=st)
      call expect(st == NBFFT_SUCCESS, "opts= with grid=: " // nbfft_last_error())
      if (st == NBFFT_SUCCESS) then
        call nbfft_nd_box(q, NBFFT_LAYOUT_INPUT, qlo, qhi)
        call expect(all(qlo == lo) .and. all(qhi == hi), "opts= with grid=: the grid= plan's boxes")
        call nbfft_nd_plan_destroy(q)
      end if
      call nbfft_options_set(h, "pipeline_row", "true")
      call nbfft_nd_plan_create(q, MPI_COMM_WORLD, [8, 3, 6], opts=h, status=st)
      call expect(st == NBFFT_INVALID_ARGUMENT .and. index(nbfft_last_error(), "pipeline_row") > 0, &
                  "a 3-D-only key in opts=: " // nbfft_last_error())
      call nbfft_options_destroy(h)
    end block
    ! A binding's own (local) error: its status, and nbfft_last_error() says what.
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, slo, shi, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT .and. index(nbfft_last_error(), "lo and hi need 3 entries") > 0, &
                "nbfft_nd_box with a short lo: " // nbfft_last_error())
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))
    u = 1
    call nbfft_nd_forward(p, u, uh, status=st)
    call expect(st == NBFFT_SUCCESS, "forward with the boxes' arrays")
    ! The spectrum declared in another order (z, y, x) on the last rank only: every rank fails.
    allocate(uhbad(olo(3):ohi(3), olo(2):ohi(2), olo(1):ohi(1)))
    if (rank == last .and. (ohi(1) - olo(1) /= ohi(3) - olo(3))) then
      call nbfft_nd_forward(p, u, uhbad, status=st)
    else if (rank == last) then
      deallocate(uhbad)
      allocate(uhbad(olo(1):ohi(1) + 1, olo(2):ohi(2), olo(3):ohi(3)))
      call nbfft_nd_forward(p, u, uhbad, status=st)
    else
      call nbfft_nd_forward(p, u, uh, status=st)
    end if
    call expect_error(st, "expected uh(", "a wrong spectrum array on the last rank fails every rank, naming it")
    ! A complex input to a real plan.
    allocate(ubad(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    call nbfft_nd_backward(p, uh, ubad, status=st)
    call expect(st == NBFFT_SUCCESS, "backward with the boxes' arrays")
    call nbfft_nd_forward(p, cmplx(u, 0, dp), uh, status=st)
    call expect_error(st, "real(c_double)", "complex input to an r2c plan")
    call nbfft_nd_plan_destroy(p)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [4, 5], axes=[3], status=st)
    call expect_error(st, "axes(1) = 3", "a Fortran dimension out of range, named as given")
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [4, 5], axes=[2, 2], status=st)
    call expect_error(st, "repeated", "a repeated dimension")
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [4, 5], options="norm=sideways", status=st)
    call expect_error(st, "norm='sideways'", "a bad option")
    ! A shape whose element count overflows: refused before anything is allocated, naming the
    ! shape (C order, as nd::Plan sees it), the message of every front end.
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [2**30, 2**30, 2**30], status=st)
    call expect_error(st, "shape 1073741824x1073741824x1073741824: 2^90 elements overflow a 64-bit count", &
                      "a shape whose element count overflows")
    ! A transposed spectrum declared in the boxes' order (not the memory order) is refused.
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [7, 6], options="output_order=transposed")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo(1:2), hi(1:2))
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo(1:2), ohi(1:2))
    block
      real(dp), allocatable :: v(:,:)
      complex(dp), allocatable :: vh(:,:)
      allocate(v(lo(1):hi(1), lo(2):hi(2)), vh(olo(1):ohi(1), olo(2):ohi(2)))
      v = 1
      call nbfft_nd_forward(p, v, vh, status=st)
      call expect_error(st, "expected uh(", "a transposed spectrum declared in natural order")
      deallocate(vh)
      allocate(vh(olo(2):ohi(2), olo(1):ohi(1)))
      call nbfft_nd_forward(p, v, vh, status=st)
      call expect(st == NBFFT_SUCCESS, "a transposed spectrum declared in its memory order")
    end block
    call nbfft_nd_plan_destroy(p)
  end subroutine
end program fortran_nd
