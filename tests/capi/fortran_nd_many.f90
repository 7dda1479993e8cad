! Several fields and split-phase calls of N-D plans through the Fortran module
! (nbfft_nd_forward_many / _backward_many, nbfft_nd_forward_start / _backward_start,
! nbfft_nd_test, nbfft_nd_wait): fields stacked along one more, last, dimension; field k is
! 2**(k-1) times the test input, so its spectrum is exactly 2**(k-1) times field 1's. Each
! field's spectrum, gathered on every rank, against a serial DFT of the whole array, and bit
! for bit against the one-field call; split-phase results against the same; backward back
! to the input. A 2-D r2c plan on a non-blocking transport and a 4-D c2c one over three
! dimensions with a transposed spectrum. Then the misuse: waiting twice, destroying a plan
! with a transform not waited for, a section that is not contiguous, field counts that
! differ, a wrong array on one rank. Outputs start as NaN. Stops non-zero on any failure.
program fortran_nd_many
  use mpi
  use nbfft
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use, intrinsic :: iso_c_binding, only: c_associated
  implicit none
  integer, parameter :: dp = kind(1d0), nv = 3
  integer :: rank, nprocs, failures, st
  real(dp) :: nan

  call begin_test()
  nan = ieee_value(1.0_dp, ieee_quiet_nan)

  call two_d()
  call four_d()
  call misuse()

  call end_test("fortran_nd_many")

