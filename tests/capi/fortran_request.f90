! capi.fortran_request: type(nbfft_request), the one handle of every split-phase call, from
! Fortran: the 3-D plan's nbfft_forward_start / nbfft_backward_start against nbfft_forward /
! nbfft_backward (two fields in flight, the caller's own work and nbfft_test between start
! and wait), an N-D plan's transform finished by the same nbfft_wait (its request declared
! with the earlier name nbfft_nd_pending: the same type), and the misuse (a section, which
! the compiler would copy, refused on every rank; a second wait). Stops non-zero on a failure.
program fortran_request
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer, parameter :: n(3) = [10, 7, 9]
  type(nbfft_options) :: opts
  type(nbfft_plan) :: plan
  type(nbfft_request) :: r(2)
  type(nbfft_nd_pending) :: t  ! the earlier name: the same type as nbfft_request
  type(nbfft_nd_plan) :: nd
  integer :: ierr, rank, failures, total, lo(3), hi(3), lo2(3), hi2(3), i, j, l, f, st, k
  real(dp), allocatable, target :: u(:,:,:,:), v(:,:,:,:), a(:,:), big(:,:,:)
  complex(dp), allocatable, target :: uh(:,:,:,:), ref(:,:,:,:), ah(:,:)
  logical :: done
  real(dp) :: busy

  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "transport", "pairwise@caller")
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 2), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 2))
  allocate(uh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2), 2), ref(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2), 2))
  do f = 1, 2
    do l = lo(3), hi(3)
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          u(i, j, l, f) = sin(0.37d0 * i + 1.1d0 * j * f) * cos(0.2d0 * l) + 1d-3 * i * l
        end do
      end do
    end do
    call nbfft_forward(plan, u(:,:,:,f), ref(:,:,:,f))
  end do

  ! Two forward transforms in flight; the caller's work in between; waited in reverse order.
  do f = 1, 2
    call nbfft_forward_start(plan, u(:,:,:,f), uh(:,:,:,f), r(f))
  end do
  busy = 0
  do k = 1, 1000
    busy = busy + sin(real(k, dp))
  end do
  call nbfft_test(r(1), done)
  call nbfft_progress(r(2))
  do f = 2, 1, -1
    call nbfft_wait(r(f))
  end do
  do f = 1, 2
    call expect(maxval(abs(uh(:,:,:,f) - ref(:,:,:,f))) <= 1d-12 * maxval(abs(ref(:,:,:,f))), &
                "split-phase forward equals nbfft_forward")
  end do
  call nbfft_wait(r(1), st)
  call expect(st == NBFFT_INVALID_STATE, "a second wait is NBFFT_INVALID_STATE")

  ! Backward, waited in start order on every rank (the wait runs the second exchange).
  do f = 1, 2
    call nbfft_backward_start(plan, uh(:,:,:,f), v(:,:,:,f), r(f))
  end do
  do f = 1, 2
    call nbfft_wait(r(f))
    call expect(maxval(abs(v(:,:,:,f) - u(:,:,:,f))) < 1d-12, "split-phase round trip returns the field")
  end do

  ! A section (every other x point of a larger array) would be the compiler's copy: refused everywhere.
  allocate(big(2 * (hi(1) - lo(1) + 1), lo(2):hi(2), lo(3):hi(3)))
  big = 0
  if (hi(1) >= lo(1) .and. hi(2) >= lo(2) .and. hi(3) >= lo(3)) then
    call nbfft_forward_start(plan, big(1::2, :, :), uh(:,:,:,1), r(1), st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "a non-contiguous section is refused")
  end if
  call nbfft_plan_destroy(plan)

  ! An N-D plan's request is the same type: nbfft_wait finishes it.
  call nbfft_nd_plan_create(nd, MPI_COMM_WORLD, [6, 5])
  call nbfft_nd_box(nd, NBFFT_LAYOUT_INPUT, lo(1:2), hi(1:2))
  call nbfft_nd_box(nd, NBFFT_LAYOUT_OUTPUT, lo2(1:2), hi2(1:2))
  allocate(a(lo(1):hi(1), lo(2):hi(2)), ah(lo2(1):hi2(1), lo2(2):hi2(2)))
  a = 1
  call nbfft_nd_forward_start(nd, a, ah, t)
  call nbfft_wait(t)
  call nbfft_nd_plan_destroy(nd)
  call nbfft_options_destroy(opts)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total == 0) then
    call MPI_Comm_rank(MPI_COMM_WORLD, i, ierr)
    if (i == 0) print '(a)', "fortran_request: passed"
  end if
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  include "fortran_expect.inc"

end program fortran_request
