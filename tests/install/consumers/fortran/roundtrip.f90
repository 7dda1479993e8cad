! nbfft from Fortran alone: a known spectrum and a round trip on a 12x10x9 grid (see ../README.md).
! Communicators from `use mpi` (integers); arrays carry global 1-based indices, u(x, y, z) on
! the input box and uh(x, z, y) on the output box. An nbfft error stops the program (the
! routines' `status` argument is left out, and nbfft's collective calls fail on every rank
! together); an error the program finds on one rank alone calls MPI_Abort, so that no rank
! waits forever in a collective that another rank never reaches.
program roundtrip
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0), n(3) = [12, 10, 9]
  real(dp), parameter :: pi = 3.14159265358979323846_dp, bign = 12 * 10 * 9
  type(nbfft_plan) :: plan
  type(nbfft_options) :: opts
  integer :: lo(3), hi(3), olo(3), ohi(3), i, j, l, level, provided, rank, nranks, ierr
  real(dp), allocatable :: u(:,:,:), v(:,:,:)
  complex(dp), allocatable :: uh(:,:,:)
  ! summed over ranks: sum |F|^2, holders of k = 0, the error there, holders of (1, 2, 8), the error there
  real(dp) :: sums(5), energy
  real(dp) :: roundtrip_error(1)   ! an array, as sums: MPICH's `use mpi` has no interfaces, and gfortran
                                    ! warns when one call passes a scalar and another an array
  logical :: ok

  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "norm", "backward")   ! forward unscaled, backward by 1/N
  call nbfft_required_thread_level(opts, level)
  call MPI_Init_thread(level, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), &
           uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)), stat=ierr)
  if (ierr /= 0) then   ! this rank alone: abort them all rather than leave them waiting
    print '(a,i0)', 'roundtrip: out of memory on rank ', rank
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if

  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)   ! global index i is x = i - 1
        u(i, j, l) = 3 + cos(2 * pi * (real(i - 1, dp) / n(1) + 2 * real(j - 1, dp) / n(2) - real(l - 1, dp) / n(3)))
      end do
    end do
  end do
  call nbfft_forward(plan, u, uh)
  sums = 0
  sums(1) = sum(abs(uh)**2)
  if (holds(1, 1, 1)) then
    sums(2) = 1
    sums(3) = abs(uh(1, 1, 1) - 3 * bign)
  end if
  if (holds(2, 3, 9)) then   ! k = (1, 2, 8)
    sums(4) = 1
    sums(5) = abs(uh(2, 9, 3) - bign / 2)
  end if
  call nbfft_backward(plan, uh, v)
  roundtrip_error = 0
  if (size(u) > 0) roundtrip_error(1) = maxval(abs(v - u))
  call MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, roundtrip_error, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)

  energy = abs(sums(1) / bign**2 - 9.25_dp)
  ok = energy < 1d-12 .and. sums(2) == 1 .and. sums(3) < 1d-9 .and. sums(4) == 1 .and. sums(5) < 1d-9 &
       .and. roundtrip_error(1) < 1d-12
  if (rank == 0) print '(a,i0,a,es8.2,a,es8.2,a,es8.2,a,es8.2,a,a)', 'roundtrip (Fortran), ', nranks, ' ranks: sum |F|^2 error ', &
      energy, &
      ', F(0,0,0) error ', sums(3), ', F(1,2,8) error ', sums(5), ', round trip ', roundtrip_error(1), ': ', &
      trim(merge('ok   ', 'WRONG', ok))
  call nbfft_plan_destroy(plan)
  call nbfft_options_destroy(opts)
  call MPI_Finalize(ierr)
  if (.not. ok) error stop 1

contains
  ! Whether this rank's output box holds global (1-based) point (i, j, l) = (x, y, z) + 1.
  logical function holds(i, j, l)
    integer, intent(in) :: i, j, l
    holds = all([i, j, l] >= olo) .and. all([i, j, l] <= ohi)
  end function
end program roundtrip
