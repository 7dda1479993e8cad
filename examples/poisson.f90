! Spectral Poisson solve with nbfft's Fortran module: -lap u = f on the periodic box [0, 2pi)^3.
!
! f is built from sin/cos products whose exact solution u is known; u = IFFT(FFT(f)/|k|^2)
! with the mean (k = 0) set to 0. Arrays carry global 1-based indices: u(x, y, z) on the
! input box, uh(x, z, y) on the output box. Prints the largest error against the exact u and
! stops with a non-zero code when it exceeds 1e-10. Usage: mpiexec -n P poisson_f
program poisson
  use mpi_f08
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0), n(3) = [24, 20, 18]
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  type(nbfft_plan) :: plan
  type(nbfft_options) :: opts
  integer :: lo(3), hi(3), olo(3), ohi(3), i, j, l, level, provided, rank, size, m1, m2, g(3)
  real(dp), allocatable :: u(:,:,:), kx(:), ky(:), kz(:)
  complex(dp), allocatable :: uh(:,:,:)
  real(dp) :: err, maxerr, k2, h(3)

  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "norm", "backward")   ! backward scaled by 1/N (the default)
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_required_thread_level(opts, level)
  call MPI_Init_thread(level, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)

  call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
  call nbfft_grid(plan, g, m1, m2)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
  allocate(kx(olo(1):ohi(1)), ky(olo(2):ohi(2)), kz(olo(3):ohi(3)))
  h = 2 * pi / n

  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i, j, l) = source(h(1) * (i - 1), h(2) * (j - 1), h(3) * (l - 1))
      end do
    end do
  end do
  call nbfft_forward(plan, u, uh)
  call nbfft_wavenumbers(plan, kx, ky, kz)
  do j = olo(2), ohi(2)
    do l = olo(3), ohi(3)
      do i = olo(1), ohi(1)
        k2 = kx(i)**2 + ky(j)**2 + kz(l)**2
        if (k2 > 0) then
          uh(i, l, j) = uh(i, l, j) / k2
        else
          uh(i, l, j) = 0
        end if
      end do
    end do
  end do
  call nbfft_backward(plan, uh, u)

  err = 0
  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        err = max(err, abs(u(i, j, l) - exact(h(1) * (i - 1), h(2) * (j - 1), h(3) * (l - 1))))
      end do
    end do
  end do
  call MPI_Allreduce(err, maxerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,es9.2)', 'poisson (Fortran): ', g(1), 'x', g(2), 'x', g(3), &
      ' grid on ', size, ' ranks (', m1, 'x', m2, '): max error ', maxerr

  call nbfft_plan_destroy(plan)
  call nbfft_options_destroy(opts)
  call MPI_Finalize()
  if (maxerr > 1d-10) error stop 1

contains
  real(dp) function exact(x, y, z)
    real(dp), intent(in) :: x, y, z
    exact = sin(x) * cos(2 * y) * sin(3 * z) + cos(3 * x) * sin(y)
  end function
  real(dp) function source(x, y, z)
    real(dp), intent(in) :: x, y, z
    source = 14 * sin(x) * cos(2 * y) * sin(3 * z) + 10 * cos(3 * x) * sin(y)
  end function
end program poisson