contains

  include "fortran_nd_reference.inc"

  ! 2-D r2c g(6, 7) (spectrum 4 x 7), pairwise exchanges: three fields.
  subroutine two_d()
    integer, parameter :: n(2) = [6, 7]
    type(nbfft_nd_plan) :: p
    type(nbfft_nd_pending) :: pend(nv)
    integer :: lo(2), hi(2), olo(2), ohi(2), i, k
    real(dp), allocatable :: g(:,:), u(:,:,:), v(:,:,:)
    complex(dp), allocatable :: uh(:,:,:), one(:,:,:), sp(:,:,:), gh(:,:), ref(:), refc(:,:)
    logical :: done
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, options="transport=pairwise:2@caller")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    g = reshape([(value(i, 0), i = 0, product(n) - 1)], n)
    allocate(u(lo(1):hi(1), lo(2):hi(2), nv), v(lo(1):hi(1), lo(2):hi(2), nv))
    allocate(uh(olo(1):ohi(1), olo(2):ohi(2), nv), one(olo(1):ohi(1), olo(2):ohi(2), nv))
    allocate(sp(olo(1):ohi(1), olo(2):ohi(2), nv), gh(4, 7))
    do k = 1, nv
      u(:, :, k) = 2.0_dp**(k - 1) * g(lo(1):hi(1), lo(2):hi(2))
      call nbfft_nd_forward(p, u(:, :, k), one(:, :, k))
    end do
    uh = cmplx(nan, nan, dp)
    call nbfft_nd_forward_many(p, u, uh, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(uh == one), "2-D: forward_many is the one-field calls, bit for bit")
    ref = cmplx(reshape(g, [product(n)]), 0, dp)
    call dft(ref, n, 1)
    call dft(ref, n, 2)
    refc = reshape(ref, n)
    do k = 1, nv
      gh = cmplx(nan, nan, dp)
      call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh(:, :, k), gh, NBFFT_EVERY_RANK)
      call expect(count(.not. abs(gh - 2.0_dp**(k - 1) * refc(1:4, :)) <= 1d-11 * 2.0_dp**(k - 1) * maxval(abs(ref))) &
                  == 0, "2-D: forward_many's field against the serial DFT")
    end do
    v = nan
    call nbfft_nd_backward_many(p, uh, v, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(v - u) <= 1d-12 * 4) == 0, "2-D: backward_many returns the fields")

    ! Split phase: every field started, then tested and waited for in the same order.
    sp = cmplx(nan, nan, dp)
    do k = 1, nv
      call nbfft_nd_forward_start(p, u(:, :, k), sp(:, :, k), pend(k), status=st)
      call expect(st == NBFFT_SUCCESS, "2-D: forward_start")
    end do
    do k = 1, nv
      call nbfft_nd_test(pend(k), done, status=st)
      call expect(st == NBFFT_SUCCESS, "2-D: test")
      call nbfft_nd_wait(pend(k), status=st)
      call expect(st == NBFFT_SUCCESS .and. .not. c_associated(pend(k)%p), "2-D: wait leaves the handle null")
    end do
    call expect(all(sp == one), "2-D: the split-phase spectra are the one-field calls'")
    v = nan
    call nbfft_nd_backward_start(p, sp(:, :, 2), v(:, :, 2), pend(1))
    call nbfft_nd_wait(pend(1))
    call expect(count(.not. abs(v(:, :, 2) - u(:, :, 2)) <= 1d-12 * 2) == 0, "2-D: backward_start and wait")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  ! 4-D c2c g(6, 4, 5, 3) over dimensions 1, 3 and 4, the spectrum transposed: two fields.
  subroutine four_d()
    integer, parameter :: n(4) = [6, 4, 5, 3]
    type(nbfft_nd_plan) :: p
    type(nbfft_nd_pending) :: pend
    integer :: lo(4), hi(4), olo(4), ohi(4), fo(4), t(4), i, k
    complex(dp), allocatable :: g(:,:,:,:), u(:,:,:,:,:), v(:,:,:,:,:), uh(:,:,:,:,:), one(:,:,:,:,:), gh(:,:,:,:), ref(:)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=[1, 3, 4], options="kind=c2c output_order=transposed")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    call nbfft_nd_out_order(p, fo)
    t = ohi - olo + 1
    t = t(fo)
    ref = [(cmplx(value(i, 0), value(i, 1), dp), i = 0, product(n) - 1)]
    g = reshape(ref, n)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), lo(4):hi(4), 2), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), lo(4):hi(4), 2))
    allocate(uh(t(1), t(2), t(3), t(4), 2), one(t(1), t(2), t(3), t(4), 2), gh(n(1), n(2), n(3), n(4)))
    do k = 1, 2
      u(:, :, :, :, k) = 2.0_dp**(k - 1) * g(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), lo(4):hi(4))
      call nbfft_nd_forward(p, u(:, :, :, :, k), one(:, :, :, :, k))
    end do
    uh = cmplx(nan, nan, dp)
    call nbfft_nd_forward_many(p, u, uh, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(uh == one), "4-D: forward_many is the one-field calls, bit for bit")
    call dft(ref, n, 1)
    call dft(ref, n, 3)
    call dft(ref, n, 4)
    gh = cmplx(nan, nan, dp)
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh(:, :, :, :, 2), gh, NBFFT_EVERY_RANK)
    call expect(count(.not. abs(gh - 2 * reshape(ref, n)) <= 2d-11 * maxval(abs(ref))) == 0, &
                "4-D: forward_many's second field against the serial DFT")
    v = cmplx(nan, nan, dp)
    call nbfft_nd_backward_many(p, uh, v, status=st)
    call expect(st == NBFFT_SUCCESS .and. count(.not. abs(v - u) <= 1d-12 * 2) == 0, "4-D: backward_many returns the fields")
    uh = cmplx(nan, nan, dp)
    call nbfft_nd_forward_start(p, u(:, :, :, :, 1), uh(:, :, :, :, 1), pend)
    call nbfft_nd_wait(pend)
    call expect(all(uh(:, :, :, :, 1) == one(:, :, :, :, 1)), "4-D: the split-phase spectrum is the one-field call's")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  subroutine misuse()
    type(nbfft_nd_plan) :: p
    type(nbfft_nd_pending) :: pend, copy
    integer :: lo(3), hi(3), olo(3), ohi(3)
    real(dp), allocatable :: u(:,:,:), us(:,:,:,:)
    complex(dp), allocatable :: uh(:,:,:), uhs(:,:,:,:)
    character(len=:), allocatable :: msg
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, [8, 3, 6], axes=[1, 3], options="transport=pairwise:2@caller")
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))
    u = 1
    call nbfft_nd_forward_start(p, u, uh, pend, status=st)
    call expect(st == NBFFT_SUCCESS, "start")
    copy = pend
    call nbfft_nd_plan_destroy(p, status=st)
    msg = nbfft_last_error()
    call expect(st == NBFFT_INVALID_STATE .and. c_associated(p%p) .and. index(msg, "nbfft_nd_wait") > 0, &
                "destroying a plan with a transform not waited for is refused")
    call nbfft_nd_wait(pend, status=st)
    call expect(st == NBFFT_SUCCESS, "wait")
    call nbfft_nd_wait(pend, status=st)
    call expect(st == NBFFT_INVALID_STATE, "waiting twice (the handle null)")
    call nbfft_nd_wait(copy, status=st)
    call expect(st == NBFFT_INVALID_STATE, "waiting twice (a copy of the handle)")
    ! A section is a copy the compiler frees at return: refused for split phase.
    allocate(us(lo(1):hi(1), 2, lo(2):hi(2), lo(3):hi(3)))
    call nbfft_nd_backward_start(p, uh, us(:, 1, :, :), pend, status=st)
    call expect_error(st, "out is not contiguous", "a section to a split-phase call")
    ! Field counts that differ, and a wrong field extent on the last rank only.
    allocate(uhs(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3), 2))
    deallocate(us)
    allocate(us(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 3))
    us = 1
    call nbfft_nd_forward_many(p, us, uhs, status=st)
    call expect_error(st, "in has 3 fields, out 2", "field counts that differ")
    deallocate(us)
    if (rank == nprocs - 1) then
      allocate(us(lo(1):hi(1) + 1, lo(2):hi(2), lo(3):hi(3), 2))
    else
      allocate(us(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 2))
    end if
    us = 1
    call nbfft_nd_forward_many(p, us, uhs, status=st)
    call expect_error(st, "expected u(", "a wrong field on the last rank fails every rank")
    call nbfft_nd_plan_destroy(p, status=st)
    call expect(st == NBFFT_SUCCESS, "destroy after the wait")
  end subroutine
end program fortran_nd_many
