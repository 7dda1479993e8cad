! User boxes through the Fortran module (nbfft_plan_create_boxes), each layout checked against
! a plain serial DFT of the whole field computed here from pseudo-random data (every rank
! generates the same global field and compares its own output box point by point):
!   x-y bricks in (2x2x1 on 4 ranks; on 3 ranks y's 10 points split 4/3/3), z slabs of the
!     spectrum out stored uh(x,y,z) (the natural order);
!   z slabs in (9 = 3+2+2+2 on 4 ranks), x-y bricks of the spectrum out stored uh(x,z,y)
!     (out_order=[1, 3, 2]), on the thread engine;
! the round trips, nbfft_box answering the user's boxes, and overlapping boxes failing on
! every rank with a status and a message. Stops non-zero on any failure.
program fortran_boxes
  use mpi_f08
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_double, c_double_complex, c_int64_t
  implicit none
  integer, parameter :: n(3) = [12, 10, 9]
  double precision, parameter :: pi = 3.14159265358979d0
  type(nbfft_plan) :: bad
  type(nbfft_options) :: opts
  integer :: ilo(3), ihi(3), olo(3), ohi(3), provided, rank, nranks, st, fails, total, px, py

  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  fails = 0
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "effort", "estimate")
  ! px x py bricks over x, y (2x2 on 4 ranks, 1x3 on 3), 1-based inclusive
  px = merge(2, 1, mod(nranks, 2) == 0)
  py = nranks / px
  ilo = [part_lo(n(1), px, mod(rank, px)), part_lo(n(2), py, rank / px), 1]
  ihi = [part_lo(n(1), px, mod(rank, px) + 1) - 1, part_lo(n(2), py, rank / px + 1) - 1, n(3)]
  olo = [1, 1, part_lo(n(3), nranks, rank)]
  ohi = [n(1) / 2 + 1, n(2), part_lo(n(3), nranks, rank + 1) - 1]
  call check_layout("bricks in, z slabs out", [1, 2, 3])
  ! z slabs in, x-y bricks of the spectrum out stored (x, z, y)
  ilo = [1, 1, part_lo(n(3), nranks, rank)]
  ihi = [n(1), n(2), part_lo(n(3), nranks, rank + 1) - 1]
  olo = [part_lo(n(1) / 2 + 1, px, mod(rank, px)), part_lo(n(2), py, rank / px), 1]
  ohi = [part_lo(n(1) / 2 + 1, px, mod(rank, px) + 1) - 1, part_lo(n(2), py, rank / px + 1) - 1, n(3)]
  call nbfft_options_set(opts, "transport", "thread")
  call check_layout("z slabs in, bricks out", [1, 3, 2])
  call nbfft_options_set(opts, "transport", "blocking")
  if (nranks > 1) then  ! every rank claims the whole grid
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

  ! A plan on ilo:ihi in and olo:ohi out (stored in out order `oo`); the forward against the
  ! serial DFT, then the round trip.
  subroutine check_layout(name, oo)
    character(len=*), intent(in) :: name
    integer, intent(in) :: oo(3)
    type(nbfft_plan) :: plan
    integer :: lo(3), hi(3), order(3), e(3), i, j, l, k(3)
    real(c_double), allocatable :: u(:,:,:), v(:,:,:)
    complex(c_double_complex), allocatable :: uh(:,:,:)
    double precision :: err
    call nbfft_plan_create_boxes(plan, MPI_COMM_WORLD, n, opts, in_lo=ilo, in_hi=ihi, out_lo=olo, out_hi=ohi, &
                                 out_order=oo)
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi, order)
    if (any(lo /= ilo) .or. any(hi /= ihi) .or. any(order /= [1, 2, 3])) call fail(name // ": input box")
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo, hi, order)
    if (any(lo /= olo) .or. any(hi /= ohi) .or. any(order /= oo)) call fail(name // ": output box")
    allocate(u(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3)), v(ilo(1):ihi(1), ilo(2):ihi(2), ilo(3):ihi(3)))
    e = ohi - olo + 1
    allocate(uh(e(oo(1)), e(oo(2)), e(oo(3))))  ! the extents in memory order
    do l = ilo(3), ihi(3)
      do j = ilo(2), ihi(2)
        do i = ilo(1), ihi(1)
          u(i, j, l) = value(i - 1, j - 1, l - 1)
        end do
      end do
    end do
    call nbfft_forward(plan, u, uh)
    err = 0
    do l = olo(3), ohi(3)
      do j = olo(2), ohi(2)
        do i = olo(1), ohi(1)
          k = [i, j, l] - olo + 1  ! (x, y, z) within the box
          err = max(err, abs(uh(k(oo(1)), k(oo(2)), k(oo(3))) - dft(i - 1, j - 1, l - 1)) / product(n))
        end do
      end do
    end do
    if (err > 1d-12) call fail(name // ": spectrum against the serial DFT")
    call nbfft_backward(plan, uh, v)
    if (size(u) > 0) then
      if (maxval(abs(u - v)) > 1d-12) call fail(name // ": round trip")
    end if
    call nbfft_plan_destroy(plan)
  end subroutine

  ! The field at 0-based (x, y, z): pseudo-random in [0, 1) (two Park-Miller steps on the
  ! point's index), the same on every rank.
  double precision function value(x, y, z)
    integer, intent(in) :: x, y, z
    integer(c_int64_t), parameter :: m = 2147483647_c_int64_t, a = 16807_c_int64_t
    integer(c_int64_t) :: h
    h = int(x + n(1) * (y + n(2) * z), c_int64_t) + 1_c_int64_t
    h = mod(a * mod(a * h * 7919_c_int64_t, m), m)
    h = mod(a * h, m)
    value = dble(h) / dble(m)
  end function

  ! The DFT of the whole field at 0-based wavenumbers (kx, ky, kz), summed plainly.
  complex(c_double_complex) function dft(kx, ky, kz)
    integer, intent(in) :: kx, ky, kz
    integer :: x, y, z
    double precision :: a
    dft = (0d0, 0d0)
    do z = 0, n(3) - 1
      do y = 0, n(2) - 1
        do x = 0, n(1) - 1
          a = -2 * pi * (dble(mod(kx * x, n(1))) / n(1) + dble(mod(ky * y, n(2))) / n(2) + &
                         dble(mod(kz * z, n(3))) / n(3))
          dft = dft + value(x, y, z) * cmplx(cos(a), sin(a), c_double_complex)
        end do
      end do
    end do
  end function

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
