! Transform kinds through the Fortran module in single precision: real u -> real uh -> u for
! an all-r2r plan (the r2r specifics of nbfft_forward/nbfft_backward), a complex uh refused
! on every rank with a message naming the types, and the wavenumbers of a dst2 axis.
! Stops with a non-zero code on any failure.
program fortran_r2r
  use mpi_f08
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_float, c_float_complex
  implicit none
  integer, parameter :: n(3) = [9, 7, 6]
  real, parameter :: pi = 3.14159265
  type(nbfft_plan) :: plan
  type(nbfft_options) :: opts
  integer :: lo(3), hi(3), olo(3), ohi(3), i, j, l, provided, rank, st, bad
  real(c_float), allocatable :: u(:,:,:), v(:,:,:), uh(:,:,:)
  complex(c_float_complex), allocatable :: ch(:,:,:)
  real(c_float) :: err, maxerr
  character(len=:), allocatable :: msg
  double precision, allocatable :: kx(:), ky(:), kz(:)

  call MPI_Init_thread(MPI_THREAD_SINGLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  bad = 0
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "precision", "single")
  call nbfft_options_set(opts, "kinds", "dst2,dct2,RODFT11")
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)), ch(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
  allocate(kx(olo(1):ohi(1)), ky(olo(2):ohi(2)), kz(olo(3):ohi(3)))
  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i, j, l) = real(mod(i * 7 + j * 3 + l * 5, 11) - 5, c_float)
      end do
    end do
  end do
  call nbfft_forward(plan, u, uh)
  call nbfft_backward(plan, uh, v)
  err = maxval(abs(u - v), mask=.true.)
  if (size(u) == 0) err = 0
  call MPI_Allreduce(err, maxerr, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD)
  if (maxerr > 1e-4) then
    if (rank == 0) print *, 'FAIL: single-precision r2r round trip error', maxerr
    bad = 1
  end if
  ! A complex spectrum for a real-to-real plan: refused on every rank, naming the types.
  call nbfft_forward(plan, u, ch, status=st)
  msg = nbfft_last_error()
  if (rank == 0) print '(a)', 'refused: ' // msg
  if (st /= NBFFT_INVALID_ARGUMENT .or. index(msg, "real(c_float)") == 0) then
    print *, 'FAIL rank', rank, ': complex uh accepted or unclear:', st, msg
    bad = 1
  end if
  ! dst2 on x of a box of length pi: wavenumbers k+1.
  call nbfft_wavenumbers(plan, kx, ky, kz, [pi * 1d0, pi * 1d0, pi * 1d0])
  do i = olo(1), ohi(1)
    if (abs(kx(i) - i) > 1d-5) bad = 1
  end do
  do l = olo(3), ohi(3)
    if (abs(kz(l) - (l - 0.5d0)) > 1d-5) bad = 1
  end do
  call nbfft_plan_destroy(plan)
  call nbfft_options_destroy(opts)
  call MPI_Allreduce(MPI_IN_PLACE, bad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (rank == 0) print '(a,es9.2,a,l1)', 'fortran r2r: round trip ', maxerr, ', failed: ', bad /= 0
  call MPI_Finalize()
  if (bad /= 0) error stop 1
end program fortran_r2r
