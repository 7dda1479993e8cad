! User boxes through the Fortran module (nbfft_plan_create_boxes): x bricks in, z slabs of
! the spectrum out stored uh(x,y,z) (the natural order), the forward of two modes landing on
! their coefficients, the round trip, nbfft_box answering the user's boxes, and overlapping
! boxes failing on every rank with a status and a message. Stops non-zero on any failure.
program fortran_boxes
  use mpi_f08
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_double, c_double_complex
  implicit none
  integer, parameter :: n(3) = [12, 10, 9]
  double precision, parameter :: pi = 3.14159265358979d0
  type(nbfft_plan) :: plan, bad
  type(nbfft_options) :: opts
  integer :: ilo(3), ihi(3), olo(3), ohi(3), lo(3), hi(3), order(3), i, j, l, provided, rank, size, st, fails, total
  real(c_double), allocatable :: u(:,:,:), v(:,:,:)
  complex(c_double_complex), allocatable :: uh(:,:,:)
  complex(c_double_complex) :: want
  double precision :: err

  call MPI_Init_thread(MPI_THREAD_SINGLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  fails = 0
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "effort", "estimate")
  ! x split over the ranks in, z split over the ranks out (1-based, inclusive)
  ilo = [part_lo(n(1), size, rank), 1, 1]
  ihi = [part_lo(n(1), size, rank + 1) - 1, n(2), n(3)]
  olo = [1, 1, part_lo(n(3), size, rank)]
  ohi = [n(1) / 2 + 1, n(2), part_lo(n(3), size, rank + 1) - 1]
  call nbfft_plan_create_boxes(plan, MPI_COMM_WORLD, n, opts, in_lo=ilo, in_hi=ihi, out_lo=olo, out_hi=ohi)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi, order)
  if (any(lo /= ilo) .or. any(hi /= ihi) .or. any(order /= [1, 2, 3])) call fail("input box")
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo, hi, order)
  if (any(lo /= olo) .or. any(hi /= ohi) .or. any(order /= [1, 2, 3])) call fail("output box")
  allocate(u(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3)), v(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3)))
  allocate(uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))
  ! u = cos(2 pi x / nx) + 2 sin(2 pi (2 y / ny + z / nz)), x, y, z 0-based
  do l = ilo(3), ihi(3)
    do j = ilo(2), ihi(2)
      do i = ilo(1), ihi(1)
        u(i, j, l) = cos(2 * pi * (i - 1) / n(1)) + 2 * sin(2 * pi * (2d0 * (j - 1) / n(2) + dble(l - 1) / n(3)))
      end do
    end do
  end do
  call nbfft_forward(plan, u, uh)
  err = 0
  do l = olo(3), ohi(3)
    do j = olo(2), ohi(2)
      do i = olo(1), ohi(1)
        want = (0d0, 0d0)
        if (i == 2 .and. j == 1 .and. l == 1) want = cmplx(product(n) / 2d0, 0d0, c_double_complex)
        if (i == 1 .and. j == 3 .and. l == 2) want = cmplx(0d0, -dble(product(n)), c_double_complex)
        if (i == 1 .and. j == n(2) - 1 .and. l == n(3)) want = cmplx(0d0, dble(product(n)), c_double_complex)
        err = max(err, abs(uh(i, j, l) - want))
      end do
    end do
  end do
  if (err > 1d-9 * product(n)) call fail("spectrum in the user's z slabs")
  call nbfft_backward(plan, uh, v)
  if (maxval(abs(u - v)) > 1d-12) call fail("round trip")
  call nbfft_plan_destroy(plan)
  if (size > 1) then  ! every rank claims the whole grid
    call nbfft_plan_create_boxes(bad, MPI_COMM_WORLD, n, opts, st, in_lo=[1, 1, 1], in_hi=n)
    if (st /= NBFFT_INVALID_ARGUMENT) call fail("overlap status")
    if (index(nbfft_last_error(), "in_box of ranks 0 and 1 overlap") == 0) call fail("overlap message")
  end if
  call nbfft_options_destroy(opts)
  call MPI_Allreduce(fails, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(a, i0, a)', "fortran_boxes: ", total, " failures"
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  ! 1-based first index of part k of m points over p parts (the first m mod p one longer)
  integer function part_lo(m, p, k)
    integer, intent(in) :: m, p, k
    part_lo = k * (m / p) + min(k, mod(m, p)) + 1
  end function

  subroutine fail(what)
    character(len=*), intent(in) :: what
    write (*, '(a, i0, 2a)') "FAIL rank ", rank, ": ", what
    fails = fails + 1
  end subroutine
end program
