! capi.fortran_h5_layout: layouts from Fortran. An N-D plan's input (blocking and background
! writes) and a transpose's X-pencils written at every rank of the world, then read back at
! every k <= P ranks: the N-D field through the new plan's layout, the pencils as Y- and
! Z-pencils, each against the global values. A user's own block (nbfft_io_layout_create, rows
! split over the ranks) written, then read at every k into the N-D plan's blocks. Misuse: data of another type than the layout's
! and a non-contiguous section fail on every rank. Stops non-zero on a failure.
program fortran_h5_layout
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer, parameter :: n2(2) = [9, 7], n3(3) = [4, 5, 6]
  character(len=512) :: path
  type(nbfft_h5file) :: f
  type(nbfft_nd_plan) :: nd
  type(nbfft_pencils) :: pc
  type(nbfft_io_layout) :: l, lp
  type(nbfft_request) :: r
  integer :: ierr, rank, nranks, failures, total, k, sub, st, lo(3), hi(3)
  real(dp), allocatable, target :: a(:,:), a2(:,:), v(:,:,:), big(:,:), w(:,:)
  complex(dp), allocatable, target :: c(:,:)

  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  if (len_trim(path) == 0) path = "fortran_h5_layout.h5"
  if (.not. nbfft_h5_available()) then
    if (rank == 0) print '(a)', "fortran_h5_layout: SKIPPED (built without parallel HDF5)"
    call MPI_Finalize(ierr)
    stop
  end if

  ! Written at every rank of the world.
  call nbfft_nd_plan_create(nd, MPI_COMM_WORLD, n2)
  call nbfft_nd_box(nd, NBFFT_LAYOUT_INPUT, lo(1:2), hi(1:2))
  allocate(a(lo(1):hi(1), lo(2):hi(2)), a2(lo(1):hi(1), lo(2):hi(2)))
  call fill2(a, lo, hi, 1d0)
  a2 = 2 * a
  call nbfft_pencils_create(pc, MPI_COMM_WORLD, n3)
  call nbfft_pencils_box(pc, NBFFT_PENCIL_X, lo, hi)
  allocate(v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  call fill3(v, lo, hi)
  call nbfft_h5_open(f, MPI_COMM_WORLD, trim(path), NBFFT_H5_MODE_CREATE, "xdmf=0")
  call nbfft_io_layout_of(l, nd, NBFFT_SPACE_PHYSICAL)
  call nbfft_h5_write_layout(f, l, "u", 0, 0d0, a)
  call nbfft_h5_write_start_layout(f, l, "u", 1, 0.5d0, a2, r)
  call nbfft_wait(r)
  ! Misuse: complex data through a float64 layout; a section (every other row).
  allocate(c(size(a, 1), size(a, 2)), big(2 * size(a, 1), size(a, 2)))
  c = 0; big = 0
  call nbfft_h5_write_layout(f, l, "bad", 0, 0d0, c, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "complex data through a float64 layout is refused")
  if (size(a) > 0) then
    call nbfft_h5_write_layout(f, l, "bad", 0, 0d0, big(1::2, :), status=st)
  else
    call nbfft_h5_write_layout(f, l, "bad", 0, 0d0, a, status=st)  ! an empty block: the others' refusal is agreed
  end if
  call expect(st == NBFFT_INVALID_ARGUMENT, "a section is refused on every rank")
  call nbfft_io_layout_destroy(l)
  call nbfft_io_layout_of(lp, pc, NBFFT_PENCIL_X, NBFFT_DTYPE_FLOAT64)
  call nbfft_h5_write_layout(f, lp, "v", 0, 0d0, v)
  call nbfft_io_layout_destroy(lp)
  ! A user's own block: the rows of dimension 1 split over the ranks, every column.
  lo(1) = rank * n2(1) / nranks + 1
  hi(1) = (rank + 1) * n2(1) / nranks
  lo(2) = 1
  hi(2) = n2(2)
  allocate(w(lo(1):hi(1), lo(2):hi(2)))
  call fill2(w, lo, hi, 3d0)
  call nbfft_io_layout_create(l, n2, lo(1:2), hi(1:2), NBFFT_DTYPE_FLOAT64)
  call nbfft_h5_write_layout(f, l, "w", 0, 0d0, w)
  call nbfft_io_layout_destroy(l)
  call nbfft_io_layout_create(l, n2, lo(1:1), hi(1:2), NBFFT_DTYPE_FLOAT64, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT .and. index(nbfft_last_error(), "lo and hi") > 0, &
              "a user's block with a short lo is refused, naming it")
  deallocate(w)
  call nbfft_h5_close(f)
  call nbfft_nd_plan_destroy(nd)
  call nbfft_pencils_destroy(pc)
  deallocate(a, a2, v)

  ! Read back at every k <= P ranks (the first k).
  do k = 1, nranks
    call MPI_Comm_split(MPI_COMM_WORLD, merge(0, MPI_UNDEFINED, rank < k), rank, sub, ierr)
    if (sub /= MPI_COMM_NULL) then
      call nbfft_nd_plan_create(nd, sub, n2)
      call nbfft_nd_box(nd, NBFFT_LAYOUT_INPUT, lo(1:2), hi(1:2))
      allocate(a(lo(1):hi(1), lo(2):hi(2)), a2(lo(1):hi(1), lo(2):hi(2)))
      call fill2(a2, lo, hi, 2d0)
      call nbfft_h5_open(f, sub, trim(path), NBFFT_H5_MODE_READ)
      call nbfft_io_layout_of(l, nd, NBFFT_SPACE_PHYSICAL)
      call nbfft_h5_read_layout(f, l, "u", 1, a)
      call expect(all(a == a2), "the N-D field read back at another rank count")
      call nbfft_io_layout_destroy(l)
      ! The user's field (no space recorded) read into another decomposition: the N-D
      ! plan's blocks, as a user's own layout of them.
      call fill2(a2, lo, hi, 3d0)
      call nbfft_io_layout_create(l, n2, lo(1:2), hi(1:2), NBFFT_DTYPE_FLOAT64)
      call nbfft_h5_read_layout(f, l, "w", 0, a)
      call expect(all(a == a2), "a user's own block read back at another rank count and decomposition")
      call nbfft_io_layout_destroy(l)
      call nbfft_pencils_create(pc, sub, n3)
      call pencil_back(NBFFT_PENCIL_Y)
      call pencil_back(NBFFT_PENCIL_Z)
      call nbfft_h5_close(f)
      call nbfft_pencils_destroy(pc)
      call nbfft_nd_plan_destroy(nd)
      deallocate(a, a2)
      call MPI_Comm_free(sub, ierr)
    end if
  end do

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print '(a)', "fortran_h5_layout: passed"
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine fill2(x, lo, hi, s)
    real(dp), intent(out) :: x(:,:)
    integer, intent(in) :: lo(:), hi(:)
    real(dp), intent(in) :: s
    integer :: i, j
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        x(i - lo(1) + 1, j - lo(2) + 1) = s * (i + 100 * j)
      end do
    end do
  end subroutine

  subroutine fill3(x, lo, hi)
    real(dp), intent(out) :: x(:,:,:)
    integer, intent(in) :: lo(3), hi(3)
    integer :: i, j, m
    do m = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          x(i - lo(1) + 1, j - lo(2) + 1, m - lo(3) + 1) = i + 10 * j + 100 * m
        end do
      end do
    end do
  end subroutine

  ! The pencils file read as another pencil of the same global array.
  subroutine pencil_back(which)
    integer, intent(in) :: which
    type(nbfft_io_layout) :: lw
    integer :: plo(3), phi(3)
    real(dp), allocatable :: w(:,:,:), want(:,:,:)
    call nbfft_pencils_box(pc, which, plo, phi)
    allocate(w(plo(1):phi(1), plo(2):phi(2), plo(3):phi(3)), want(plo(1):phi(1), plo(2):phi(2), plo(3):phi(3)))
    call fill3(want, plo, phi)
    call nbfft_io_layout_of(lw, pc, which, NBFFT_DTYPE_FLOAT64)
    call nbfft_h5_read_layout(f, lw, "v", 0, w)
    call expect(all(w == want), "the pencils read back as another pencil")
    call nbfft_io_layout_destroy(lw)
  end subroutine

  include "fortran_expect.inc"

end program fortran_h5_layout
