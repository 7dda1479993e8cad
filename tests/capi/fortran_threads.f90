! capi.fortran_threads: option threads=2 through the Fortran module gives bitwise the arrays
! of threads=1 (r2c double and c2c single, forward and backward), at any rank count; an N-D
! plan (2-D r2c) from a handle with threads=2 gives one thread's spectrum to rounding. MPI at
! the level nbfft_required_thread_level asks for. Stops with a non-zero code on a failure.
program fortran_threads
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0), sp = kind(1.0)
  integer, parameter :: n(3) = [64, 60, 48]  ! planes big enough that both lanes take some
  type(nbfft_options) :: opts
  integer :: ierr, rank, level, provided, failures, total, t
  real(dp), allocatable :: u(:,:,:), v(:,:,:, :)
  complex(dp), allocatable :: uh(:,:,:,:)
  complex(sp), allocatable :: w(:,:,:), wb(:,:,:,:), wh(:,:,:,:)
  real(dp), allocatable :: a2(:,:), b2(:,:,:)
  complex(dp), allocatable :: ah(:,:,:)
  character(len=:), allocatable :: described

  failures = 0
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "threads", "2")
  call nbfft_required_thread_level(opts, level)
  call MPI_Init_thread(level, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call expect(provided >= MPI_THREAD_FUNNELED, "threads=2 needs MPI_THREAD_FUNNELED")
  call nbfft_options_set(opts, "effort", "estimate")

  do t = 1, 2
    call r2c_double(t)
  end do
  call expect(all(uh(:,:,:,1) == uh(:,:,:,2)), "r2c double: the 2-thread spectrum is the 1-thread one")
  call expect(all(v(:,:,:,1) == v(:,:,:,2)), "r2c double: the 2-thread round trip is the 1-thread one")
  call expect(maxval(abs(v(:,:,:,1) - u)) < 1d-12, "r2c double: the round trip returns the field")

  call nbfft_options_set(opts, "transform", "c2c")
  call nbfft_options_set(opts, "precision", "single")
  do t = 1, 2
    call c2c_single(t)
  end do
  call expect(all(wh(:,:,:,1) == wh(:,:,:,2)), "c2c single: the 2-thread spectrum is the 1-thread one")
  call expect(all(wb(:,:,:,1) == wb(:,:,:,2)), "c2c single: the 2-thread round trip is the 1-thread one")
  call expect(maxval(abs(wb(:,:,:,1) - w)) < 1e-5, "c2c single: the round trip returns the field")
  call nbfft_options_destroy(opts)

  do t = 1, 2
    call nd_2d(t)
  end do
  call expect(maxval(abs(ah(:,:,2) - ah(:,:,1))) <= 1d-12 * max(1d0, maxval(abs(ah(:,:,1)))), &
              "nd 2-D: the 2-thread spectrum is the 1-thread one to rounding")
  call expect(maxval(abs(b2(:,:,2) - a2)) < 1d-12, "nd 2-D: the 2-thread round trip returns the field")

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine r2c_double(threads)
    integer, intent(in) :: threads
    type(nbfft_plan) :: plan
    integer :: lo(3), hi(3), lo2(3), hi2(3), i, j, l
    character(len=:), allocatable :: value
    call nbfft_options_set(opts, "threads", merge("2", "1", threads == 2))
    call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
    call nbfft_plan_option(plan, "threads", value)
    call expect(value == merge("2", "1", threads == 2), "the plan runs with the threads asked, got " // value)
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
    if (threads == 1) then
      allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 2))
      allocate(uh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2), 2))
      do l = lo(3), hi(3)
        do j = lo(2), hi(2)
          do i = lo(1), hi(1)
            u(i, j, l) = sin(0.37d0 * i + 1.1d0 * j) * cos(0.2d0 * l) + 1d-3 * i * l
          end do
        end do
      end do
    end if
    do i = 1, 2  ! the second round trip finds the worker awake (the first may end before it wakes)
      call nbfft_forward(plan, u, uh(:,:,:,threads))
      call nbfft_backward(plan, uh(:,:,:,threads), v(:,:,:,threads))
    end do
    call nbfft_plan_destroy(plan)
  end subroutine

  subroutine c2c_single(threads)
    integer, intent(in) :: threads
    type(nbfft_plan) :: plan
    integer :: lo(3), hi(3), lo2(3), hi2(3), i, j, l
    call nbfft_options_set(opts, "threads", merge("2", "1", threads == 2))
    call nbfft_plan_create(plan, MPI_COMM_WORLD, n, opts)
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
    if (threads == 1) then
      allocate(w(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), wb(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3), 2))
      allocate(wh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2), 2))
      do l = lo(3), hi(3)
        do j = lo(2), hi(2)
          do i = lo(1), hi(1)
            w(i, j, l) = cmplx(sin(0.37 * i + 1.1 * j), cos(0.2 * l - 0.3 * i), sp)
          end do
        end do
      end do
    end if
    do i = 1, 2
      call nbfft_forward(plan, w, wh(:,:,:,threads))
      call nbfft_backward(plan, wh(:,:,:,threads), wb(:,:,:,threads))
    end do
    call nbfft_plan_destroy(plan)
  end subroutine

  subroutine nd_2d(threads)
    integer, intent(in) :: threads
    type(nbfft_nd_plan) :: plan
    type(nbfft_options) :: o
    integer :: lo(2), hi(2), lo2(2), hi2(2), i, j
    call nbfft_options_create(o)
    call nbfft_options_parse(o, "effort=estimate threads=" // merge("2", "1", threads == 2))
    call nbfft_nd_plan_create(plan, MPI_COMM_WORLD, [130, 72], opts=o)
    call nbfft_options_destroy(o)
    call nbfft_nd_describe(plan, described)
    if (threads == 2) call expect(index(described, "2 threads") > 0, "nd plan runs 2 threads: " // described)
    call nbfft_nd_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
    if (threads == 1) then
      allocate(a2(lo(1):hi(1), lo(2):hi(2)), b2(lo(1):hi(1), lo(2):hi(2), 2))
      allocate(ah(lo2(1):hi2(1), lo2(2):hi2(2), 2))
      do j = lo(2), hi(2)
        do i = lo(1), hi(1)
          a2(i, j) = sin(0.31d0 * i) * cos(0.7d0 * j) + 1d-3 * i * j
        end do
      end do
    end if
    call nbfft_nd_forward(plan, a2, ah(:,:,threads))
    call nbfft_nd_backward(plan, ah(:,:,threads), b2(:,:,threads))
    call nbfft_nd_plan_destroy(plan)
  end subroutine

  include "fortran_expect.inc"

end program fortran_threads
