! Bad input through the Fortran module: arrays of the wrong order, extent or kind, on every
! rank or on one rank only, plans on sub-communicators, and array arguments of the wrong
! length. Each case asserts the status, that the message names the problem (expected and
! given shape, the failing rank), and that the plan still works afterwards. Every rank takes
! part in every case, so a rank that hung would stop the test at ctest's timeout. Stops with a non-zero code on any failure.
program fortran_shapes
  use mpi
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_float, c_float_complex
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_positive_inf
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer, parameter :: nx = 8, ny = 6, nz = 10, xc = nx / 2 + 1
  type(nbfft_plan) :: plan, cplan, splan, sub, gone
  type(nbfft_options) :: opts
  integer :: ierr, rank, nprocs, last, st, failures, total, color, subcomm, subrank
  integer :: lo(3), hi(3), olo(3), ohi(3)
  real(dp), allocatable :: u(:,:,:), v(:,:,:), g(:,:,:), ubad(:,:,:), ushort(:,:,:)
  complex(dp), allocatable :: uh(:,:,:), uhbad(:,:,:), uhflat(:,:,:), gh(:,:,:), cu(:,:,:)
  real(c_float), allocatable :: u4(:,:,:)
  complex(c_float_complex), allocatable :: uh4(:,:,:)
  character(len=16) :: lastrank

  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  last = nprocs - 1
  write (lastrank, '(a,i0,a)') "[rank ", last, "]"

  ! Default options: no norm set, so backward(forward(u)) must be u (the default is backward).
  call nbfft_plan_create(plan, MPI_COMM_WORLD, [nx, ny, nz])
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
  call random_number(u)
  call nbfft_forward(plan, u, uh)
  call nbfft_backward(plan, uh, v)
  call expect(size(u) == 0 .or. maxval(abs(u - v)) < 1d-12, &
              "default norm: backward(forward(u)) == u (not N*u)")

  ! 1. 2DECOMP&FFT's habit: the spectrum declared uh(x, y, z) instead of uh(x, z, y).
  allocate(uhbad(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))
  call nbfft_forward(plan, u, uhbad, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected uh(", "uh(x,y,z) given to forward")
  call expect_text("[x, z, y], got (", "the message names the order and the given shape")
  call expect_text("nbfft_forward: ", "the message names the routine")
  call expect_text("another order", "a permutation of the right extents is called one")
  ! 2. the same array given to backward
  call nbfft_backward(plan, uhbad, v, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected uh(", "uh(x,y,z) given to backward")
  ! 3. the wrong order on one rank only: every rank fails, naming that rank
  if (rank == last) then
    call nbfft_forward(plan, u, uhbad, status=st)
  else
    call nbfft_forward(plan, u, uh, status=st)
  end if
  call expect_error(st, NBFFT_INVALID_ARGUMENT, trim(lastrank), "wrong order on the last rank only")
  ! 4. the input declared u(x, z, y)
  allocate(ubad(lo(1):hi(1), lo(3):hi(3), lo(2):hi(2)))
  if (any(shape(ubad) /= shape(u))) then
    call nbfft_forward(plan, ubad, uh, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected u(", "u(x,z,y) given to forward")
    call expect_text("[x, y, z]", "the input's order is named")
  end if
  call nbfft_backward(plan, uh, ubad, status=st)  ! ubad has u's size on every rank
  if (any(shape(ubad) /= shape(u))) then
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected u(", "u(x,z,y) as backward's output")
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! 5. one extent too long (x + 1): a larger array is refused too, not just a short one
  allocate(ushort(lo(1):hi(1) + 1, lo(2):hi(2), lo(3):hi(3)))
  call nbfft_forward(plan, ushort, uh, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected u(", "an input one x longer")
  ! 6. the same number of elements in another shape (x2 along x, /2 along z)
  if (mod(ohi(2) - olo(2) + 1, 2) == 0 .and. ohi(2) >= olo(2)) then
    allocate(uhflat(2 * (ohi(1) - olo(1) + 1), ohi(3) - olo(3) + 1, (ohi(2) - olo(2) + 1) / 2))
  else
    allocate(uhflat(ohi(1) - olo(1) + 2, ohi(3) - olo(3) + 1, ohi(2) - olo(2) + 1))
  end if
  call nbfft_forward(plan, u, uhflat, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "got (", "same size, another shape")

  ! 7. r2c plan, complex input of the right shape (forward_c2c specific): a kind error
  allocate(cu(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  cu = 0
  call nbfft_forward(plan, cu, uh, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "complex(c_double_complex) but the plan's input is real(c_double)", &
                    "complex input to an r2c plan")
  ! 8. c2c backward into a real array of an r2c plan's shapes is fine; into complex is not
  call nbfft_backward(plan, uh, cu, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "is complex(c_double_complex)", "c2c backward on an r2c plan")
  ! 9. a single-precision plan given double arrays (the C API would take the bigger buffer)
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "precision", "single")
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_plan_create(splan, MPI_COMM_WORLD, [nx, ny, nz], opts)
  call nbfft_forward(splan, u, uh, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "real(c_double) but the plan's input is real(c_float)", &
                    "double arrays to a single plan")
  call nbfft_backward(splan, uh, u, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "complex(c_float_complex)", "double spectrum to a single plan")
  ! 10. single arrays to a double plan, and the right ones to the single plan
  allocate(u4(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh4(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
  u4 = real(u, c_float)
  call nbfft_forward(plan, u4, uh4, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "real(c_float) but the plan's input is real(c_double)", &
                    "single arrays to a double plan")
  call nbfft_forward(splan, u4, uh4, status=st)
  call expect(st == NBFFT_SUCCESS, "single arrays to a single plan")
  ! 11. c2c plan given a real input
  call nbfft_options_set(opts, "precision", "double")
  call nbfft_options_set(opts, "transform", "c2c")
  call nbfft_plan_create(cplan, MPI_COMM_WORLD, [nx, ny, nz], opts)
  call nbfft_forward(cplan, u, uh, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "u is real(c_double) but the plan's input is complex(c_double_complex)", &
                    "real input to a c2c plan")
  call nbfft_forward(cplan, cu, uh, status=st)  ! uh has xc = nx/2+1 x points, the c2c spectrum nx
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected uh(", "an r2c-shaped spectrum to a c2c plan")
  call nbfft_plan_destroy(cplan)

  ! 12. gather: the local spectrum in the wrong order
  if (rank == 0) then
    allocate(gh(xc, ny, nz), g(nx, ny, nz))
  else
    allocate(gh(0, 0, 0), g(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, uhbad, gh, 0, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected local(", "gather of uh(x,y,z)")
  ! 13. gather: the right local arrays, the global spectrum's x and y swapped on the root
  deallocate(gh)
  if (rank == 0) then
    allocate(gh(ny, xc, nz))
  else
    allocate(gh(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, uh, gh, 0, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected global(5, 6, 10) [x, y, z] on the root, got (6, 5, 10)", &
                    "gather into a global spectrum of the wrong order")
  ! 14. the right global spectrum: gather succeeds and holds forward's values
  deallocate(gh)
  if (rank == 0) then
    allocate(gh(xc, ny, nz))
  else
    allocate(gh(0, 0, 0))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_OUTPUT, uh, gh, 0, status=st)
  call expect(st == NBFFT_SUCCESS, "gather of the spectrum into gh(xc, ny, nz)")
  ! 15. scatter from a global field of the wrong order on the root
  deallocate(g)
  if (rank == 0) then
    allocate(g(nz, ny, nx))
  else
    allocate(g(0, 0, 0))
  end if
  g = 0
  call nbfft_scatter(plan, NBFFT_LAYOUT_INPUT, g, v, 0, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "expected global(8, 6, 10)", "scatter from g(z, y, x)")
  ! 16. a non-root rank may pass any global array (it is not read)
  deallocate(g)
  if (rank == 0) then
    allocate(g(nx, ny, nz))
  else
    allocate(g(1, 1, 1))
  end if
  call nbfft_gather(plan, NBFFT_LAYOUT_INPUT, u, g, 0, status=st)
  call expect(st == NBFFT_SUCCESS, "non-root ranks' global arrays are not checked")

  ! 17. a bad layout or root is reported as such, not hidden behind a shape message
  call nbfft_gather(plan, 7, u, g, 0, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "layout 7", "gather with layout 7")
  call nbfft_scatter(plan, NBFFT_LAYOUT_INPUT, g, v, nprocs, status=st)
  call expect_error(st, NBFFT_INVALID_ARGUMENT, "is not a rank", "scatter from a root outside the communicator")

  ! 17b. after every refused call the plan still transforms correctly
  call nbfft_forward(plan, u, uh)
  call nbfft_backward(plan, uh, v)
  call expect(size(u) == 0 .or. maxval(abs(u - v)) < 1d-12, "the plan works after refused calls")

  ! 18. a plan on half the ranks, a shape mistake on one rank of the first half only: that
  ! half fails together, the other half transforms, nobody waits
  color = merge(0, 1, rank < (nprocs + 1) / 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, subcomm, ierr)
  call MPI_Comm_rank(subcomm, subrank, ierr)
  call nbfft_plan_create(sub, subcomm, [nx, ny, nz])
  call nbfft_box(sub, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(sub, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  deallocate(u, uh, uhbad)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), uh(olo(1):ohi(1), olo(3):ohi(3), olo(2):ohi(2)))
  allocate(uhbad(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))
  u = 1
  if (color == 0 .and. subrank == 0) then
    call nbfft_forward(sub, u, uhbad, status=st)
  else
    call nbfft_forward(sub, u, uh, status=st)
  end if
  if (color == 0) then
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "[rank 0]", "sub-communicator: its rank 0 wrong")
  else
    call expect(st == NBFFT_SUCCESS, "the other sub-communicator is unaffected")
  end if
  call nbfft_plan_destroy(sub)
  call MPI_Comm_free(subcomm, ierr)

  ! 19. a destroyed plan: NBFFT_INVALID_STATE before any shape check
  call nbfft_plan_create(gone, MPI_COMM_WORLD, [4, 4, 4])
  call nbfft_plan_destroy(gone)
  call nbfft_forward(gone, u, uh, status=st)
  call expect_error(st, NBFFT_INVALID_STATE, "NULL", "forward on a destroyed plan")

  call nbfft_plan_destroy(splan)
  call nbfft_plan_destroy(plan)
  call nbfft_options_destroy(opts)
  call array_lengths()
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'fortran_shapes: ', nprocs, ' ranks, ', total, ' failures'
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains
  ! 20.-27. (issue 37) array arguments of the wrong length: the module's routines take
  ! assumed-shape arrays and check their length (they took kx(*) and n(3), and a short
  ! array was written or read past its end). Arrays one short are sections of a longer
  ! array whose next entry is a sentinel, so a write past the end would show. The create
  ! calls are collective: a wrong length on one rank fails every rank.
  subroutine array_lengths()
    real(dp), parameter :: sentinel = -12345d0
    type(nbfft_plan) :: plan, bad
    type(nbfft_pencils) :: pencils, badp
    integer :: st, m1, m2, k
    integer :: olo(3), ohi(3), n(3), lo4(4), hi2(2), g2(2)
    integer, allocatable :: grid(:)
    real(dp), allocatable :: kx(:), ky(:), kz(:)
    call nbfft_plan_create(plan, MPI_COMM_WORLD, [nx, ny, nz])
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    n = ohi - olo + 1
    allocate(kx(n(1) + 1), ky(n(2) + 1), kz(n(3) + 1))

    ! 20. kx one short (a section of a longer array): refused, the entry past it untouched.
    kx = sentinel
    call nbfft_wavenumbers(plan, kx(1:n(1) - 1), ky, kz, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "kx, ky, kz have", "kx one short")
    call expect_text("this rank's output box needs", "the message says what the box needs")
    call expect(all(kx == sentinel), "a short kx is not written")
    ! 21. kz one short
    kz = sentinel
    call nbfft_wavenumbers(plan, kx, ky, kz(1:n(3) - 1), status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "kx, ky, kz have", "kz one short")
    call expect(all(kz == sentinel), "a short kz is not written")
    ! 22. arrays longer than the box: filled up to the box, the rest left as it was.
    kx = sentinel
    call nbfft_wavenumbers(plan, kx, ky, kz, status=st)
    call expect(st == NBFFT_SUCCESS, "longer arrays are fine")
    call expect(kx(n(1) + 1) == sentinel, "an entry past the box is left alone")
    call expect(all(kx(1:n(1)) == [(real(merge(k, k - nx, k <= nx / 2), dp), k = olo(1) - 1, ohi(1) - 1)]), &
                "kx holds the integer wavenumbers of the box")
    ! 23. length of two entries, and an infinite one
    call nbfft_wavenumbers(plan, kx, ky, kz, [1d0, 2d0], status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_wavenumbers: length has 2 entries", "length of 2")
    call nbfft_wavenumbers(plan, kx, ky, kz, [1d0, ieee_value(1d0, ieee_positive_inf), 2d0], status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "length[1]", "an infinite length")
    ! 24. nbfft_box / nbfft_box_of / nbfft_grid with too few or too many entries
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo4, ohi, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_box: lo has 4 entries; it needs 3", "lo of 4")
    call nbfft_box_of(plan, NBFFT_LAYOUT_INPUT, 0, olo, hi2, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_box_of: hi has 2 entries", "hi of 2")
    call nbfft_box(plan, NBFFT_LAYOUT_INPUT, olo, ohi, hi2, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "order has 2 entries", "order of 2")
    call nbfft_grid(plan, g2, m1, m2, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_grid: n has 2 entries", "grid n of 2")
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(ohi - olo + 1 == n), "nbfft_box still answers")

    ! 25. a plan of a grid with 2 entries, on every rank, then on the last rank only
    allocate(grid(2))
    grid = [nx, ny]
    call nbfft_plan_create(bad, MPI_COMM_WORLD, grid, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_plan_create: n has 2 entries; it needs 3", "grid of 2")
    deallocate(grid)
    allocate(grid(merge(4, 3, rank == last)))
    grid = nx
    call nbfft_plan_create(bad, MPI_COMM_WORLD, grid, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, trim(lastrank), "a grid of 4 on the last rank only")
    call expect_text("n has 4 entries", "every rank hears the last rank's message")
    ! 26. user boxes with a short bound
    call nbfft_plan_create_boxes(bad, MPI_COMM_WORLD, [nx, ny, nz], in_lo=[1, 1], in_hi=[nx, ny, nz], status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_plan_create_boxes: in_lo has 2 entries", "in_lo of 2")

    ! 27. pencils: a grid of 2, the boxes' start, end and size
    call nbfft_pencils_create(badp, MPI_COMM_WORLD, [nx, ny], status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_pencils_create: n has 2 entries", "pencils grid of 2")
    call nbfft_pencils_create(pencils, MPI_COMM_WORLD, [nx, ny, nz])
    call nbfft_pencils_box(pencils, NBFFT_PENCIL_X, olo, hi2, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_pencils_box: end has 2 entries", "pencil end of 2")
    call nbfft_pencils_box_of(pencils, NBFFT_PENCIL_Y, 0, olo, ohi, lo4, status=st)
    call expect_error(st, NBFFT_INVALID_ARGUMENT, "nbfft_pencils_box_of: size has 4 entries", "pencil size of 4")
    call nbfft_pencils_box(pencils, NBFFT_PENCIL_X, olo, ohi, n, status=st)
    call expect(st == NBFFT_SUCCESS .and. all(ohi - olo + 1 == n), "nbfft_pencils_box still answers")
    call nbfft_pencils_destroy(pencils)

    ! The plan still works after all of the above.
    call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
    deallocate(kx, ky, kz)
    allocate(kx(ohi(1) - olo(1) + 1), ky(ohi(2) - olo(2) + 1), kz(ohi(3) - olo(3) + 1))
    call nbfft_wavenumbers(plan, kx, ky, kz, [2d0, 2d0, 2d0], status=st)
    call expect(st == NBFFT_SUCCESS, "exact arrays with a length")
    call nbfft_plan_destroy(plan)
  end subroutine

  include "fortran_expect.inc"

  ! The status is `code` and nbfft_last_error() contains `text`.
  subroutine expect_error(got, code, text, what)
    integer, intent(in) :: got, code
    character(len=*), intent(in) :: text, what
    if (got /= code) then
      print '(a,i0,a,a,a,i0,a,i0,a,a)', 'rank ', rank, ': FAILED: ', what, ': status ', got, ' (want ', code, &
            '): ', nbfft_last_error()
      failures = failures + 1
    else
      call expect_text(text, what)
    end if
  end subroutine

  subroutine expect_text(text, what)
    character(len=*), intent(in) :: text, what
    if (index(nbfft_last_error(), text) == 0) then
      print '(a,i0,a,a,a,a,a,a)', 'rank ', rank, ': FAILED: ', what, ': message lacks "', text, '": ', &
            nbfft_last_error()
      failures = failures + 1
    end if
  end subroutine
end program fortran_shapes
