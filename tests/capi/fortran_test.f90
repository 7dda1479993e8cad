! The Fortran module with `use mpi` (integer communicators; the examples use mpi_f08):
! 1-based boxes against nbfft_box_of, a forward/backward round trip, gather/scatter, and
! the optional status argument. Stops with a non-zero code on any failure.
! The tuner's log callback must be a bind(c) module procedure: it counts what it sees.
module fortran_test_log
  use, intrinsic :: iso_c_binding
  use nbfft
  implicit none
  integer :: starts = 0, trials = 0, dones = 0, bad = 0
contains
  subroutine on_tune(record, user) bind(c)
    type(nbfft_tune_record), intent(in) :: record
    type(c_ptr), value :: user
    character(len=:), allocatable :: line
    if (c_associated(user)) bad = bad + 1
    line = nbfft_tune_text(record%line)
    if (index(line, "nbfft tune: ") /= 1) bad = bad + 1
    select case (record%kind)
    case (NBFFT_TUNE_START)
      starts = starts + 1
    case (NBFFT_TUNE_TRIAL)
      trials = trials + 1
      if (record%trial /= trials .or. record%eta < 0) bad = bad + 1
      if (index(nbfft_tune_text(record%options), "proc_grid=") /= 1) bad = bad + 1
    case (NBFFT_TUNE_DONE)
      dones = dones + 1
    end select
  end subroutine
end module fortran_test_log

