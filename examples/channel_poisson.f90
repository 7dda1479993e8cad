! Poisson solves with walls, nbfft's Fortran module: -lap u = f with a transform kind per
! axis (option "kinds", docs/fft.md "Transform kinds").
!
!   case 1  periodic x, y on [0, 2pi), u = 0 at the walls z = 0, pi: "periodic,periodic,dst2"
!           (z on cell centres); real u, complex uh
!   case 2  the same with du/dz = 0 at the walls: "periodic,periodic,dct2"
!   case 3  a closed box [0, pi]^3, "dst1,dct2,dst2": every axis r2r, so uh is real too
!
! u = backward(forward(f) / |k|^2), k from nbfft_wavenumbers with the box's lengths. Prints
! the largest error against the exact u; stops non-zero when one exceeds 1e-10.
! Usage: mpiexec -n P channel_poisson_f
program channel_poisson
  use mpi_f08
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0), n(3) = [16, 12, 10]
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  integer :: rank, level, provided
  real(dp) :: worst

  call MPI_Init_thread(MPI_THREAD_SINGLE, provided)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  level = provided
  worst = 0
  worst = max(worst, solve(1, "periodic,periodic,dst2", [2 * pi, 2 * pi, pi]))
  worst = max(worst, solve(2, "periodic,periodic,dct2", [2 * pi, 2 * pi, pi]))
  worst = max(worst, solve(3, "dst1,dct2,dst2", [pi, pi, pi]))
  call MPI_Finalize()
  if (worst > 1d-10) error stop 1

contains
  real(dp) function solve(c, kinds, length) result(maxerr)
    integer, intent(in) :: c
    character(len=*), intent(in) :: kinds
    real(dp), intent(in) :: length(3)
    type(nbfft_plan) :: plan
    type(nbfft_options) :: opts
    integer :: lo(3), hi(3), olo(3), ohi(3), i, j, l
    real(dp), allocatable :: u(:,:,:), kx(:), ky(:), kz(:), rh(:,:,:)
    complex(dp), allocatable :: uh(:,:,:)
    real(dp) :: err, k2

    call nbfft_options_create(opts)
    call nbfft_options_set(opts, "kinds", kinds)
    call nbfft_options_set(opts, "effort", "estimate")
    call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    allocate(kx(olo(1):ohi(1)), ky(olo(2):ohi(2)), kz(olo(3):ohi(3)))
    do l = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          u(i, j, l) = source(c, point(c, 1, i), point(c, 2, j), point(c, 3, l))
        end do
      end do
    end do
    call nbfft_wavenumbers(plan, kx, ky, kz, length)
    if (c == 3) then
      allocate(rh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))  ! real spectrum
      call nbfft_forward(plan, u, rh)
    else
      allocate(uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
      call nbfft_forward(plan, u, uh)
    end if
    do j = olo(2), ohi(2)
      do l = olo(3), ohi(3)
        do i = olo(1), ohi(1)
          k2 = kx(i)**2 + ky(j)**2 + kz(l)**2
          if (c == 3) then
            rh(i, l, j) = merge(rh(i, l, j) / max(k2, 1d-300), 0d0, k2 > 0)
          else
            uh(i, l, j) = merge(uh(i, l, j) / max(k2, 1d-300), (0d0, 0d0), k2 > 0)
          end if
        end do
      end do
    end do
    if (c == 3) then
      call nbfft_backward(plan, rh, u)
    else
      call nbfft_backward(plan, uh, u)
    end if
    err = 0
    do l = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          err = max(err, abs(u(i, j, l) - exact(c, point(c, 1, i), point(c, 2, j), point(c, 3, l))))
        end do
      end do
    end do
    call MPI_Allreduce(err, maxerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    if (rank == 0) print '(a,a,a,es9.2)', 'channel_poisson (Fortran) kinds ', kinds, ': max error ', maxerr
    call nbfft_plan_destroy(plan)
    call nbfft_options_destroy(opts)
  end function

  ! Grid point of 1-based index i along axis d: periodic (i-1) 2pi/n, dct2/dst2 cell
  ! centres (i-1/2) pi/n, dst1 interior points i pi/(n+1).
  real(dp) function point(c, d, i)
    integer, intent(in) :: c, d, i
    if (c < 3 .and. d < 3) then
      point = 2 * pi * (i - 1) / n(d)
    else if (c == 3 .and. d == 1) then
      point = pi * i / (n(d) + 1)
    else
      point = pi * (i - 0.5_dp) / n(d)
    end if
  end function

  real(dp) function exact(c, x, y, z)
    integer, intent(in) :: c
    real(dp), intent(in) :: x, y, z
    select case (c)
    case (1); exact = sin(x) * cos(2 * y) * sin(3 * z) + cos(3 * x) * sin(y) * sin(z)
    case (2); exact = sin(x) * cos(2 * y) * cos(3 * z) + cos(3 * x) * sin(y) * cos(z) + cos(2 * y)
    case default; exact = sin(2 * x) * cos(y) * sin(3 * z) + sin(x) * sin(z)
    end select
  end function

  real(dp) function source(c, x, y, z)
    integer, intent(in) :: c
    real(dp), intent(in) :: x, y, z
    select case (c)
    case (1); source = 14 * sin(x) * cos(2 * y) * sin(3 * z) + 11 * cos(3 * x) * sin(y) * sin(z)
    case (2); source = 14 * sin(x) * cos(2 * y) * cos(3 * z) + 11 * cos(3 * x) * sin(y) * cos(z) + 4 * cos(2 * y)
    case default; source = 14 * sin(2 * x) * cos(y) * sin(3 * z) + 2 * sin(x) * sin(z)
    end select
  end function
end program channel_poisson
