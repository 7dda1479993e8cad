! capi.fortran_option_matrix: every row of the option table (nbfft_options_key, _scope,
! _example) on an N-D plan from Fortran, from one options handle (opts=): a 3-D array
! x(10) y(6) z(8) over dimensions 1 and 3 (x r2c, z), with exchanges from 2 ranks on. A row
! that applies is set to a value other than its default: the spectrum, gathered on every rank,
! is the default plan's (scaled by the norm the row sets), and backward returns the input; a
! row of the 3-D plan only is refused on every rank naming the key. Rows that change the
! element types or the arrays' order are the other Fortran tests' (precision, transform and
! kinds: fortran_nd_kinds; output_order and lean_workspace: fortran_nd_fields, fortran_nd;
! batch_axis: fortran_nd_many); the C and Python matrices run every row on every shape.
! padding (the input then lives on a finer grid) has a cell of its own: the default plan's
! spectrum through the padded backward is the input at the points both grids share, and
! forward returns that spectrum.
program fortran_option_matrix
  use mpi
  use nbfft
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer, parameter :: n(3) = [10, 6, 8]
  integer :: rank, nprocs, failures, ierr, provided, i, cells
  character(len=:), allocatable :: key, wisdom
  complex(dp), allocatable :: reference(:,:,:)

  failures = 0
  call MPI_Init_thread(MPI_THREAD_MULTIPLE, provided, ierr)  ! threads=2, the thread engine
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  wisdom = "/tmp/nbfft-fortran-matrix-" // itoa(nprocs) // ".txt"  ! one per rank count (ctest -j)
  allocate(reference(n(1) / 2 + 1, n(2), n(3)))
  call spectrum("effort", "estimate", 1.0_dp, reference, .true.)  ! the default plan's
  cells = 0
  i = 1
  do
    key = nbfft_options_key(i)
    if (key == "") exit
    select case (key)
    case ("precision", "transform", "kinds", "output_order", "lean_workspace", "batch_axis")
    case ("padding")
      call padded_cell()
      cells = cells + 1
    case default
      call cell(i, key)
      cells = cells + 1
    end select
    i = i + 1
  end do
  if (rank == 0) then
    open(unit=11, file=wisdom, status="old", iostat=ierr)
    if (ierr == 0) close(11, status="delete")
    write (*, '(a,i0,a)') "fortran_option_matrix: ", cells, " cells"
  end if
  call end_test("fortran_option_matrix")