program fortran_test
  use mpi
  use nbfft
  use fortran_test_log
  implicit none
  integer, parameter :: dp = kind(1d0)
  type(nbfft_plan) :: plan, none, tuned
  type(nbfft_options) :: opts, probe, topts
  character(len=:), allocatable :: key, value, again, report
  integer :: ierr, rank, size, lo(3), hi(3), lo2(3), hi2(3), order(3), st, failures, total, i, j, l
  integer :: tlo(3), thi(3), tlo2(3), thi2(3)
  real(dp), allocatable :: u(:,:,:), v(:,:,:), g(:,:,:), tu(:,:,:)
  complex(dp), allocatable :: uh(:,:,:), tuh(:,:,:), gh(:,:,:), tgh(:,:,:)

  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_options_set(opts, "norm", "backward")
  call nbfft_options_set(opts, "precision", "quad", status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "bad option value gives NBFFT_INVALID_ARGUMENT")
  call expect(len(nbfft_last_error()) > 0, "the last error has a message")
  ! Every key of the option table reads back what is set (the same table as C's).
  call nbfft_options_create(probe)
  i = 1
  do
    key = nbfft_options_key(i)
    if (len(key) == 0) exit
    call nbfft_options_get(probe, key, value)
    call nbfft_options_set(probe, key, value)
    call nbfft_options_get(probe, key, again)
    ! (a text row, tune_wisdom's path, may be empty)
    report = nbfft_options_type(i)
    call expect(value == again .and. (len(value) > 0 .or. report == "text"), &
                "option " // key // " round trip: " // value // " / " // again)
    i = i + 1
  end do
  call expect(i > 16, "the option table lists every key")
  call nbfft_options_set(probe, "fields_in_flight", "3")
  call nbfft_options_get(probe, "fields_in_flight", value)
  call expect(value == "3", "fields_in_flight set through Fortran reads back 3")
  call nbfft_options_get(probe, "no_such_key", value, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT .and. len(value) == 0, "unknown key in nbfft_options_get")
  call nbfft_options_destroy(probe)
  call nbfft_box(none, NBFFT_LAYOUT_INPUT, lo, hi, status=st)
  call expect(st == NBFFT_INVALID_STATE, "a plan never created gives NBFFT_INVALID_STATE")
  call expect(nbfft_status_string(NBFFT_RANKS_DISAGREE) == "ranks disagree", "status string")

  call nbfft_plan_create(plan, MPI_COMM_WORLD, [9, 7, 5], opts)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi, order)
  call nbfft_box_of(plan, NBFFT_LAYOUT_INPUT, rank, lo2, hi2)
  call expect(all(lo == lo2) .and. all(hi == hi2), "nbfft_box == nbfft_box_of(own rank)")
  call expect(lo(1) == 1 .and. hi(1) == 9, "input x is whole and 1-based")
  call expect(all(order == [1, 2, 3]), "input order")
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i, j, l) = i + 10 * j + 100 * l
      end do
    end do
  end do
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2, order)
  call expect(all(order == [1, 3, 2]), "output order")
  call expect(lo2(3) == 1 .and. hi2(3) == 5, "output z is whole")
  allocate(uh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2)))
  call nbfft_forward(plan, u, uh)
  call nbfft_backward(plan, uh, v)
  call expect(maxval(abs(u - v)) < 1d-10, "backward(forward(u)) == u")

  ! gather to rank 0: g(x, y, z) holds u at its global indices
  if (rank == 0) then
    allocate(g(9, 7, 5))
  else
    allocate(g(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, g, 0)
  if (rank == 0) call expect(g(4, 3, 2) == 4 + 30 + 200 .and. g(9, 7, 5) == 9 + 70 + 500, "gathered values")
  v = 0
  call nbfft_scatter(plan, NBFFT_LAYOUT_INPUT, g, v, 0)
  call expect(all(u == v), "scatter(gather(u)) == u")
  ! a short global array on the root fails on every rank
  call nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, g(:, :, 1:1), 0, status=st)
  if (rank == 0) then
    call expect(st == NBFFT_INVALID_ARGUMENT, "short global array")
  else
    call expect(st == NBFFT_INVALID_ARGUMENT, "short global array on the root reaches every rank")
  end if

  ! Plan-time tuning (option tune): the tuned plan's spectrum is the untuned plan's, its
  ! choice and report are readable, and bad tuning settings fail on every rank.
  call nbfft_options_create(topts)
  call nbfft_options_set(topts, "effort", "estimate")
  call nbfft_options_set(topts, "tune", "fast", status=st)
  value = nbfft_last_error()
  call expect(st == NBFFT_INVALID_ARGUMENT .and. index(value, "'fast'") > 0, "tune=fast is refused")
  call nbfft_options_set(topts, "tune_budget", "-1", status=st)
  value = nbfft_last_error()
  call expect(st == NBFFT_INVALID_ARGUMENT .and. index(value, "tune_budget") > 0, "a negative tune_budget is refused")
  call nbfft_options_set(topts, "tune", "quick")
  call nbfft_options_set(topts, "tune_budget", "30")
  call nbfft_options_set(topts, "tune_wisdom", "/nonexistent-nbfft-dir/tune.txt")
  call nbfft_set_tune_log(on_tune)
  call nbfft_plan_create(tuned, MPI_COMM_WORLD, [9, 7, 5], topts, status=st)
  value = nbfft_last_error()
  call expect(st == NBFFT_IO_ERROR .and. index(value, "nonexistent-nbfft-dir") > 0, &
              "an unwritable tune_wisdom fails every rank: " // value)
  call expect(trials == 0, "no trial before the unwritable tune_wisdom was noticed")
  starts = 0
  dones = 0
  call nbfft_options_set(topts, "tune_wisdom", "")
  call nbfft_plan_create(tuned, MPI_COMM_WORLD, [9, 7, 5], topts)
  call nbfft_set_tune_log()
  call expect(starts == 1 .and. dones == 1 .and. trials >= 2 .and. bad == 0, "the log callback saw every trial")
  call nbfft_plan_option(tuned, "tune", value)
  call expect(value == "quick", "the tuned plan's tune option reads quick, got " // value)
  call nbfft_plan_option(tuned, "proc_grid", value)
  call expect(index(value, "x") > 1, "the chosen process grid is readable: " // value)
  call nbfft_plan_tune_report(tuned, report)
  call expect(index(report, "chosen") > 0 .or. index(report, "from wisdom") > 0, "the tuning report: " // report)
  call nbfft_plan_tune_report(plan, value)
  call expect(len(value) == 0, "an untuned plan has no tuning report")
  call nbfft_box(tuned, NBFFT_LAYOUT_INPUT, tlo, thi)
  call nbfft_box(tuned, NBFFT_LAYOUT_OUTPUT, tlo2, thi2)
  allocate(tu(tlo(1):thi(1), tlo(2):thi(2), tlo(3):thi(3)), tuh(tlo2(1):thi2(1), tlo2(3):thi2(3), tlo2(2):thi2(2)))
  do l = tlo(3), thi(3)
    do j = tlo(2), thi(2)
      do i = tlo(1), thi(1)
        tu(i, j, l) = i + 10 * j + 100 * l
      end do
    end do
  end do
  call nbfft_forward(tuned, tu, tuh)
  if (rank == 0) then
    allocate(gh(5, 7, 5), tgh(5, 7, 5))
  else
    allocate(gh(0, 0, 0), tgh(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, uh, gh, 0)
  call nbfft_gather(tuned, NBFFT_LAYOUT_OUTPUT, tuh, tgh, 0)
  if (rank == 0) call expect(maxval(abs(gh - tgh)) < 1d-9 * maxval(abs(gh)), "tuned spectrum == untuned spectrum")
  call nbfft_plan_destroy(tuned)
  call nbfft_options_destroy(topts)

  call nbfft_plan_destroy(plan)

  ! A padded plan (3/2 rule) through the option key: the input box is the physical grid
  ! floor(1.5 n) = 13 x 10 x 7, the output keeps the 9 x 7 x 5 spectrum, and a band-limited
  ! field comes back from its spectrum; gather takes the physical grid.
  call nbfft_options_set(opts, "padding", "1.5")
  call nbfft_options_set(opts, "padding", "0.5", status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "padding below 1 gives NBFFT_INVALID_ARGUMENT")
  call nbfft_options_get(opts, "padding", value)
  call expect(value == "1.5", "padding reads back 1.5: " // value)
  call nbfft_plan_create(plan, MPI_COMM_WORLD, [9, 7, 5], opts)
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call expect(lo(1) == 1 .and. hi(1) == 13, "padded input x is 1..13")
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
  call expect(hi2(3) == 5, "padded output z keeps nz = 5")
  deallocate(u, v, uh)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2)))
  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i, j, l) = 1 + cos(2 * acos(-1d0) * (i - 1) / 13) * sin(2 * acos(-1d0) * (j - 1) / 10) &
                     + cos(2 * acos(-1d0) * (l - 1) / 7)
      end do
    end do
  end do
  call nbfft_forward(plan, u, uh)
  call nbfft_backward(plan, uh, v)
  call expect(maxval(abs(u - v)) < 1d-12, "padded backward(forward(u)) == u for a band-limited u")
  deallocate(g)
  if (rank == 0) then
    allocate(g(13, 10, 7))
  else
    allocate(g(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_INPUT, v, g, 0)
  if (rank == 0) call expect(abs(g(13, 10, 7) - (1 + cos(2 * acos(-1d0) * 12 / 13) * sin(2 * acos(-1d0) * 9 / 10) &
                                                  + cos(2 * acos(-1d0) * 6 / 7))) < 1d-12, "padded gather")
  call nbfft_plan_destroy(plan)
  call nbfft_options_destroy(opts)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'fortran_test: ', size, ' ranks, ', total, ' failures'
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains
  include "fortran_expect.inc"
end program fortran_test
