! The pencil transposes through the Fortran module on 10x7x5: on every process grid of the
! communicator, x -> y -> z -> y -> x (blocking, split phase with test/wait, and a batch of
! two fields), and the slab x <-> z where the grid has one, each pencil checked against the
! global array g(x, y, z) = complex(x + 10 y + 100 z, -x) at the pencil's global indices;
! the box routines against 2DECOMP's rules (1-based start/end/size, the parts tile the grid);
! a wrongly shaped array on one rank and a non-contiguous split-phase array failing on every
! rank with a status and a message. Stops non-zero on any failure.
program fortran_transpose
  use mpi_f08
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_double_complex, c_float
  implicit none
  integer, parameter :: n(3) = [10, 7, 5]
  type(nbfft_pencils) :: p
  type(nbfft_transpose_pending) :: t
  integer :: provided, rank, size, g, m1, m2, st, fails, total, xs(3), xe(3), xz(3), r, points
  complex(c_double_complex), allocatable, target :: ux(:,:,:), uy(:,:,:), uz(:,:,:), bad(:,:,:)
  real(c_float), allocatable :: fx(:,:,:,:), fy(:,:,:,:)
  logical :: done
  character(len=:), allocatable :: msg

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  fails = 0
  do g = 1, size
    if (mod(size, g) /= 0) cycle
    if (g == 1) then  ! the integer communicator of `use mpi` on one grid, type(MPI_Comm) on the others
      call nbfft_pencils_create(p, MPI_COMM_WORLD%MPI_VAL, n, m1=g, m2=size / g, transport="blocking")
    else
      call nbfft_pencils_create(p, MPI_COMM_WORLD, n, g, size / g, "pairwise:2@caller")
    end if
    call nbfft_pencils_grid(p, m1, m2)
    if (m1 /= g .or. m2 /= size / g) call fail("grid")
    call check_boxes()
    ux = filled(NBFFT_PENCIL_X)
    uy = filled(NBFFT_PENCIL_Y) * 0
    uz = filled(NBFFT_PENCIL_Z) * 0
    call nbfft_transpose(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, ux, uy)
    call check(uy, NBFFT_PENCIL_Y, "x -> y")
    call nbfft_transpose_start(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_Z, uy, uz, t)
    call nbfft_transpose_test(t, done)
    call nbfft_transpose_wait(t)
    call check(uz, NBFFT_PENCIL_Z, "y -> z (start/wait)")
    uy = uy * 0
    call nbfft_transpose(p, NBFFT_PENCIL_Z, NBFFT_PENCIL_Y, uz, uy)
    call check(uy, NBFFT_PENCIL_Y, "z -> y")
    ux = ux * 0
    call nbfft_transpose_start(p, NBFFT_PENCIL_Y, NBFFT_PENCIL_X, uy, ux, t)
    call nbfft_transpose_wait(t)
    call check(ux, NBFFT_PENCIL_X, "y -> x (start/wait)")
    if (m1 == 1 .or. m2 == 1) then
      uz = uz * 0
      call nbfft_transpose(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Z, ux, uz)
      call check(uz, NBFFT_PENCIL_Z, "slab x -> z")
      ux = ux * 0
      call nbfft_transpose(p, NBFFT_PENCIL_Z, NBFFT_PENCIL_X, uz, ux)
      call check(ux, NBFFT_PENCIL_X, "slab z -> x")
    end if
    ! Two single-precision real fields at once: the real parts, field 2 negated.
    ux = filled(NBFFT_PENCIL_X)
    uy = filled(NBFFT_PENCIL_Y)
    allocate(fx(lbound(ux, 1):ubound(ux, 1), lbound(ux, 2):ubound(ux, 2), lbound(ux, 3):ubound(ux, 3), 2))
    allocate(fy(lbound(uy, 1):ubound(uy, 1), lbound(uy, 2):ubound(uy, 2), lbound(uy, 3):ubound(uy, 3), 2))
    fx(:,:,:,1) = real(ux, c_float)
    fx(:,:,:,2) = -real(ux, c_float)
    fy = 0
    call nbfft_transpose_many(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, fx, fy)
    if (any(fy(:,:,:,1) /= real(uy, c_float)) .or. any(fy(:,:,:,2) /= -real(uy, c_float))) call fail("batch x -> y")
    deallocate(fx, fy)
    call nbfft_pencils_destroy(p)
  end do

  ! The pencils from an options handle (opts=), as every plan is made; with m1= too: an error.
  block
    type(nbfft_options) :: h
    character(len=32) :: text
    integer :: st
    write (text, '(a,i0)') "proc_grid=1x", size
    call nbfft_options_create(h)
    call nbfft_options_parse(h, trim(text) // " transport=pairwise:2@caller")
    call nbfft_pencils_create(p, MPI_COMM_WORLD, n, opts=h)
    call nbfft_pencils_grid(p, m1, m2)
    if (m1 /= 1 .or. m2 /= size) call fail("grid from opts=")
    ux = filled(NBFFT_PENCIL_X)
    uy = filled(NBFFT_PENCIL_Y) * 0
    call nbfft_transpose(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, ux, uy)
    call check(uy, NBFFT_PENCIL_Y, "x -> y (pencils from opts=)")
    call nbfft_pencils_destroy(p)
    call nbfft_pencils_create(p, MPI_COMM_WORLD, n, m1=1, opts=h, status=st)
    if (st /= NBFFT_INVALID_ARGUMENT .or. index(nbfft_last_error(), "opts=") == 0) call fail("opts= with m1=")
    call nbfft_options_destroy(h)
  end block

  ! Errors: one rank's array in another order; a section for a split-phase transpose.
  call nbfft_pencils_create(p, MPI_COMM_WORLD, n)
  ux = filled(NBFFT_PENCIL_X)
  uy = filled(NBFFT_PENCIL_Y)
  if (rank == size - 1) then
    allocate(bad(size_of(uy, 2), size_of(uy, 1), size_of(uy, 3)))
  else
    allocate(bad, mold=uy)
  end if
  call nbfft_transpose(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, ux, bad, st)
  msg = nbfft_last_error()
  if (st /= NBFFT_INVALID_ARGUMENT .or. index(msg, "nbfft_transpose: expected out(") == 0) call fail("shape error: " // msg)
  deallocate(bad)
  allocate(bad(2 * size_of(ux, 1), size_of(ux, 2), size_of(ux, 3)))  ! every other x: the X-pencil's shape
  call nbfft_transpose_start(p, NBFFT_PENCIL_X, NBFFT_PENCIL_Y, bad(::2,:,:), uy, t, st)
  msg = nbfft_last_error()
  if (st /= NBFFT_INVALID_ARGUMENT .or. index(msg, "in is not contiguous") == 0) call fail("section error: " // msg)
  call nbfft_pencils_destroy(p)

  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (total == 0) then
      print '(a)', "fortran_transpose: passed"
    else
      print '(a)', "fortran_transpose: FAILED"
    end if
  end if
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (*, '(a, i0, a)') "rank ", rank, ": FAIL " // what
    fails = fails + 1
  end subroutine

  integer function size_of(a, d)
    complex(c_double_complex), intent(in) :: a(:,:,:)
    integer, intent(in) :: d
    size_of = ubound(a, d) - lbound(a, d) + 1
  end function

  ! This rank's pencil of the global array, allocated with global bounds.
  function filled(w) result(a)
    integer, intent(in) :: w
    complex(c_double_complex), allocatable :: a(:,:,:)
    integer :: s(3), e(3), i, j, l
    call nbfft_pencils_box(p, w, s, e)
    allocate(a(s(1):e(1), s(2):e(2), s(3):e(3)))
    do l = s(3), e(3)
      do j = s(2), e(2)
        do i = s(1), e(1)
          a(i, j, l) = cmplx(i + 10 * j + 100 * l, -i, c_double_complex)
        end do
      end do
    end do
  end function

  subroutine check(a, w, what)
    complex(c_double_complex), intent(in) :: a(:,:,:)
    integer, intent(in) :: w
    character(len=*), intent(in) :: what
    integer :: s(3), e(3), i, j, l
    logical :: ok
    call nbfft_pencils_box(p, w, s, e)
    if (any(shape(a) /= e - s + 1)) then
      call fail(what // ": shape")
      return
    end if
    ok = .true.
    do l = s(3), e(3)
      do j = s(2), e(2)
        do i = s(1), e(1)
          ok = ok .and. a(i - s(1) + 1, j - s(2) + 1, l - s(3) + 1) == cmplx(i + 10 * j + 100 * l, -i, c_double_complex)
        end do
      end do
    end do
    if (.not. ok) call fail(what // ": values")
  end subroutine

  ! 2DECOMP's rules: all of the pencil's own axis, size = end - start + 1, the parts of
  ! every rank tile the grid (points add up), and box_of(own rank) = box.
  subroutine check_boxes()
    integer :: w, s(3), e(3), z(3), total_points
    do w = NBFFT_PENCIL_X, NBFFT_PENCIL_Z
      call nbfft_pencils_box(p, w, xs, xe, xz)
      if (any(xz /= xe - xs + 1) .or. xs(w + 1) /= 1 .or. xe(w + 1) /= n(w + 1)) call fail("box rules")
      call nbfft_pencils_box_of(p, w, rank, s, e, z)
      if (any(s /= xs) .or. any(e /= xe) .or. any(z /= xz)) call fail("box_of")
      total_points = 0
      do r = 0, size - 1
        call nbfft_pencils_box_of(p, w, r, s, e, z)
        points = product(z)
        total_points = total_points + points
      end do
      if (total_points /= product(n)) call fail("pencils do not tile the grid")
    end do
  end subroutine
end program fortran_transpose
