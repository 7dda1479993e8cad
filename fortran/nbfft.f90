! nbfft: the Fortran interface to nbfft (docs/fortran.md has every routine and its errors).
!
!   use mpi            ! or: use mpi_f08 -- the same calls take either communicator
!   use nbfft
!   type(nbfft_plan) :: plan
!   type(nbfft_options) :: opts
!   integer :: lo(3), hi(3)
!   call nbfft_options_create(opts)
!   call nbfft_options_set(opts, "norm", "backward")       ! the default: backward scaled by 1/N
!   call nbfft_plan_create(plan, MPI_COMM_WORLD, [nx, ny, nz], opts)
!   call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)          ! 1-based, inclusive
!   allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))        ! input: u(x, y, z)
!   call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo, hi)
!   allocate(uh(lo(1):hi(1), lo(3):hi(3), lo(2):hi(2)))       ! output: uh(x, z, y)
!   call nbfft_forward(plan, u, uh)
!
! Arrays are checked against the plan's boxes extent by extent in the order above, and for
! their element type, on every rank together (docs/fortran.md "Array shapes").
!
! Every routine takes an optional integer `status`: present, it receives the nbfft status
! (NBFFT_SUCCESS = 0) and the program goes on; absent, an error prints nbfft's message on
! standard error and stops the program (error stop). Collective routines fail on every
! rank together.

