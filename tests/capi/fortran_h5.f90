! Fields to disk and back from Fortran (use mpi_f08: type(MPI_Comm) communicators): u(x,y,z)
! and its spectrum uh(x,z,y) written at P ranks, read back bit for bit at every k <= P
! ranks with nbfft's grid and slabs; planes and subsamples of both read back there into
! arrays of sentinels that must change at exactly their points; the queries; arrays of the
! wrong order or kind, a bad axis and a closed file fail on every rank. The file it leaves (argument 1) is checked in natural
! order by test_capi_h5 --check (capi.fortran_h5_file). Stops non-zero on any failure.
program fortran_h5
  use mpi_f08
  use nbfft
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: n(3) = [8, 6, 5]
  type(MPI_Comm) :: sub
  type(nbfft_h5file) :: f, none
  type(nbfft_h5request) :: req
  logical :: finished
  real(c_double) :: lengths(3)
  type(nbfft_plan) :: plan
  real(c_double), allocatable :: u(:,:,:)
  real(c_float), allocatable :: u4(:,:,:)
  complex(c_double_complex), allocatable :: uh(:,:,:)
  character(len=256) :: path
  integer :: rank, nranks, k, st, failures, total, g
  ! Below every value written: a point that no read has set.
  real(c_double), parameter :: SENT = -1d0
  real(c_double) :: t

  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call get_command_argument(1, path)
  if (len_trim(path) == 0) path = "fortran_h5.h5"

  if (.not. nbfft_h5_available()) then
    call nbfft_h5_open(f, MPI_COMM_WORLD, trim(path), NBFFT_H5_MODE_CREATE, status=st)
    call expect(st == NBFFT_UNAVAILABLE, "a build without HDF5 answers NBFFT_UNAVAILABLE")
    call done()
  end if

  ! Written at every rank of the world.
  call nbfft_plan_create(plan, MPI_COMM_WORLD, n)
  call fill_input(plan, u, 0d0)
  call fill_output(plan, uh)
  call nbfft_h5_open(f, MPI_COMM_WORLD, trim(path), NBFFT_H5_MODE_CREATE, &
                     "alignment=4096 align_threshold=512 box_lengths=1,2,3")
  call nbfft_h5_box_lengths(f, lengths)
  call expect(all(lengths == [1d0, 2d0, 3d0]), "box lengths as opened")
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 0, 0d0, u)
  call nbfft_h5_write(f, plan, NBFFT_SPACE_SPECTRAL, "uh", 0, 0d0, uh)
  ! Quick looks (checked by the serial reader, test_capi_h5 --check): the plane z = 3
  ! (1-based), every other point.
  call nbfft_h5_write_plane(f, plan, NBFFT_SPACE_PHYSICAL, "pz", 0, 0d0, NBFFT_AXIS_Z, 3, u)
  call nbfft_h5_write_subsampled(f, plan, NBFFT_SPACE_PHYSICAL, "sub", 0, 0d0, [2, 2, 2], u)
  ! ... and of the spectrum (read back by check_file): the plane ky = 2, every (2, 3, 1)-th.
  call nbfft_h5_write_plane(f, plan, NBFFT_SPACE_SPECTRAL, "pyh", 0, 0d0, NBFFT_AXIS_Y, 2, uh)
  call nbfft_h5_write_subsampled(f, plan, NBFFT_SPACE_SPECTRAL, "subh", 0, 0d0, [2, 3, 1], uh)
  call nbfft_h5_write_plane(f, plan, NBFFT_SPACE_PHYSICAL, "pz", 1, 0d0, NBFFT_AXIS_Z, n(3) + 1, u, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "a plane past the grid")
  ! In the background: lent (u unchanged until the wait), then copied (u free at once:
  ! changed before the wait, the file gets the values at the start).
  call nbfft_h5_write_start(f, plan, NBFFT_SPACE_PHYSICAL, "ub", 0, 0.5d0, u, req, borrow=.true.)
  call nbfft_h5_test(req, finished)
  call nbfft_h5_wait(req)
  call nbfft_h5_wait(req, status=st)
  call expect(st == NBFFT_INVALID_STATE, "a request waited for twice")
  call nbfft_h5_write_start(f, plan, NBFFT_SPACE_PHYSICAL, "ub", 1, 0.75d0, u, req)
  u = -1
  call nbfft_h5_wait(req)
  call nbfft_h5_write_start(f, plan, NBFFT_SPACE_PHYSICAL, "ub", 1, 1d0, u, req, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "a background step written twice")
  call expect(index(nbfft_last_error(), "already holds") > 0, "a background step twice: " // nbfft_last_error())
  call fill_input(plan, u, 1000d0)
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 10, 2.5d0, u)
  ! Wrong arrays: the spectrum declared uh(x,y,z), single precision, a space that is none.
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 11, 3d0, u(:, :, lbound(u, 3):ubound(u, 3) - merge(1, 0, &
                      rank == nranks - 1 .and. ubound(u, 3) >= lbound(u, 3))), status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "one rank's short array fails every rank")
  call expect(index(nbfft_last_error(), "expected data(") > 0, "the message names the expected extents")
  allocate(u4(lbound(u, 1):ubound(u, 1), lbound(u, 2):ubound(u, 2), lbound(u, 3):ubound(u, 3)))
  u4 = 0
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 11, 3d0, u4, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "a single-precision array to a double plan")
  call expect(index(nbfft_last_error(), "real(c_float)") > 0, "the message names the kind: " // nbfft_last_error())
  call nbfft_h5_write(f, plan, 7, "u", 11, 3d0, u, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "a space that is none")
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 10, 3d0, u, status=st)
  call expect(st == NBFFT_INVALID_ARGUMENT, "a step written twice")
  call expect(index(nbfft_last_error(), "already holds") > 0, "a step written twice: " // nbfft_last_error())
  call nbfft_h5_close(f)
  call background_rules(plan, trim(path) // ".order.h5")
  call nbfft_h5_write(f, plan, NBFFT_SPACE_PHYSICAL, "u", 12, 3d0, u, status=st)
  call expect(st == NBFFT_INVALID_STATE, "a closed file")
  call nbfft_h5_time(none, "u", 0, t, status=st)
  call expect(st == NBFFT_INVALID_STATE, "a file never opened")
  call nbfft_plan_destroy(plan)

  ! Read back at the first k ranks for every k, nbfft's grid and slabs along y.
  do k = 1, nranks
    call MPI_Comm_split(MPI_COMM_WORLD, merge(0, MPI_UNDEFINED, rank < k), rank, sub)
    if (rank < k) then
      do g = 1, 2
        if (g == 1) then
          call nbfft_plan_create(plan, sub, n)
        else
          call nbfft_plan_create(plan, sub, n, slabs(k))
        end if
        call check_file(plan)
        call nbfft_plan_destroy(plan)
      end do
      call MPI_Comm_free(sub)
    end if
  end do
  call done()

contains

  ! The background writes' rules (nbfft/nbfft_h5.h): an array section borrowed is refused on
  ! every rank (the compiler's copy would be gone before the wait), copied it is written
  ! whole; the ranks wait in different orders. Both read back bit for bit.
  subroutine background_rules(plan, file_path)
    type(nbfft_plan), intent(in) :: plan
    character(len=*), intent(in) :: file_path
    type(nbfft_h5file) :: h
    type(nbfft_h5request) :: r1, r2
    real(c_double), allocatable :: v(:,:,:), big(:,:,:,:), back(:,:,:)
    integer :: unit
    call fill_input(plan, v, 500d0)
    allocate(big(lbound(v, 1):ubound(v, 1), 2, lbound(v, 2):ubound(v, 2), lbound(v, 3):ubound(v, 3)))
    big = -3
    big(:, 1, :, :) = v
    call nbfft_h5_open(h, MPI_COMM_WORLD, file_path, NBFFT_H5_MODE_CREATE, "xdmf=0")
    call nbfft_h5_write_start(h, plan, NBFFT_SPACE_PHYSICAL, "v", 0, 0d0, big(:, 1, :, :), r1, borrow=.true., &
                              status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "a borrowed array section is refused on every rank")
    call expect(index(nbfft_last_error(), "not contiguous") > 0, "the message says why: " // nbfft_last_error())
    call nbfft_h5_write_start(h, plan, NBFFT_SPACE_PHYSICAL, "v", 0, 0d0, big(:, 1, :, :), r1)  ! copied now
    big = -4
    call nbfft_h5_write_start(h, plan, NBFFT_SPACE_PHYSICAL, "v", 1, 0d0, v, r2, borrow=.true.)
    if (mod(rank, 2) == 1) then  ! the ranks wait in different orders
      call nbfft_h5_wait(r2)
      call nbfft_h5_wait(r1)
    else
      call nbfft_h5_wait(r1)
      call nbfft_h5_wait(r2)
    end if
    call nbfft_h5_close(h)
    call nbfft_h5_open(h, MPI_COMM_WORLD, file_path, NBFFT_H5_MODE_READ)
    allocate(back, mold=v)
    back = 0
    call nbfft_h5_read(h, plan, NBFFT_SPACE_PHYSICAL, "v", 0, back)
    call expect(all(back == v), "the copied section reads back")
    back = 0
    call nbfft_h5_read(h, plan, NBFFT_SPACE_PHYSICAL, "v", 1, back)
    call expect(all(back == v), "the borrowed array reads back")
    call nbfft_h5_close(h)
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
      open(newunit=unit, file=file_path, status="old")
      close(unit, status="delete")
    end if
  end subroutine

  type(nbfft_options) function slabs(k) result(o)
    integer, intent(in) :: k
    character(len=16) :: grid
    write (grid, '(a, i0)') "1x", k
    call nbfft_options_create(o)
    call nbfft_options_set(o, "proc_grid", trim(grid))
  end function

  ! The spectrum's box uh(x, z, y): value(x, y, z) + i (the same, negated), exact.
  subroutine fill_output(p, a)
    type(nbfft_plan), intent(in) :: p
    complex(c_double_complex), allocatable, intent(inout) :: a(:,:,:)
    integer :: lo(3), hi(3), x, y, z
    call nbfft_box(p, NBFFT_LAYOUT_OUTPUT, lo, hi)
    if (allocated(a)) deallocate(a)
    allocate(a(lo(1):hi(1), lo(3):hi(3), lo(2):hi(2)))
    do y = lo(2), hi(2)
      do z = lo(3), hi(3)
        do x = lo(1), hi(1)
          a(x, z, y) = cmplx((x - 1) + 16d0 * (y - 1) + 256d0 * (z - 1), &
                             -((x - 1) + 16d0 * (y - 1) + 256d0 * (z - 1)), c_double_complex)
        end do
      end do
    end do
  end subroutine

  ! value(x, y, z) = x + 16 y + 256 z (0-based global indices) + shift: exact in binary.
  subroutine fill_input(p, a, shift)
    type(nbfft_plan), intent(in) :: p
    real(c_double), allocatable, intent(inout) :: a(:,:,:)
    real(c_double), intent(in) :: shift
    integer :: lo(3), hi(3), x, y, z
    call nbfft_box(p, NBFFT_LAYOUT_INPUT, lo, hi)
    if (allocated(a)) deallocate(a)
    allocate(a(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    do z = lo(3), hi(3)
      do y = lo(2), hi(2)
        do x = lo(1), hi(1)
          a(x, y, z) = (x - 1) + 16d0 * (y - 1) + 256d0 * (z - 1) + shift
        end do
      end do
    end do
  end subroutine

  subroutine check_file(p)
    type(nbfft_plan), intent(in) :: p
    type(nbfft_h5file) :: r
    real(c_double), allocatable :: want(:,:,:), got(:,:,:)
    complex(c_double_complex), allocatable :: sh(:,:,:), sh_read(:,:,:)
    real(c_float), allocatable :: g4(:,:,:)
    character(len=:), allocatable :: names(:)
    integer, allocatable :: steps(:)
    call nbfft_h5_open(r, sub, trim(path), NBFFT_H5_MODE_READ)
    call nbfft_h5_fields(r, names)
    call expect(size(names) == 7, "seven fields")
    if (size(names) == 7) call expect(names(1) == "pyh" .and. names(2) == "pz" .and. names(3) == "sub" .and. &
                                      names(4) == "subh" .and. names(5) == "u" .and. names(6) == "ub" .and. &
                                      names(7) == "uh", "fields pyh, pz, sub, subh, u, ub, uh")
    call nbfft_h5_box_lengths(r, lengths)
    call expect(all(lengths == [1d0, 2d0, 3d0]), "box lengths read back")
    call nbfft_h5_steps(r, "u", steps)
    call expect(size(steps) == 2, "two steps of u")
    if (size(steps) == 2) call expect(steps(1) == 0 .and. steps(2) == 10, "steps 0, 10")
    call nbfft_h5_time(r, "u", 10, t)
    call expect(t == 2.5d0, "time of u/10")
    call fill_input(p, want, 1000d0)
    allocate(got, mold=want)
    got = -1
    call nbfft_h5_read(r, p, NBFFT_SPACE_PHYSICAL, "u", 10, got)
    call expect(all(got == want), "u/10 read back bit for bit")
    call fill_input(p, want, 0d0)
    got = -1
    call nbfft_h5_read(r, p, NBFFT_SPACE_PHYSICAL, "ub", 0, got)
    call expect(all(got == want), "ub/0 (background, lent) read back bit for bit")
    got = -1
    call nbfft_h5_read(r, p, NBFFT_SPACE_PHYSICAL, "ub", 1, got)
    call expect(all(got == want), "ub/1 (background, copied at the start) read back bit for bit")
    call nbfft_h5_time(r, "ub", 1, t)
    call expect(t == 0.75d0, "time of ub/1")
    call fill_output(p, sh)
    allocate(sh_read, mold=sh)
    sh_read = 0
    call nbfft_h5_read(r, p, NBFFT_SPACE_SPECTRAL, "uh", 0, sh_read)
    call expect(all(sh_read == sh), "uh/0 read back bit for bit")
    ! Reading wrong: the spectrum's extents in another order, a missing step.
    call nbfft_h5_read(r, p, NBFFT_SPACE_SPECTRAL, "uh", 0, got, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "a real array for the spectrum")
    call nbfft_h5_read(r, p, NBFFT_SPACE_PHYSICAL, "u", 3, got, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "a missing step")
    call expect(index(nbfft_last_error(), "its steps: 0, 10") > 0, "a missing step names the steps")

    ! Planes and subsamples read back into arrays of sentinels: exactly their points change,
    ! to the values written (the cut per declared axis: u(x, y, z), uh(x, z, y)).
    call fill_input(p, want, 0d0)
    got = SENT
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_PHYSICAL, "pz", 0, NBFFT_AXIS_Z, 3, got)
    call expect(all(merge(got == want, got == SENT, cut_mask(lbound(got), ubound(got), [1, 1, 3], [1, 1, 0]))), &
                "pz/0 read back: exactly the plane z = 3 set")
    got = SENT
    call nbfft_h5_read_subsampled(r, p, NBFFT_SPACE_PHYSICAL, "sub", 0, [2, 2, 2], got)
    call expect(all(merge(got == want, got == SENT, cut_mask(lbound(got), ubound(got), [1, 1, 1], [2, 2, 2]))), &
                "sub/0 read back: exactly every other point set")
    sh_read = SENT
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_SPECTRAL, "pyh", 0, NBFFT_AXIS_Y, 2, sh_read)
    call expect(all(merge(sh_read == sh, sh_read == SENT, &
                          cut_mask(lbound(sh), ubound(sh), [1, 1, 2], [1, 1, 0]))), &
                "pyh/0 read back: exactly the plane ky = 2 set")
    sh_read = SENT
    call nbfft_h5_read_subsampled(r, p, NBFFT_SPACE_SPECTRAL, "subh", 0, [2, 3, 1], sh_read)
    call expect(all(merge(sh_read == sh, sh_read == SENT, &
                          cut_mask(lbound(sh), ubound(sh), [1, 1, 1], [2, 1, 3]))), &
                "subh/0 read back: exactly every (2, 3, 1)-th point set")
    ! Reading them wrong, on every rank: the physical array for the spectrum, single
    ! precision, one rank's short array, one rank's bad axis, another plane than the
    ! file's; the array left as it was.
    got = SENT
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_SPECTRAL, "pyh", 0, NBFFT_AXIS_Y, 2, got, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "the physical array for a spectral plane")
    call expect(index(nbfft_last_error(), "[x, z, y]") > 0, "the message names the order: " // nbfft_last_error())
    allocate(g4(lbound(got, 1):ubound(got, 1), lbound(got, 2):ubound(got, 2), lbound(got, 3):ubound(got, 3)))
    g4 = 0
    call nbfft_h5_read_subsampled(r, p, NBFFT_SPACE_PHYSICAL, "sub", 0, [2, 2, 2], g4, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "a single-precision array for a double plan")
    call expect(index(nbfft_last_error(), "real(c_float)") > 0, "the message names the kind: " // nbfft_last_error())
    call nbfft_h5_read_subsampled(r, p, NBFFT_SPACE_PHYSICAL, "sub", 0, [2, 2, 2], &
                                  got(:, :, lbound(got, 3):ubound(got, 3) - merge(1, 0, rank == k - 1 .and. &
                                  ubound(got, 3) >= lbound(got, 3))), status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "one rank's short array fails every rank")
    call expect(index(nbfft_last_error(), "expected data(") > 0, "the message names the extents: " // nbfft_last_error())
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_PHYSICAL, "pz", 0, merge(7, NBFFT_AXIS_Z, rank == 0), 3, got, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "one rank's bad axis fails every rank")
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_PHYSICAL, "pz", 0, NBFFT_AXIS_Z, 4, got, status=st)
    call expect(st == NBFFT_INVALID_ARGUMENT, "another plane than the file's")
    call expect(index(nbfft_last_error(), "is the plane z = 2") > 0, "another plane: " // nbfft_last_error())
    call expect(all(got == SENT), "a failed read changed the array")
    call nbfft_h5_close(r)
    call nbfft_h5_read_plane(r, p, NBFFT_SPACE_PHYSICAL, "pz", 0, NBFFT_AXIS_Z, 3, got, status=st)
    call expect(st == NBFFT_INVALID_STATE, "a plane read from a closed file")
  end subroutine

  ! The points of a cut of the box lo:hi (1-based global indices per declared axis): from
  ! `first` every step-th; step 0: `first` alone.
  function cut_mask(lo, hi, first, step) result(m)
    integer, intent(in) :: lo(3), hi(3), first(3), step(3)
    logical, allocatable :: m(:,:,:)
    integer :: i(3), a, b, c
    allocate(m(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
    do c = lo(3), hi(3)
      do b = lo(2), hi(2)
        do a = lo(1), hi(1)
          i = [a, b, c]
          m(a, b, c) = all(merge(i == first, i >= first .and. mod(i - first, max(step, 1)) == 0, step == 0))
        end do
      end do
    end do
  end function

  include "fortran_expect.inc"

  subroutine done()
    call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) write (*, '(a, i0, a, i0, a)') "fortran_h5 at ", nranks, " ranks: ", total, " failures"
    call MPI_Finalize()
    if (total /= 0) error stop 1
    stop
  end subroutine
end program fortran_h5
