! Whole arrays and wavenumbers of N-D plans through the Fortran module (nbfft_nd_gather,
! nbfft_nd_scatter, nbfft_nd_wavenumbers), in Fortran order: a 2-D r2c and a 4-D c2c array
! over three dimensions with a transposed spectrum, each scattered from the last rank,
! transformed, the spectrum gathered on every rank against a serial DFT of the whole array,
! the input gathered on rank 0, the spectrum scattered back bit for bit, and the wavenumbers
! of each dimension against numpy's fftfreq / rfftfreq. Then the errors: a local array of the
! wrong extents on one rank, a global one on the root, a bad root, a scatter to every rank,
! wavenumbers of a dimension not transformed, out of range or of the wrong count. Arrays
! start as NaN, so a call that writes nothing fails. Stops non-zero on any failure.
program fortran_nd_fields
  use mpi
  use nbfft
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  implicit none
  integer, parameter :: dp = kind(1d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  integer :: rank, nprocs, failures, st, last
  real(dp) :: nan

  call begin_test()
  nan = ieee_value(1.0_dp, ieee_quiet_nan)
  last = nprocs - 1

  call two_d()
  call four_d()
  call errors()

  call end_test("fortran_nd_fields")

contains

  include "fortran_nd_reference.inc"

  ! numpy's integer wavenumber of 0-based global index g of n points (rfftfreq's when half).
  real(dp) function fftfreq(g, n, half)
    integer, intent(in) :: g, n
    logical, intent(in) :: half
    fftfreq = g
    if (.not. half .and. g >= (n + 1) / 2) fftfreq = g - n
  end function

  ! Counts the entries of k (this rank's along a dimension of n points, from 0-based index
  ! lo0) that are not (2 pi / length) fftfreq.
  integer function wrong_k(k, lo0, n, length, half) result(bad)
    real(dp), intent(in) :: k(:), length
    integer, intent(in) :: lo0, n
    logical, intent(in) :: half
    integer :: j
    bad = 0
    do j = 1, size(k)
      if (.not. abs(k(j) - 2 * pi / length * fftfreq(lo0 + j - 1, n, half)) <= 1d-12 * n) bad = bad + 1
    end do
  end function

  ! 2-D r2c g(6, 7), every dimension (1 is the r2c one: the spectrum is 4 x 7).
  subroutine two_d()
    integer, parameter :: n(2) = [6, 7]
    type(nbfft_nd_plan) :: p
    integer :: lo(2), hi(2), olo(2), ohi(2), i, j, bad
    real(dp), allocatable :: g(:,:), gref(:,:), u(:,:), gin(:,:), k1(:), k2(:)
    complex(dp), allocatable :: uh(:,:), uh2(:,:), gh(:,:), ref(:), refc(:,:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n)
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    ! The global input, made once (values compared bit for bit come from one place).
    gref = reshape([(value(i, 0), i = 0, product(n) - 1)], n)
    if (rank == last) then
      g = gref
    else
      allocate(g(0, 0))  ! global matters on the root only
    end if
    allocate(u(lo(1):hi(1), lo(2):hi(2)))
    u = nan
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, u, last, status=st)
    call expect(st == NBFFT_SUCCESS, "2-D: scatter from the last rank")
    bad = 0
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        if (.not. u(i, j) == gref(i, j)) bad = bad + 1
      end do
    end do
    call expect(bad == 0, "2-D: the scattered block is this rank's part of the global input")

    allocate(uh(olo(1):ohi(1), olo(2):ohi(2)), uh2(olo(1):ohi(1), olo(2):ohi(2)), gh(4, 7))
    gh = cmplx(nan, nan, dp)
    call nbfft_nd_forward(p, u, uh)
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh, gh, NBFFT_EVERY_RANK, status=st)
    call expect(st == NBFFT_SUCCESS, "2-D: gather the spectrum on every rank")
    ref = cmplx(reshape(gref, [product(n)]), 0, dp)
    call dft(ref, n, 1)
    call dft(ref, n, 2)
    refc = reshape(ref, n)
    call expect(count(.not. abs(gh - refc(1:4, :)) <= 1d-11 * maxval(abs(ref))) == 0, &
                "2-D: the gathered spectrum is the serial DFT")

    if (rank == 0) then
      allocate(gin(n(1), n(2)))
    else
      allocate(gin(0, 0))
    end if
    gin = nan
    call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, gin, 0, status=st)
    call expect(st == NBFFT_SUCCESS, "2-D: gather the input on rank 0")
    if (rank == 0) call expect(all(gin == gref), &
                               "2-D: the gathered input is the global input")

    uh2 = cmplx(nan, nan, dp)
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_OUTPUT, gh, uh2, 0, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(uh2 == uh) .and. any(uh /= 0), "2-D: the spectrum scattered back is forward's")

    allocate(k1(ohi(1) - olo(1) + 1), k2(ohi(2) - olo(2) + 1))
    k1 = nan; k2 = nan
    call nbfft_nd_wavenumbers(p, 1, k1, length=2.0_dp)
    call nbfft_nd_wavenumbers(p, 2, k2)
    call expect(wrong_k(k1, olo(1) - 1, n(1), 2.0_dp, .true.) == 0, "2-D: rfftfreq along dimension 1, length 2")
    call expect(wrong_k(k2, olo(2) - 1, n(2), 2 * pi, .false.) == 0, "2-D: fftfreq along dimension 2")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  ! 4-D c2c g(6, 4, 5, 3) over dimensions 1, 3 and 4, the spectrum transposed in memory.
  subroutine four_d()
    integer, parameter :: n(4) = [6, 4, 5, 3]
    type(nbfft_nd_plan) :: p
    integer :: lo(4), hi(4), olo(4), ohi(4), fo(4), t(4), i1, i2, i3, i4, bad, d
    complex(dp), allocatable :: g(:,:,:,:), u(:,:,:,:), uh(:,:,:,:), uh2(:,:,:,:), gh(:,:,:,:), ref(:)
    real(dp), allocatable :: k(:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=[1, 3, 4], options="kind=c2c output_order=transposed")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    call nbfft_nd_out_order(p, fo)
    ref = [(cmplx(value(i1, 0), value(i1, 1), dp), i1 = 0, product(n) - 1)]
    if (rank == last) then
      g = reshape(ref, n)
    else
      allocate(g(0, 0, 0, 0))
    end if
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), lo(4):hi(4)))
    u = cmplx(nan, nan, dp)
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, u, last, status=st)
    call expect(st == NBFFT_SUCCESS, "4-D: scatter from the last rank")
    bad = 0
    do i4 = lo(4), hi(4)
      do i3 = lo(3), hi(3)
        do i2 = lo(2), hi(2)
          do i1 = lo(1), hi(1)
            if (.not. u(i1, i2, i3, i4) == ref(i1 + n(1) * (i2 - 1 + n(2) * (i3 - 1 + n(3) * (i4 - 1))))) bad = bad + 1
          end do
        end do
      end do
    end do
    call expect(bad == 0, "4-D: the scattered block is this rank's part of the global input")

    t = ohi - olo + 1
    t = t(fo)  ! the spectrum block declared in its memory order
    allocate(uh(t(1), t(2), t(3), t(4)), uh2(t(1), t(2), t(3), t(4)), gh(n(1), n(2), n(3), n(4)))
    gh = cmplx(nan, nan, dp)
    call nbfft_nd_forward(p, u, uh)
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh, gh, NBFFT_EVERY_RANK, status=st)
    call expect(st == NBFFT_SUCCESS, "4-D: gather the transposed spectrum on every rank")
    call dft(ref, n, 1)
    call dft(ref, n, 3)
    call dft(ref, n, 4)
    call expect(count(.not. abs(gh - reshape(ref, n)) <= 1d-11 * maxval(abs(ref))) == 0, &
                "4-D: the gathered spectrum is the serial DFT, in natural order")
    uh2 = cmplx(nan, nan, dp)
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_OUTPUT, gh, uh2, 0, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(uh2 == uh) .and. any(uh /= 0), &
                "4-D: the spectrum scattered back is forward's, transposed")

    do d = 1, 4
      allocate(k(ohi(d) - olo(d) + 1))
      k = nan
      call nbfft_nd_wavenumbers(p, d, k, length=real(d, dp), status=st)
      if (d == 2) then
        call expect(st == NBFFT_INVALID_ARGUMENT, "4-D: no wavenumbers along dimension 2 (not transformed)")
      else
        call expect(st == NBFFT_SUCCESS .and. wrong_k(k, olo(d) - 1, n(d), real(d, dp), .false.) == 0, &
                    "4-D: fftfreq along a transformed dimension")
      end if
      deallocate(k)
    end do
    call nbfft_nd_plan_destroy(p)
  end subroutine

  subroutine errors()
    type(nbfft_nd_plan) :: p
    integer :: lo(3), hi(3), olo(3), ohi(3)
    real(dp), allocatable :: u(:,:,:), ubad(:,:,:), g(:,:,:), gbad(:,:,:), k(:)
    complex(dp), allocatable :: uc(:,:,:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [8, 3, 6], axes=[1, 3])
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), ubad(lo(1):hi(1) + 1, lo(2):hi(2), lo(3):hi(3)))
    allocate(g(8, 3, 6), gbad(8, 6, 3))
    u = 1; g = 1
    if (rank == last) then
      call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, ubad, g, 0, status=st)
    else
      call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, g, 0, status=st)
    end if
    call expect_error(st, "expected local(", "a wrong local array on the last rank fails every rank, naming it")
    if (rank == 0) then
      call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, gbad, 0, status=st)
    else
      call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, g, 0, status=st)
    end if
    call expect_error(st, "expected global(8, 3, 6)", "a global array of the wrong extents on the root")
    call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, g, nprocs, status=st)
    call expect_error(st, "root", "a root out of range")
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, g, u, NBFFT_EVERY_RANK, status=st)
    call expect_error(st, "every rank", "a scatter to every rank")
    allocate(uc(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    call nbfft_nd_scatter(p, NBFFT_LAYOUT_INPUT, cmplx(g, 0, dp), uc, 0, status=st)
    call expect_error(st, "real(c_double)", "a complex block of an r2c plan's input")
    call nbfft_nd_gather(p, NBFFT_LAYOUT_INPUT, u, g, 0, status=st)
    call expect(st == NBFFT_SUCCESS, "the same gather with the right arrays")
    allocate(k(ohi(1) - olo(1) + 1))
    call nbfft_nd_wavenumbers(p, 2, k, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "wavenumbers of dimension 2 (not transformed)")
    call nbfft_nd_wavenumbers(p, 4, k, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "wavenumbers of dimension 4 of a 3-D array")
    call nbfft_nd_wavenumbers(p, 1, k(2:), status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "wavenumbers into an array one short")
    call nbfft_nd_wavenumbers(p, 1, k, length=0.0_dp, status=st)
    call expect_error(st, "length", "wavenumbers of a zero length")
    call nbfft_nd_plan_destroy(p)
  end subroutine
end program fortran_nd_fields