! The one handle of every split-phase operation (C's nbfft_request): a transform of a 3-D
! or an N-D plan, a transpose, a background write. In a module of its own so that nbfft
! can keep its earlier names (nbfft_nd_pending, nbfft_transpose_pending, nbfft_h5request)
! as renames of this one type.
module nbfft_request_type
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr
  implicit none
  private
  type, public :: nbfft_request
    type(c_ptr) :: p = c_null_ptr
  end type nbfft_request
end module nbfft_request_type

module nbfft
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use nbfft_request_type, only: nbfft_request, nbfft_nd_pending => nbfft_request, &
    nbfft_transpose_pending => nbfft_request, nbfft_h5request => nbfft_request
  implicit none
  private
  public :: nbfft_request, nbfft_nd_pending, nbfft_transpose_pending, nbfft_h5request

  ! mpi_f08's type(MPI_Comm), declared here so that one generic accepts both an integer
  ! communicator (use mpi) and a type(MPI_Comm) (use mpi_f08) without nbfft depending on
  ! either module: two bind(c) types with the same name and components are the same type.
  ! The name must be exactly MPI_Comm (gfortran resolves the generic by it).
  type, bind(c) :: MPI_Comm
    integer :: MPI_VAL
  end type MPI_Comm

  type, public :: nbfft_plan
    type(c_ptr) :: p = c_null_ptr
  end type nbfft_plan
  type, public :: nbfft_options
    type(c_ptr) :: p = c_null_ptr
  end type nbfft_options

  integer, parameter, public :: NBFFT_SUCCESS = 0, NBFFT_INVALID_ARGUMENT = 1, &
    NBFFT_RANKS_DISAGREE = 2, NBFFT_UNAVAILABLE = 3, NBFFT_MPI_ERROR = 4, &
    NBFFT_OUT_OF_MEMORY = 5, NBFFT_IO_ERROR = 6, NBFFT_INVALID_STATE = 7, NBFFT_INTERNAL = 8
  integer, parameter :: i8 = c_int64_t
  integer, parameter, public :: NBFFT_LAYOUT_INPUT = 0, NBFFT_LAYOUT_OUTPUT = 1

  ! One event of plan-time tuning (C's nbfft_tune_record): kind NBFFT_TUNE_START, _TRIAL or
  ! _DONE; seconds < 0 for a candidate that cannot be planned here. The strings (step,
  ! options, line) live for the callback only: read them with nbfft_tune_text.
  integer, parameter, public :: NBFFT_TUNE_START = 0, NBFFT_TUNE_TRIAL = 1, NBFFT_TUNE_DONE = 2
  type, bind(c), public :: nbfft_tune_record
    integer(c_int) :: kind, trial, planned
    real(c_double) :: seconds, elapsed, budget, eta
    integer(c_int) :: from_wisdom
    type(c_ptr) :: step, options, line
  end type nbfft_tune_record
  ! The callback nbfft_set_tune_log takes: a module procedure with bind(c).
  abstract interface
    subroutine nbfft_tune_log_fn(record, user) bind(c)
      import :: nbfft_tune_record, c_ptr
      type(nbfft_tune_record), intent(in) :: record
      type(c_ptr), value :: user
    end subroutine
  end interface
  public :: nbfft_tune_log_fn
  ! Element types the specifics take: real(c_double), complex(c_double_complex), real(c_float),
  ! complex(c_float_complex).
  integer, parameter :: T_R8 = 1, T_C16 = 2, T_R4 = 3, T_C8 = 4

  public :: nbfft_options_create, nbfft_options_destroy, nbfft_options_set, nbfft_options_get, nbfft_options_parse
  public :: nbfft_options_key, nbfft_options_type, nbfft_options_scope, nbfft_options_example
  public :: nbfft_plan_option, nbfft_plan_tune_report
  public :: nbfft_set_tune_log, nbfft_tune_text
  public :: nbfft_required_thread_level
  public :: nbfft_plan_create, nbfft_plan_destroy, nbfft_plan_create_boxes
  public :: nbfft_box, nbfft_box_of, nbfft_grid, nbfft_counts
  public :: nbfft_forward, nbfft_backward, nbfft_wavenumbers
  public :: nbfft_forward_start, nbfft_backward_start, nbfft_progress, nbfft_test, nbfft_wait, nbfft_request_free
  public :: nbfft_gather, nbfft_scatter
  public :: nbfft_status_string, nbfft_last_error

  interface nbfft_plan_create
    module procedure plan_create_int, plan_create_f08
  end interface
  interface nbfft_plan_create_boxes
    module procedure plan_create_boxes_int, plan_create_boxes_f08
  end interface
  ! The _ptr forms take addresses and byte counts instead of arrays: device memory of a
  ! device=cuda plan (CUDA Fortran's c_devloc, OpenACC's host_data use_device + c_loc;
  ! docs/gpu.md), or any host array through c_loc.
  interface nbfft_forward
    module procedure forward_r2c_d, forward_c2c_d, forward_r2c_s, forward_c2c_s, forward_r2r_d, forward_r2r_s, &
                     forward_ptr
  end interface
  interface nbfft_backward
    module procedure backward_c2r_d, backward_c2c_d, backward_c2r_s, backward_c2c_s, backward_r2r_d, backward_r2r_s, &
                     backward_ptr
  end interface
  ! Split phase: as nbfft_forward / nbfft_backward, returning at once with a request that
  ! nbfft_wait finishes; the arrays must be contiguous and stay alive and untouched until then.
  interface nbfft_forward_start
    module procedure forward_start_r2c_d, forward_start_c2c_d, forward_start_r2c_s, forward_start_c2c_s, &
      forward_start_r2r_d, forward_start_r2r_s, forward_start_ptr
  end interface
  interface nbfft_backward_start
    module procedure backward_start_c2r_d, backward_start_c2c_d, backward_start_c2r_s, backward_start_c2c_s, &
      backward_start_r2r_d, backward_start_r2r_s, backward_start_ptr
  end interface
  interface nbfft_gather
    module procedure gather_r_d, gather_c_d, gather_r_s, gather_c_s
  end interface
  interface nbfft_scatter
    module procedure scatter_r_d, scatter_c_d, scatter_r_s, scatter_c_s
  end interface

  include "nbfft_h5_decl.inc"
  include "nbfft_transpose_decl.inc"
  include "nbfft_nd_decl.inc"

  ! The C API (nbfft/nbfft.h).
  interface
    integer(c_int) function c_options_parse(o, text) bind(c, name="nbfft_options_parse")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: o
      character(kind=c_char), intent(in) :: text(*)
    end function
    integer(c_int) function c_options_copy(from, o) bind(c, name="nbfft_options_copy")
      import :: c_int, c_ptr
      type(c_ptr), value :: from
      type(c_ptr), intent(out) :: o
    end function
    integer(c_int) function c_options_create(o) bind(c, name="nbfft_options_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: o
    end function
    integer(c_int) function c_options_destroy(o) bind(c, name="nbfft_options_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: o
    end function
    integer(c_int) function c_options_set(o, key, value) bind(c, name="nbfft_options_set")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: o
      character(kind=c_char), intent(in) :: key(*), value(*)
    end function
    integer(c_int) function c_options_get(o, key, buffer, size, needed) bind(c, name="nbfft_options_get")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: o
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(out) :: buffer(*)
      integer(c_size_t), value :: size
      integer(c_size_t), intent(out) :: needed
    end function
    type(c_ptr) function c_options_key(i) bind(c, name="nbfft_options_key")
      import :: c_ptr, c_int
      integer(c_int), value :: i
    end function
    integer(c_int) function c_set_tune_log(fn, user) bind(c, name="nbfft_set_tune_log")
      import :: c_int, c_funptr, c_ptr
      type(c_funptr), value :: fn
      type(c_ptr), value :: user
    end function
    type(c_ptr) function c_options_type(i) bind(c, name="nbfft_options_type")
      import :: c_ptr, c_int
      integer(c_int), value :: i
    end function
    type(c_ptr) function c_options_scope(i) bind(c, name="nbfft_options_scope")
      import :: c_ptr, c_int
      integer(c_int), value :: i
    end function
    type(c_ptr) function c_options_example(i) bind(c, name="nbfft_options_example")
      import :: c_ptr, c_int
      integer(c_int), value :: i
    end function
    integer(c_int) function c_plan_option(p, key, buffer, size, needed) bind(c, name="nbfft_plan_option")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: p
      character(kind=c_char), intent(in) :: key(*)
      character(kind=c_char), intent(out) :: buffer(*)
      integer(c_size_t), value :: size
      integer(c_size_t), intent(out) :: needed
    end function
    integer(c_int) function c_plan_tune_report(p, buffer, size, needed) bind(c, name="nbfft_plan_tune_report")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: p
      character(kind=c_char), intent(out) :: buffer(*)
      integer(c_size_t), value :: size
      integer(c_size_t), intent(out) :: needed
    end function
    integer(c_int) function c_required_thread_level(o, level) bind(c, name="nbfft_required_thread_level")
      import :: c_int, c_ptr
      type(c_ptr), value :: o
      integer(c_int), intent(out) :: level
    end function
    integer(c_int) function c_plan_create_f(comm, n, o, p) bind(c, name="nbfft_plan_create_f")
      import :: c_int, c_ptr, c_int64_t
      integer(c_int), value :: comm
      integer(c_int64_t), intent(in) :: n(3)
      type(c_ptr), value :: o
      type(c_ptr), intent(out) :: p
    end function
    integer(c_int) function c_plan_create_boxes_f(comm, n, ilo, in_, ior, olo, on, oor, o, p) &
        bind(c, name="nbfft_plan_create_boxes_f")
      import :: c_int, c_ptr, c_int64_t
      integer(c_int), value :: comm
      integer(c_int64_t), intent(in) :: n(3)
      type(c_ptr), value :: ilo, in_, ior, olo, on, oor, o
      type(c_ptr), intent(out) :: p
    end function
    integer(c_int) function c_plan_destroy(p) bind(c, name="nbfft_plan_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: p
    end function
    integer(c_int) function c_plan_box_of(p, layout, rank, lo, n, order) bind(c, name="nbfft_plan_box_of")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int), value :: layout, rank
      integer(c_int64_t), intent(out) :: lo(3), n(3)
      integer(c_int), intent(out) :: order(3)
    end function
    integer(c_int) function c_plan_box(p, layout, lo, n, order) bind(c, name="nbfft_plan_box")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int), value :: layout
      integer(c_int64_t), intent(out) :: lo(3), n(3)
      integer(c_int), intent(out) :: order(3)
    end function
    integer(c_int) function c_plan_grid(p, n, m1, m2) bind(c, name="nbfft_plan_grid")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int64_t), intent(out) :: n(3)
      integer(c_int), intent(out) :: m1, m2
    end function
    integer(c_int) function c_plan_counts(p, nin, nout) bind(c, name="nbfft_plan_counts")
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int64_t), intent(out) :: nin, nout
    end function
    integer(c_int) function c_plan_bytes(p, in_b, out_b, inplace_b) bind(c, name="nbfft_plan_bytes")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_size_t), intent(out) :: in_b, out_b, inplace_b
    end function
    integer(c_int) function c_plan_agree(p, what, error) bind(c, name="nbfft_plan_agree")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: p
      character(kind=c_char), intent(in) :: what(*), error(*)
    end function
    integer(c_int) function c_plan_elements(p, cin, cout, rb) bind(c, name="nbfft_plan_elements")
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int), intent(out) :: cin, cout, rb
    end function
    integer(c_int) function c_forward(p, in, in_bytes, out, out_bytes) bind(c, name="nbfft_forward")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, in, out
      integer(c_size_t), value :: in_bytes, out_bytes
    end function
    integer(c_int) function c_backward(p, in, in_bytes, out, out_bytes) bind(c, name="nbfft_backward")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, in, out
      integer(c_size_t), value :: in_bytes, out_bytes
    end function
    integer(c_int) function c_forward_start(p, in, in_bytes, out, out_bytes, r) bind(c, name="nbfft_forward_start")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, in, out
      integer(c_size_t), value :: in_bytes, out_bytes
      type(c_ptr), intent(out) :: r
    end function
    integer(c_int) function c_backward_start(p, in, in_bytes, out, out_bytes, r) bind(c, name="nbfft_backward_start")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, in, out
      integer(c_size_t), value :: in_bytes, out_bytes
      type(c_ptr), intent(out) :: r
    end function
    integer(c_int) function c_progress(r) bind(c, name="nbfft_progress")
      import :: c_int, c_ptr
      type(c_ptr), value :: r
    end function
    integer(c_int) function c_test(r, done) bind(c, name="nbfft_test")
      import :: c_int, c_ptr
      type(c_ptr), value :: r
      integer(c_int), intent(out) :: done
    end function
    integer(c_int) function c_wait(r) bind(c, name="nbfft_wait")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: r
    end function
    integer(c_int) function c_request_free(r) bind(c, name="nbfft_request_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: r
    end function
    integer(c_int) function c_wavenumbers(p, length, kx, ky, kz) bind(c, name="nbfft_wavenumbers")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: p, length
      real(c_double), intent(out) :: kx(*), ky(*), kz(*)
    end function
    integer(c_int) function c_gather(p, layout, local, local_bytes, global, global_bytes, root) &
        bind(c, name="nbfft_gather")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, local, global
      integer(c_int), value :: layout, root
      integer(c_size_t), value :: local_bytes, global_bytes
    end function
    integer(c_int) function c_scatter(p, layout, global, global_bytes, local, local_bytes, root) &
        bind(c, name="nbfft_scatter")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p, local, global
      integer(c_int), value :: layout, root
      integer(c_size_t), value :: local_bytes, global_bytes
    end function
    type(c_ptr) function c_status_string(s) bind(c, name="nbfft_status_string")
      import :: c_ptr, c_int
      integer(c_int), value :: s
    end function
    type(c_ptr) function c_last_error() bind(c, name="nbfft_last_error")
      import :: c_ptr
    end function
    integer(c_int) function c_comm_agree_f(comm, what, error) bind(c, name="nbfft_comm_agree_f")
      import :: c_int, c_char
      integer(c_int), value :: comm
      character(kind=c_char), intent(in) :: what(*), error(*)
    end function
    subroutine c_set_last_error(message) bind(c, name="nbfft_set_last_error")
      import :: c_char
      character(kind=c_char), intent(in) :: message(*)
    end subroutine
    integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! A NUL-terminated C string as a Fortran string.
  function from_c(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! The first n characters of a buffer a C getter filled (n <= 0: "").
  function chars_of(buffer, n) result(s)
    character(kind=c_char), intent(in) :: buffer(:)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    integer :: i
    allocate(character(len=max(n, 0)) :: s)
    do i = 1, n
      s(i:i) = buffer(i)
    end do
  end function

  function to_c(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: c
    c = trim(s) // c_null_char
  end function

  ! "invalid argument", ... for a status.
  function nbfft_status_string(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s
    s = from_c(c_status_string(int(status, c_int)))
  end function

  ! The message of the last failed call on this thread.
  function nbfft_last_error() result(s)
    character(len=:), allocatable :: s
    s = from_c(c_last_error())
  end function

  ! Hands rc to the caller's status, or stops with nbfft's message when there is none.
  subroutine finish(rc, status)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(rc)
    else if (rc /= 0) then
      write (error_unit, '(a)') "nbfft: " // nbfft_last_error()
      error stop 1
    end if
  end subroutine

  ! A local error of the binding (not collective): status and nbfft_last_error(), or nbfft's
  ! message and a stop.
  subroutine finish_local(rc, msg, status)
    integer, intent(in) :: rc
    character(len=*), intent(in) :: msg
    integer, intent(out), optional :: status
    if (present(status)) then
      status = rc
      call c_set_last_error(to_c(msg))
    else
      write (error_unit, '(a)') "nbfft: " // msg
      error stop 1
    end if
  end subroutine

  ! "" when each array argument has 3 entries (one per axis x, y, z), else what is wrong
  ! with the first that has not: names holds their names, blank separated, in the order of
  ! counts (an absent optional one counts 3). Arrays are assumed-shape, so a short one is
  ! told here instead of read or written past its end.
  function not_xyz(what, names, counts) result(msg)
    character(len=*), intent(in) :: what, names
    integer, intent(in) :: counts(:)
    character(len=:), allocatable :: msg
    character(len=len(names)) :: rest
    integer :: k, cut
    msg = ""
    rest = adjustl(names)
    do k = 1, size(counts)
      cut = index(trim(rest) // " ", " ")
      if (counts(k) /= 3) then
        msg = what // ": " // rest(1:cut - 1) // " has " // ints([counts(k)]) // &
              " entries; it needs 3, one per axis (x, y, z)"
        return
      end if
      rest = adjustl(rest(cut:))
    end do
  end function

  ! The entries of an optional array argument for not_xyz: 3 when absent.
  integer function count3(a)
    integer, intent(in), optional :: a(:)
    count3 = 3
    if (present(a)) count3 = size(a)
  end function

  ! True (after reporting through finish) when any rank of the Fortran communicator comm
  ! found an error (msg, "" = none) in its arguments of a create call: every rank fails
  ! with the lowest failing rank's message before the collective create. Collective.
  logical function comm_bad(comm, what, msg, status) result(bad)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: what, msg
    integer, intent(out), optional :: status
    integer(c_int) :: rc
    character(kind=c_char, len=len(msg) + 1) :: cmsg
    cmsg = msg // c_null_char
    rc = c_comm_agree_f(int(comm, c_int), to_c(what), cmsg)
    bad = rc /= 0
    if (bad) call finish(rc, status)
  end function

  subroutine nbfft_options_create(options, status)
    type(nbfft_options), intent(out) :: options
    integer, intent(out), optional :: status
    call finish(c_options_create(options%p), status)
  end subroutine

  subroutine nbfft_options_destroy(options, status)
    type(nbfft_options), intent(inout) :: options
    integer, intent(out), optional :: status
    call finish(c_options_destroy(options%p), status)
  end subroutine

  ! Keys and values as in C (nbfft_options_set): "transport", "pairwise:4@thread", ...
  subroutine nbfft_options_set(options, key, value, status)
    type(nbfft_options), intent(in) :: options
    character(len=*), intent(in) :: key, value
    integer, intent(out), optional :: status
    call finish(c_options_set(options%p, to_c(key), to_c(value)), status)
  end subroutine

  ! Every "key=value" pair of text (blank-separated), all or nothing (C's nbfft_options_parse).
  subroutine nbfft_options_parse(options, text, status)
    type(nbfft_options), intent(in) :: options
    character(len=*), intent(in) :: text
    integer, intent(out), optional :: status
    call finish(c_options_parse(options%p, to_c(text)), status)
  end subroutine

  ! The value of one key as text nbfft_options_set accepts (C's nbfft_options_get).
  subroutine nbfft_options_get(options, key, value, status)
    type(nbfft_options), intent(in) :: options
    character(len=*), intent(in) :: key
    character(len=:), allocatable, intent(out) :: value
    integer, intent(out), optional :: status
    character(kind=c_char) :: buffer(512)
    integer(c_size_t) :: needed
    integer(c_int) :: rc
    integer :: n
    needed = 0
    rc = c_options_get(options%p, to_c(key), buffer, int(size(buffer), c_size_t), needed)
    n = 0
    if (rc == 0) n = min(int(needed) - 1, size(buffer) - 1)
    value = chars_of(buffer, n)
    call finish(rc, status)
  end subroutine

  ! The i-th key of the option table (1, 2, ...), or "" past the end: the keys
  ! nbfft_options_set and nbfft_options_get take (docs/fft.md "Options").
  function nbfft_options_key(i) result(key)
    integer, intent(in) :: i
    character(len=:), allocatable :: key
    type(c_ptr) :: p
    p = c_options_key(int(i - 1, c_int))
    key = text_at(p)
  end function

  ! The type of the i-th key (1, 2, ...): "choice", "int", "bool", "grid", "transport",
  ! "real" or "text"; "" past the end.
  function nbfft_options_type(i) result(t)
    integer, intent(in) :: i
    character(len=:), allocatable :: t
    type(c_ptr) :: p
    p = c_options_type(int(i - 1, c_int))
    t = text_at(p)
  end function

  ! The plans the i-th key (1, 2, ...) applies to: "all", "3-D" (nbfft_plan_create) or "N-D"
  ! (nbfft_nd_plan_create); "" past the end.
  function nbfft_options_scope(i) result(t)
    integer, intent(in) :: i
    character(len=:), allocatable :: t
    t = text_at(c_options_scope(int(i - 1, c_int)))
  end function

  ! A valid value of the i-th key (1, 2, ...) other than its default; "" past the end.
  function nbfft_options_example(i) result(t)
    integer, intent(in) :: i
    character(len=:), allocatable :: t
    t = text_at(c_options_example(int(i - 1, c_int)))
  end function

  ! The C string at p, or "" for a null pointer.
  function text_at(p) result(t)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: t
    if (c_associated(p)) then
      t = from_c(p)
    else
      t = ""
    end if
  end function

  ! One option of the plan as made: proc_grid resolved and, with tune, the tuner's choice.
  subroutine nbfft_plan_option(plan, key, value, status)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: key
    character(len=:), allocatable, intent(out) :: value
    integer, intent(out), optional :: status
    character(kind=c_char) :: buffer(512)
    integer(c_size_t) :: needed
    integer(c_int) :: rc
    integer :: n
    needed = 0
    rc = c_plan_option(plan%p, to_c(key), buffer, int(size(buffer), c_size_t), needed)
    n = 0
    if (rc == 0) n = min(int(needed) - 1, size(buffer) - 1)
    value = chars_of(buffer, n)
    call finish(rc, status)
  end subroutine

  ! What plan-time tuning (option tune) tried and chose, as text with newlines; "" when the
  ! plan was made as asked.
  subroutine nbfft_plan_tune_report(plan, report, status)
    type(nbfft_plan), intent(in) :: plan
    character(len=:), allocatable, intent(out) :: report
    integer, intent(out), optional :: status
    character(kind=c_char), allocatable :: buffer(:)
    character(kind=c_char) :: none(1)
    integer(c_size_t) :: needed, got
    integer(c_int) :: rc
    integer :: n
    needed = 0
    got = 0
    rc = c_plan_tune_report(plan%p, none, 0_c_size_t, needed)
    n = 0
    if (rc == 0) then
      allocate(buffer(needed))
      rc = c_plan_tune_report(plan%p, buffer, needed, got)
      if (rc == 0) n = int(min(needed, got)) - 1
    end if
    if (n > 0) then
      report = chars_of(buffer, n)
    else
      report = ""
    end if
    call finish(rc, status)
  end subroutine

  ! Installs fn (absent: none) for every later plan-time tuning's events on every rank, as C's
  ! nbfft_set_tune_log. fn must be a module procedure with bind(c) (nbfft_tune_log_fn).
  subroutine nbfft_set_tune_log(fn, status)
    procedure(nbfft_tune_log_fn), optional :: fn
    integer, intent(out), optional :: status
    if (present(fn)) then
      call finish(c_set_tune_log(c_funloc(fn), c_null_ptr), status)
    else
      call finish(c_set_tune_log(c_null_funptr, c_null_ptr), status)
    end if
  end subroutine

  ! One of a tuning record's strings (record%line, record%options, record%step) as text.
  function nbfft_tune_text(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    s = text_at(p)
  end function

  ! The MPI thread level (MPI_THREAD_SINGLE or MPI_THREAD_MULTIPLE) plans with these options need.
  subroutine nbfft_required_thread_level(options, level, status)
    type(nbfft_options), intent(in) :: options
    integer, intent(out) :: level
    integer, intent(out), optional :: status
    integer(c_int) :: l
    l = 0
    call finish(c_required_thread_level(options%p, l), status)
    level = int(l)
  end subroutine

  subroutine plan_create_int(plan, comm, n, options, status)
    type(nbfft_plan), intent(out) :: plan
    integer, intent(in) :: comm
    integer, intent(in) :: n(:)
    type(nbfft_options), intent(in), optional :: options
    integer, intent(out), optional :: status
    type(c_ptr) :: o
    o = c_null_ptr
    if (present(options)) o = options%p
    if (comm_bad(comm, "nbfft_plan_create", not_xyz("nbfft_plan_create", "n", [size(n)]), status)) return
    call finish(c_plan_create_f(int(comm, c_int), int(n, c_int64_t), o, plan%p), status)
  end subroutine

  subroutine plan_create_f08(plan, comm, n, options, status)
    type(nbfft_plan), intent(out) :: plan
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n(:)
    type(nbfft_options), intent(in), optional :: options
    integer, intent(out), optional :: status
    call plan_create_int(plan, comm%MPI_VAL, n, options, status)
  end subroutine

  ! Your own layout (docs/fft.md "Your own layout: boxes in and out"): this rank's input box
  ! in_lo..in_hi and spectrum box out_lo..out_hi, 1-based inclusive global indices along x,
  ! y, z (the spectrum's x runs to nx/2+1 for r2c), stored in the order in_order / out_order
  ! (dimensions fastest first; default [1,2,3]: u(x,y,z)). A side given no lo and hi keeps
  ! nbfft's pencil. Boxes that overlap, leave gaps or fall outside the grid fail on every
  ! rank; nbfft_box then answers these boxes.
  subroutine plan_create_boxes_int(plan, comm, n, options, status, in_lo, in_hi, out_lo, out_hi, in_order, out_order)
    type(nbfft_plan), intent(out) :: plan
    integer, intent(in) :: comm
    integer, intent(in) :: n(:)
    type(nbfft_options), intent(in), optional :: options
    integer, intent(out), optional :: status
    integer, intent(in), optional :: in_lo(:), in_hi(:), out_lo(:), out_hi(:), in_order(:), out_order(:)
    integer(c_int64_t), target :: ilo(3), icnt(3), olo(3), ocnt(3)
    integer(c_int), target :: io(3), oo(3)
    type(c_ptr) :: o, p(6)
    o = c_null_ptr
    if (present(options)) o = options%p
    if (comm_bad(comm, "nbfft_plan_create_boxes", not_xyz("nbfft_plan_create_boxes", &
                 "n in_lo in_hi out_lo out_hi in_order out_order", [size(n), count3(in_lo), count3(in_hi), &
                 count3(out_lo), count3(out_hi), count3(in_order), count3(out_order)]), status)) return
    p = c_null_ptr
    if (present(in_lo)) then
      ilo = int(in_lo - 1, c_int64_t)
      p(1) = c_loc(ilo)
    end if
    if (present(in_hi)) then
      icnt = int(in_hi, c_int64_t)
      if (present(in_lo)) icnt = int(in_hi - in_lo + 1, c_int64_t)
      p(2) = c_loc(icnt)
    end if
    if (present(in_order)) then
      io = int(in_order - 1, c_int)
      p(3) = c_loc(io)
    end if
    if (present(out_lo)) then
      olo = int(out_lo - 1, c_int64_t)
      p(4) = c_loc(olo)
    end if
    if (present(out_hi)) then
      ocnt = int(out_hi, c_int64_t)
      if (present(out_lo)) ocnt = int(out_hi - out_lo + 1, c_int64_t)
      p(5) = c_loc(ocnt)
    end if
    if (present(out_order)) then
      oo = int(out_order - 1, c_int)
      p(6) = c_loc(oo)
    end if
    call finish(c_plan_create_boxes_f(int(comm, c_int), int(n, c_int64_t), p(1), p(2), p(3), p(4), p(5), p(6), o, &
                                      plan%p), status)
  end subroutine

  subroutine plan_create_boxes_f08(plan, comm, n, options, status, in_lo, in_hi, out_lo, out_hi, in_order, out_order)
    type(nbfft_plan), intent(out) :: plan
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: n(:)
    type(nbfft_options), intent(in), optional :: options
    integer, intent(out), optional :: status
    integer, intent(in), optional :: in_lo(:), in_hi(:), out_lo(:), out_hi(:), in_order(:), out_order(:)
    call plan_create_boxes_int(plan, comm%MPI_VAL, n, options, status, in_lo, in_hi, out_lo, out_hi, in_order, &
                               out_order)
  end subroutine

  subroutine nbfft_plan_destroy(plan, status)
    type(nbfft_plan), intent(inout) :: plan
    integer, intent(out), optional :: status
    call finish(c_plan_destroy(plan%p), status)
  end subroutine

  ! This rank's box of a layout in Fortran terms: global indices lo(d)..hi(d), 1-based and
  ! inclusive, along x, y, z; order(1..3) the dimensions from fastest to slowest in memory
  ! ([1,2,3] input: u(x,y,z); [1,3,2] output: uh(x,z,y)).
  subroutine nbfft_box(plan, layout, lo, hi, order, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout
    integer, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: order(:)
    integer, intent(out), optional :: status
    call box_any(plan, "nbfft_box", layout, -1, lo, hi, order, status)
  end subroutine

  ! The same for another rank (0-based rank of the plan's communicator).
  subroutine nbfft_box_of(plan, layout, rank, lo, hi, order, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, rank
    integer, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: order(:)
    integer, intent(out), optional :: status
    call box_any(plan, "nbfft_box_of", layout, rank, lo, hi, order, status)
  end subroutine

  ! nbfft_box (rank < 0: this rank's) and nbfft_box_of.
  subroutine box_any(plan, what, layout, rank, lo, hi, order, status)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: what
    integer, intent(in) :: layout, rank
    integer, intent(out) :: lo(:), hi(:)
    integer, intent(out), optional :: order(:)
    integer, intent(out), optional :: status
    integer(c_int64_t) :: l(3), n(3)
    integer(c_int) :: o(3), rc
    character(len=:), allocatable :: msg
    l = 0; n = 0; o = 0
    lo = 0; hi = -1
    if (present(order)) order = 0
    msg = not_xyz(what, "lo hi order", [size(lo), size(hi), count3(order)])
    if (len(msg) > 0) then
      call finish_local(NBFFT_INVALID_ARGUMENT, msg, status)
      return
    end if
    if (rank < 0) then
      rc = c_plan_box(plan%p, int(layout, c_int), l, n, o)
    else
      rc = c_plan_box_of(plan%p, int(layout, c_int), int(rank, c_int), l, n, o)
    end if
    call finish(rc, status)
    lo = int(l) + 1
    hi = int(l + n)
    if (present(order)) order = int(o) + 1
  end subroutine

  ! Global grid n(3) and process grid m1 x m2.
  subroutine nbfft_grid(plan, n, m1, m2, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(out) :: n(:), m1, m2
    integer, intent(out), optional :: status
    integer(c_int64_t) :: g(3)
    integer(c_int) :: a, b
    g = 0; a = 0; b = 0
    n = 0; m1 = 0; m2 = 0
    if (size(n) /= 3) then
      call finish_local(NBFFT_INVALID_ARGUMENT, not_xyz("nbfft_grid", "n", [size(n)]), status)
      return
    end if
    call finish(c_plan_grid(plan%p, g, a, b), status)
    n = int(g); m1 = int(a); m2 = int(b)
  end subroutine

  ! Elements of this rank's input and output boxes.
  subroutine nbfft_counts(plan, in_count, out_count, status)
    type(nbfft_plan), intent(in) :: plan
    integer(c_int64_t), intent(out) :: in_count, out_count
    integer, intent(out), optional :: status
    in_count = 0; out_count = 0
    call finish(c_plan_counts(plan%p, in_count, out_count), status)
  end subroutine

  ! Wavenumbers of this rank's output box: kx(i) belongs to global x index lo(1)+i-1 of
  ! nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo, hi); numpy's fftfreq*n convention, times
  ! 2*pi/length(d) (length absent: 2*pi, integer wavenumbers).
  ! kx, ky and kz need at least hi(d) - lo(d) + 1 entries (more are left as they are); a
  ! shorter one is INVALID_ARGUMENT, never written past.
  subroutine nbfft_wavenumbers(plan, kx, ky, kz, length, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(inout) :: kx(:), ky(:), kz(:)
    real(c_double), intent(in), optional :: length(:)
    integer, intent(out), optional :: status
    real(c_double), target :: len3(3)
    integer(c_int64_t) :: l(3), n(3)
    integer(c_int) :: o(3), rc
    integer :: have(3)
    type(c_ptr) :: lp
    character(len=:), allocatable :: msg
    lp = c_null_ptr
    have = 3
    if (present(length)) have(1) = size(length)
    msg = not_xyz("nbfft_wavenumbers", "length", have(1:1))
    l = 0; n = 0; o = 0
    have = [size(kx), size(ky), size(kz)]
    ! (A call of its own: in one .and. with any(), Fortran may skip the function.)
    if (len(msg) == 0 .and. c_associated(plan%p)) rc = c_plan_box(plan%p, int(NBFFT_LAYOUT_OUTPUT, c_int), l, n, o)
    if (any(have < n)) &  ! n stays 0 where the box is unknown: the C call reports why
      msg = "nbfft_wavenumbers: kx, ky, kz have " // ints(have) // " entries; this rank's output box needs " // &
            ints(int(n)) // " (hi - lo + 1 of nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, lo, hi))"
    if (len(msg) > 0) then
      call finish_local(NBFFT_INVALID_ARGUMENT, msg, status)
      return
    end if
    if (present(length)) then
      len3 = length
      lp = c_loc(len3)
    end if
    call finish(c_wavenumbers(plan%p, lp, kx, ky, kz), status)
  end subroutine

  ! ---- Split phase and requests ------------------------------------------------------------
  ! The start: the arrays checked as for the blocking call, and contiguous (a section would be
  ! the compiler's copy, gone at return); then the transform starts and `request` holds it.
  subroutine plan_start(plan, forward, in, si, ti, ki, out, so, to, ko, request, status)
    type(nbfft_plan), intent(in) :: plan
    logical, intent(in) :: forward, ki, ko
    type(c_ptr), intent(in) :: in, out
    integer, intent(in) :: si(3), ti, so(3), to
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    integer(c_int64_t) :: ni, no
    integer :: lin, lout
    character(len=:), allocatable :: msg, what
    ni = product(int(si, c_int64_t))
    no = product(int(so, c_int64_t))
    lin = merge(NBFFT_LAYOUT_INPUT, NBFFT_LAYOUT_OUTPUT, forward)
    lout = merge(NBFFT_LAYOUT_OUTPUT, NBFFT_LAYOUT_INPUT, forward)
    what = merge("nbfft_forward_start ", "nbfft_backward_start", forward)
    what = trim(what)
    if (c_associated(plan%p)) then  ! else the C call reports the missing plan
      msg = array_error(plan, lin, trim(merge("u ", "uh", forward)), si, ti)
      if (len(msg) == 0) msg = array_error(plan, lout, trim(merge("uh", "u ", forward)), so, to)
      if (len(msg) == 0) msg = not_contiguous(ki, ko)
      if (agreed_bad(plan, what, msg, status)) return
    end if
    if (forward) then
      call finish(c_forward_start(plan%p, addr(ni, in), bytes(ni, type_bytes(ti)), addr(no, out), &
                                  bytes(no, type_bytes(to)), request%p), status)
    else
      call finish(c_backward_start(plan%p, addr(ni, in), bytes(ni, type_bytes(ti)), addr(no, out), &
                                   bytes(no, type_bytes(to)), request%p), status)
    end if
  end subroutine
  subroutine forward_start_r2c_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target :: in(:,:,:)
    complex(c_double_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_R8, is_contiguous(in), &
                    c_loc(out), shape(out), T_C16, is_contiguous(out), request, status)
  end subroutine
  subroutine forward_start_c2c_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target :: in(:,:,:)
    complex(c_double_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_C16, is_contiguous(in), &
                    c_loc(out), shape(out), T_C16, is_contiguous(out), request, status)
  end subroutine
  subroutine forward_start_r2c_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target :: in(:,:,:)
    complex(c_float_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_R4, is_contiguous(in), &
                    c_loc(out), shape(out), T_C8, is_contiguous(out), request, status)
  end subroutine
  subroutine forward_start_c2c_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target :: in(:,:,:)
    complex(c_float_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_C8, is_contiguous(in), &
                    c_loc(out), shape(out), T_C8, is_contiguous(out), request, status)
  end subroutine
  subroutine forward_start_r2r_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target :: in(:,:,:)
    real(c_double), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_R8, is_contiguous(in), &
                    c_loc(out), shape(out), T_R8, is_contiguous(out), request, status)
  end subroutine
  subroutine forward_start_r2r_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target :: in(:,:,:)
    real(c_float), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .true., c_loc(in), shape(in), T_R4, is_contiguous(in), &
                    c_loc(out), shape(out), T_R4, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_c2r_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target :: in(:,:,:)
    real(c_double), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_C16, is_contiguous(in), &
                    c_loc(out), shape(out), T_R8, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_c2c_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target :: in(:,:,:)
    complex(c_double_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_C16, is_contiguous(in), &
                    c_loc(out), shape(out), T_C16, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_c2r_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target :: in(:,:,:)
    real(c_float), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_C8, is_contiguous(in), &
                    c_loc(out), shape(out), T_R4, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_c2c_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target :: in(:,:,:)
    complex(c_float_complex), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_C8, is_contiguous(in), &
                    c_loc(out), shape(out), T_C8, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_r2r_d(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target :: in(:,:,:)
    real(c_double), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_R8, is_contiguous(in), &
                    c_loc(out), shape(out), T_R8, is_contiguous(out), request, status)
  end subroutine
  subroutine backward_start_r2r_s(plan, in, out, request, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target :: in(:,:,:)
    real(c_float), intent(inout), target :: out(:,:,:)
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call plan_start(plan, .false., c_loc(in), shape(in), T_R4, is_contiguous(in), &
                    c_loc(out), shape(out), T_R4, is_contiguous(out), request, status)
  end subroutine

  ! Requests from any start of this module (transforms of 3-D and N-D plans, transposes,
  ! background writes). nbfft_progress: a host progress pass for what is in flight (local).
  subroutine nbfft_progress(request, status)
    type(nbfft_request), intent(in) :: request
    integer, intent(out), optional :: status
    call finish(c_progress(request%p), status)
  end subroutine

  ! Progress; done = .true. once the operation has arrived (a transform still needs
  ! nbfft_wait to run its stages after the exchange). Local.
  subroutine nbfft_test(request, done, status)
    type(nbfft_request), intent(in) :: request
    logical, intent(out) :: done
    integer, intent(out), optional :: status
    integer(c_int) :: d
    d = 0
    call finish(c_test(request%p, d), status)
    done = d /= 0
  end subroutine

  ! Finishes the operation and frees the request (left null; a second wait is
  ! NBFFT_INVALID_STATE). Collective where the start says so (a backward 3-D transform, a
  ! write), else local. A wait the ranks refuse (out of step) leaves the request to wait again.
  subroutine nbfft_wait(request, status)
    type(nbfft_request), intent(inout) :: request
    integer, intent(out), optional :: status
    call finish(c_wait(request%p), status)
  end subroutine

  ! Drops a request unwaited (null: nothing): a transform or transpose is finished here as
  ! its wait would (collective where that is), a write completes this rank's part.
  subroutine nbfft_request_free(request, status)
    type(nbfft_request), intent(inout) :: request
    integer, intent(out), optional :: status
    call finish(c_request_free(request%p), status)
  end subroutine

  ! Forward: real (r2c) or complex (c2c) input u(x,y,z) to complex output uh(x,z,y), double
  ! or single precision as the plan's; the arrays' sizes are checked against the plan.
  subroutine forward_ptr(plan, in, in_bytes, out, out_bytes, status)
    type(nbfft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    integer, intent(out), optional :: status
    call finish(c_forward(plan%p, in, in_bytes, out, out_bytes), status)
  end subroutine
  subroutine backward_ptr(plan, in, in_bytes, out, out_bytes, status)
    type(nbfft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    integer, intent(out), optional :: status
    call finish(c_backward(plan%p, in, in_bytes, out, out_bytes), status)
  end subroutine
  ! Split phase by address (device arrays of a device plan): nbfft_wait finishes it.
  subroutine forward_start_ptr(plan, in, in_bytes, out, out_bytes, request, status)
    type(nbfft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call finish(c_forward_start(plan%p, in, in_bytes, out, out_bytes, request%p), status)
  end subroutine
  subroutine backward_start_ptr(plan, in, in_bytes, out, out_bytes, request, status)
    type(nbfft_plan), intent(in) :: plan
    type(c_ptr), intent(in) :: in, out
    integer(c_size_t), intent(in) :: in_bytes, out_bytes
    type(nbfft_request), intent(out) :: request
    integer, intent(out), optional :: status
    call finish(c_backward_start(plan%p, in, in_bytes, out, out_bytes, request%p), status)
  end subroutine
  subroutine forward_r2c_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target, contiguous :: in(:,:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_R8, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_C16, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 16)), status)
  end subroutine
  subroutine forward_c2c_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target, contiguous :: in(:,:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_C16, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_C16, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 16), &
            c_loc(out), bytes(size(out, kind=i8), 16)), status)
  end subroutine
  subroutine forward_r2c_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target, contiguous :: in(:,:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_R4, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_C8, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 4), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine
  subroutine forward_c2c_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target, contiguous :: in(:,:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_C8, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_C8, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine

  ! Every axis r2r (option "kinds") on real data: real u(x,y,z) <-> real uh(x,z,y).
  subroutine forward_r2r_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target, contiguous :: in(:,:,:)
    real(c_double), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_R8, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_R8, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine
  subroutine forward_r2r_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target, contiguous :: in(:,:,:)
    real(c_float), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_forward", NBFFT_LAYOUT_INPUT, "u", shape(in), T_R4, &
                   NBFFT_LAYOUT_OUTPUT, "uh", shape(out), T_R4, status)) return
    call finish(c_forward(plan%p, c_loc(in), bytes(size(in, kind=i8), 4), &
            c_loc(out), bytes(size(out, kind=i8), 4)), status)
  end subroutine
  subroutine backward_r2r_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_double), intent(in), target, contiguous :: in(:,:,:)
    real(c_double), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_R8, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_R8, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine
  subroutine backward_r2r_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    real(c_float), intent(in), target, contiguous :: in(:,:,:)
    real(c_float), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_R4, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_R4, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 4), &
            c_loc(out), bytes(size(out, kind=i8), 4)), status)
  end subroutine

  ! Backward: complex uh(x,z,y) to real (c2r) or complex u(x,y,z); uh is left untouched.
  subroutine backward_c2r_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target, contiguous :: in(:,:,:)
    real(c_double), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_C16, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_R8, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 16), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine
  subroutine backward_c2c_d(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_double_complex), intent(in), target, contiguous :: in(:,:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_C16, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_C16, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 16), &
            c_loc(out), bytes(size(out, kind=i8), 16)), status)
  end subroutine
  subroutine backward_c2r_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target, contiguous :: in(:,:,:)
    real(c_float), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_C8, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_R4, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 4)), status)
  end subroutine
  subroutine backward_c2c_s(plan, in, out, status)
    type(nbfft_plan), intent(in) :: plan
    complex(c_float_complex), intent(in), target, contiguous :: in(:,:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: out(:,:,:)
    integer, intent(out), optional :: status
    if (arrays_bad(plan, "nbfft_backward", NBFFT_LAYOUT_OUTPUT, "uh", shape(in), T_C8, &
                   NBFFT_LAYOUT_INPUT, "u", shape(out), T_C8, status)) return
    call finish(c_backward(plan%p, c_loc(in), bytes(size(in, kind=i8), 8), &
            c_loc(out), bytes(size(out, kind=i8), 8)), status)
  end subroutine

  ! Whole fields on rank `root` (0-based): the global array is g(x, y, z) of the layout's
  ! elements (nx*ny*nz for input, xc*ny*nz complex for output, xc = nx/2+1 for r2c) and
  ! matters on root only (other ranks may pass a size-0 array).
  subroutine gather_r_d(plan, layout, local, global, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    real(c_double), intent(in), target, contiguous :: local(:,:,:)
    real(c_double), intent(inout), target, contiguous :: global(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_gather", layout, shape(local), shape(global), T_R8, root, status)) return
    call finish(c_gather(plan%p, int(layout, c_int), c_loc(local), bytes(size(local, kind=i8), 8), &
                         addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 8), int(root, c_int)), status)
  end subroutine
  subroutine gather_c_d(plan, layout, local, global, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    complex(c_double_complex), intent(in), target, contiguous :: local(:,:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: global(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_gather", layout, shape(local), shape(global), T_C16, root, status)) return
    call finish(c_gather(plan%p, int(layout, c_int), &
            c_loc(local), bytes(size(local, kind=i8), 16), &
                         addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 16), int(root, c_int)), status)
  end subroutine
  subroutine gather_r_s(plan, layout, local, global, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    real(c_float), intent(in), target, contiguous :: local(:,:,:)
    real(c_float), intent(inout), target, contiguous :: global(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_gather", layout, shape(local), shape(global), T_R4, root, status)) return
    call finish(c_gather(plan%p, int(layout, c_int), c_loc(local), bytes(size(local, kind=i8), 4), &
                         addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 4), int(root, c_int)), status)
  end subroutine
  subroutine gather_c_s(plan, layout, local, global, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    complex(c_float_complex), intent(in), target, contiguous :: local(:,:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: global(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_gather", layout, shape(local), shape(global), T_C8, root, status)) return
    call finish(c_gather(plan%p, int(layout, c_int), c_loc(local), bytes(size(local, kind=i8), 8), &
                         addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 8), int(root, c_int)), status)
  end subroutine

  subroutine scatter_r_d(plan, layout, global, local, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    real(c_double), intent(in), target, contiguous :: global(:,:,:)
    real(c_double), intent(inout), target, contiguous :: local(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_scatter", layout, shape(local), shape(global), T_R8, root, status)) return
    call finish(c_scatter(plan%p, int(layout, c_int), &
            addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 8), &
                          c_loc(local), bytes(size(local, kind=i8), 8), int(root, c_int)), status)
  end subroutine
  subroutine scatter_c_d(plan, layout, global, local, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    complex(c_double_complex), intent(in), target, contiguous :: global(:,:,:)
    complex(c_double_complex), intent(inout), target, contiguous :: local(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_scatter", layout, shape(local), shape(global), T_C16, root, status)) return
    call finish(c_scatter(plan%p, int(layout, c_int), &
            addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 16), &
                          c_loc(local), bytes(size(local, kind=i8), 16), int(root, c_int)), status)
  end subroutine
  subroutine scatter_r_s(plan, layout, global, local, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    real(c_float), intent(in), target, contiguous :: global(:,:,:)
    real(c_float), intent(inout), target, contiguous :: local(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_scatter", layout, shape(local), shape(global), T_R4, root, status)) return
    call finish(c_scatter(plan%p, int(layout, c_int), &
            addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 4), &
                          c_loc(local), bytes(size(local, kind=i8), 4), int(root, c_int)), status)
  end subroutine
  subroutine scatter_c_s(plan, layout, global, local, root, status)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, root
    complex(c_float_complex), intent(in), target, contiguous :: global(:,:,:)
    complex(c_float_complex), intent(inout), target, contiguous :: local(:,:,:)
    integer, intent(out), optional :: status
    if (field_bad(plan, "nbfft_scatter", layout, shape(local), shape(global), T_C8, root, status)) return
    call finish(c_scatter(plan%p, int(layout, c_int), &
            addr(size(global, kind=i8), c_loc(global)), bytes(size(global, kind=i8), 8), &
                          c_loc(local), bytes(size(local, kind=i8), 8), int(root, c_int)), status)
  end subroutine

  ! ---- shape and kind checks (docs/fortran.md "Array shapes") ----
  ! The Fortran module sees what C cannot: each array's extents and element type. A spectrum
  ! declared uh(x,y,z) has the right size but the wrong order and would transform silently
  ! wrong, so every extent is checked against the plan's box in memory order, and the
  ! element type against the plan's, on every rank together (nbfft_plan_agree).

  ! True (after reporting through finish) when the pair (a, b) does not fit the plan on
  ! some rank; every rank then fails with the lowest failing rank's message.
  logical function arrays_bad(plan, what, la, na, sa, ta, lb, nb, sb, tb, status) result(bad)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: what, na, nb
    integer, intent(in) :: la, lb, sa(3), sb(3), ta, tb
    integer, intent(out), optional :: status
    character(len=:), allocatable :: msg
    bad = .false.
    if (.not. c_associated(plan%p)) return  ! the C call reports the missing plan
    msg = array_error(plan, la, na, sa, ta)
    if (len(msg) == 0) msg = array_error(plan, lb, nb, sb, tb)
    bad = agreed_bad(plan, what, msg, status)
  end function

  ! gather/scatter: `local` against the layout's box, `global` g(x, y, z) on the root.
  logical function field_bad(plan, what, layout, sl, sg, t, root, status) result(bad)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: what
    integer, intent(in) :: layout, sl(3), sg(3), t, root
    integer, intent(out), optional :: status
    character(len=:), allocatable :: msg
    integer :: want(3)
    bad = .false.
    if (.not. c_associated(plan%p)) return
    msg = array_error(plan, layout, "local", sl, t)
    if (len(msg) == 0 .and. (layout == NBFFT_LAYOUT_INPUT .or. layout == NBFFT_LAYOUT_OUTPUT)) then
      if (is_root(plan, root)) then
        want = global_extents(plan, layout)
        if (want(1) >= 0 .and. any(sg /= want)) &
          msg = "expected global(" // ints(want) // ") [x, y, z] on the root, got (" // ints(sg) // ")"
      end if
    end if
    bad = agreed_bad(plan, what, msg, status)
  end function

  logical function agreed_bad(plan, what, msg, status) result(bad)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: what, msg
    integer, intent(out), optional :: status
    integer(c_int) :: rc
    character(kind=c_char, len=len(msg) + 1) :: cmsg
    cmsg = msg // c_null_char  ! to_c would trim a message's trailing blanks; there are none
    rc = c_plan_agree(plan%p, to_c(what), cmsg)
    bad = rc /= 0
    if (bad) call finish(rc, status)
  end function

  ! "" or what is wrong with array `name` of extents s and element type t for a layout.
  function array_error(plan, layout, name, s, t) result(msg)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout, s(3), t
    character(len=*), intent(in) :: name
    character(len=:), allocatable :: msg
    integer(c_int64_t) :: l(3), n(3)
    integer(c_int) :: o(3)
    integer :: want(3), have
    character(len=*), parameter :: axis = "xyz"
    msg = ""
    l = 0; n = 0; o = 0
    if (c_plan_box(plan%p, int(layout, c_int), l, n, o) /= 0) return  ! bad layout: C reports it
    want = int(n(o + 1))
    if (any(s /= want)) then
      msg = "expected " // name // "(" // ints(want) // ") [" // axis(o(1)+1:o(1)+1) // ", " // &
            axis(o(2)+1:o(2)+1) // ", " // axis(o(3)+1:o(3)+1) // "], got (" // ints(s) // ")"
      if (same_extents(s, want)) msg = msg // ": the extents in another order; declare it in the order " // &
        "nbfft_box reports (docs/fortran.md)"
      return
    end if
    have = element_type(plan, layout)
    if (have /= 0 .and. have /= t) &
      msg = name // " is " // type_name(t) // " but the plan's " // layout_name(layout) // " is " // type_name(have)
  end function

  ! Element types of the arrays (generic specifics) and what a plan's layout holds.
  integer function element_type(plan, layout) result(t)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout
    integer(c_int) :: cin, cout, rb
    logical :: cplx
    t = 0  ! unknown: the C call reports the problem
    cin = 0; cout = 0; rb = 0
    if (c_plan_elements(plan%p, cin, cout, rb) /= 0) return
    cplx = merge(cout, cin, layout == NBFFT_LAYOUT_OUTPUT) /= 0
    if (cplx) then
      t = merge(T_C16, T_C8, rb == 8)
    else
      t = merge(T_R8, T_R4, rb == 8)
    end if
  end function

  function type_name(t) result(s)
    integer, intent(in) :: t
    character(len=:), allocatable :: s
    select case (t)
    case (T_R8); s = "real(c_double)"
    case (T_C16); s = "complex(c_double_complex)"
    case (T_R4); s = "real(c_float)"
    case default; s = "complex(c_float_complex)"
    end select
  end function

  function layout_name(layout) result(s)
    integer, intent(in) :: layout
    character(len=:), allocatable :: s
    s = merge("input ", "output", layout == NBFFT_LAYOUT_INPUT)
    s = trim(s)
  end function

  ! "33, 64, 16"
  function ints(v) result(s)
    integer, intent(in) :: v(:)
    character(len=:), allocatable :: s
    character(len=24) :: b
    integer :: k
    s = ""
    do k = 1, size(v)
      write (b, '(i0)') v(k)
      s = s // trim(b)
      if (k < size(v)) s = s // ", "
    end do
  end function

  logical function same_extents(a, b)
    integer, intent(in) :: a(3), b(3)
    integer :: k
    same_extents = .true.
    do k = 1, 3
      if (count(a == a(k)) /= count(b == a(k))) same_extents = .false.
    end do
  end function

  ! Whether this rank may be `root`: nbfft has no rank query, so a rank whose two boxes are
  ! root's is taken for it (only ranks without points can share boxes).
  logical function is_root(plan, root)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: root
    integer(c_int64_t) :: l1(3), n1(3), l2(3), n2(3)
    integer(c_int) :: o(3)
    integer :: k
    is_root = .false.
    do k = 0, 1
      l1 = 0; n1 = 0; l2 = 0; n2 = 0
      if (c_plan_box(plan%p, int(k, c_int), l1, n1, o) /= 0) return
      if (c_plan_box_of(plan%p, int(k, c_int), int(root, c_int), l2, n2, o) /= 0) return  ! bad root: C reports
      if (any(l1 /= l2) .or. any(n1 /= n2)) return
    end do
    is_root = .true.
  end function

  ! The global array's extents (x, y, z) of a layout: the grid, x = nx/2+1 for r2c output
  ! (the largest x any rank's output box reaches); -1 when it cannot be told.
  function global_extents(plan, layout) result(e)
    type(nbfft_plan), intent(in) :: plan
    integer, intent(in) :: layout
    integer :: e(3)
    integer(c_int64_t) :: g(3), l(3), n(3)
    integer(c_int) :: m1, m2, o(3)
    integer :: r
    e = -1
    g = 0; m1 = 0; m2 = 0
    if (c_plan_grid(plan%p, g, m1, m2) /= 0) return
    e = int(g)
    if (layout /= NBFFT_LAYOUT_OUTPUT .and. layout /= NBFFT_LAYOUT_INPUT) return
    ! The boxes tile the layout's array: the output's x (nx/2+1 for r2c), and every axis of
    ! the input (a padded plan's physical grid, larger than n).
    if (layout == NBFFT_LAYOUT_OUTPUT) e(1) = 0
    if (layout == NBFFT_LAYOUT_INPUT) e = 0
    do r = 0, int(m1) * int(m2) - 1
      l = 0; n = 0
      if (c_plan_box_of(plan%p, int(layout, c_int), int(r, c_int), l, n, o) /= 0) then
        e = -1
        return
      end if
      if (layout == NBFFT_LAYOUT_INPUT) e = max(e, int(l + n))
      if (layout == NBFFT_LAYOUT_OUTPUT .and. n(1) > 0) e(1) = max(e(1), int(l(1) + n(1)))
    end do
  end function

  include "nbfft_h5_body.inc"
  include "nbfft_transpose_body.inc"
  include "nbfft_nd_body.inc"

  pure function bytes(count, each) result(b)
    integer(c_int64_t), intent(in) :: count
    integer, intent(in) :: each
    integer(c_size_t) :: b
    b = int(count, c_size_t) * int(each, c_size_t)
  end function

  ! A size-0 array has no meaningful address: hand C a NULL pointer for it.
  function addr(count, p) result(q)
    integer(c_int64_t), intent(in) :: count
    type(c_ptr), intent(in) :: p
    type(c_ptr) :: q
    q = p
    if (count == 0) q = c_null_ptr
  end function
end module nbfft