contains

  include "fortran_nd_reference.inc"

  subroutine cell(i, key)
    integer, intent(in) :: i
    character(len=*), intent(in) :: key
    character(len=:), allocatable :: value
    complex(dp), allocatable :: got(:,:,:)
    real(dp) :: scale
    select case (key)
    case ("norm")
      value = "ortho"
    case ("proc_grid")  ! numpy order: z, y, x
      value = itoa(nprocs) // "x1x1"
    case ("backend")
      value = "fftw"
    case ("tune")
      value = "quick"
    case ("tune_budget")
      value = "0.3"
    case ("tune_wisdom")
      value = wisdom
    case ("allow_empty")
      value = "false"
    case default
      value = nbfft_options_example(i)
    end select
    scale = 1.0_dp
    if (key == "norm") scale = 1.0_dp / sqrt(real(n(1) * n(3), dp))
    allocate(got(n(1) / 2 + 1, n(2), n(3)))
    call spectrum(key, value, scale, got, nbfft_options_scope(i) /= "3-D")
    if (nbfft_options_scope(i) /= "3-D") &
      call expect(maxval(abs(got - scale * reference)) <= 1e-10_dp * maxval(abs(reference)), &
                  key // "=" // value // ": the default plan's spectrum")
  end subroutine

  ! padding=1.5,2 in the options handle, numpy's order of the axes as C's (z: 3/2, x: 2):
  ! the input grid is x(20) y(6) z(12), the spectrum the default plan's. Backward of that
  ! spectrum is the band-limited input (even n: the Nyquist mode split symmetrically), so at
  ! the points both grids share (every 2nd x, every 3rd z) it is the input; forward of it is
  ! the spectrum again.
  subroutine padded_cell()
    type(nbfft_options) :: h
    type(nbfft_nd_plan) :: p
    integer :: lo(3), hi(3), lo2(3), hi2(3), st, x, y, z
    real(dp), allocatable :: v(:,:,:)
    complex(dp), allocatable :: uh(:,:,:), again(:,:,:)
    real(dp) :: err
    call nbfft_options_create(h)
    call nbfft_options_parse(h, "effort=estimate padding=1.5,2")
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=[1, 3], opts=h, status=st)
    call nbfft_options_destroy(h)
    call expect(st == NBFFT_SUCCESS, "padding=1.5,2: the plan")
    if (st /= NBFFT_SUCCESS) return
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
    allocate(v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh(lo2(1):hi2(1), lo2(2):hi2(2), lo2(3):hi2(3)))
    allocate(again(lo2(1):hi2(1), lo2(2):hi2(2), lo2(3):hi2(3)))
    uh = reference(lo2(1):hi2(1), lo2(2):hi2(2), lo2(3):hi2(3))
    call nbfft_nd_backward(p, uh, v)
    err = 0
    do z = lo(3), hi(3)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          if (mod(x - 1, 2) == 0 .and. mod(z - 1, 3) == 0) &
            err = max(err, abs(v(x, y, z) - value_at((x - 1) / 2 + n(1) * ((y - 1) + n(2) * (2 * (z - 1) / 3)), 0)))
        end do
      end do
    end do
    call MPI_Allreduce(MPI_IN_PLACE, err, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(err <= 1e-10_dp, "padding=1.5,2: backward is the input on the shared points")
    call MPI_Allreduce(MPI_IN_PLACE, hi, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(all(hi == [20, 6, 12]), "padding=1.5,2: the input grid x(20) y(6) z(12)")
    call nbfft_nd_forward(p, v, again)
    call expect(size(again) == 0 .or. maxval(abs(again - uh)) <= 1e-10_dp * maxval(abs(reference)), &
                "padding=1.5,2: forward returns the spectrum")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  ! The spectrum of the global input through a plan of key=value (and effort=estimate; a
  ! tuner's setting with tune=quick), gathered on every rank into G; the round trip checked.
  ! applies: the plan is made, else it is refused naming the key.
  subroutine spectrum(key, value, scale, G, applies)
    character(len=*), intent(in) :: key, value
    real(dp), intent(in) :: scale
    complex(dp), intent(inout) :: G(:,:,:)
    logical, intent(in) :: applies
    type(nbfft_options) :: h
    type(nbfft_nd_plan) :: p
    integer :: lo(3), hi(3), lo2(3), hi2(3), st, x, y, z
    real(dp), allocatable :: u(:,:,:), v(:,:,:)
    complex(dp), allocatable :: uh(:,:,:)
    call nbfft_options_create(h)
    call nbfft_options_set(h, "effort", "estimate")
    if (key == "tune_budget" .or. key == "tune_fields" .or. key == "tune_wisdom" .or. key == "tune_log") &
      call nbfft_options_parse(h, "tune=quick tune_budget=0.3")
    call nbfft_options_set(h, key, value)
    call nbfft_nd_plan_create(p, MPI_COMM_WORLD, n, axes=[1, 3], opts=h, status=st)
    call nbfft_options_destroy(h)
    if (.not. applies) then
      call expect_error(st, key, key // "=" // value // " is the 3-D plan's")
      return
    end if
    call expect(st == NBFFT_SUCCESS, key // "=" // value // ": the plan")
    if (st /= NBFFT_SUCCESS) return
    call nbfft_nd_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    call nbfft_nd_box(p, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
    allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    allocate(uh(lo2(1):hi2(1), lo2(2):hi2(2), lo2(3):hi2(3)))
    do z = lo(3), hi(3)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          u(x, y, z) = value_at((x - 1) + n(1) * ((y - 1) + n(2) * (z - 1)), 0)
        end do
      end do
    end do
    call nbfft_nd_forward(p, u, uh)
    call nbfft_nd_gather(p, NBFFT_LAYOUT_OUTPUT, uh, G, NBFFT_EVERY_RANK)
    call nbfft_nd_backward(p, uh, v)
    call expect(maxval(abs(v - u)) <= 1e-10_dp, &
                key // "=" // value // ": backward returns the input")
    call nbfft_nd_plan_destroy(p)
  end subroutine

  real(dp) function value_at(i, imag)
    integer, intent(in) :: i, imag
    value_at = value(i, imag)
  end function

  function itoa(k) result(s)
    integer, intent(in) :: k
    character(len=:), allocatable :: s
    character(len=16) :: b
    write (b, '(i0)') k
    s = trim(b)
  end function

end program fortran_option_matrix
