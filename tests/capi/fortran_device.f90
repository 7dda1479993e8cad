! capi.fortran_device: a device plan through the Fortran module (docs/gpu.md). With
! device=emulated (the device plan's path on host memory) nbfft_forward / nbfft_backward's
! address forms (type(c_ptr) and byte counts, as CUDA Fortran and OpenACC pass device memory)
! give the CPU plan's arrays, and so do nbfft_forward_start / nbfft_backward_start's;
! device=cuda without a GPU fails with a status naming why.
program fortran_device
  use mpi
  use nbfft
  use, intrinsic :: iso_c_binding, only: c_loc, c_size_t
  implicit none
  integer, parameter :: dp = kind(1d0)
  integer, parameter :: n(3) = [12, 10, 9]
  type(nbfft_options) :: opts
  type(nbfft_plan) :: host, dev, cuda
  type(nbfft_request) :: r1, r2
  integer :: ierr, failures, total, lo(3), hi(3), lo2(3), hi2(3), i, j, l, status
  real(dp), allocatable, target :: u(:,:,:), v(:,:,:)
  complex(dp), allocatable, target :: uh(:,:,:), ref(:,:,:)
  integer(c_size_t) :: in_b, out_b

  failures = 0
  call MPI_Init(ierr)
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "effort", "estimate")
  call nbfft_plan_create(host, MPI_COMM_WORLD, n, opts)
  call nbfft_options_set(opts, "device", "emulated")
  call nbfft_plan_create(dev, MPI_COMM_WORLD, n, opts)
  call nbfft_box(dev, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(dev, NBFFT_LAYOUT_OUTPUT, lo2, hi2)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)), v(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2)), ref(lo2(1):hi2(1), lo2(3):hi2(3), lo2(2):hi2(2)))
  do l = lo(3), hi(3)
    do j = lo(2), hi(2)
      do i = lo(1), hi(1)
        u(i, j, l) = sin(0.37d0 * i + 1.1d0 * j) * cos(0.2d0 * l)
      end do
    end do
  end do
  in_b = int(size(u), c_size_t) * 8
  out_b = int(size(uh), c_size_t) * 16
  call nbfft_forward(host, u, ref)
  call nbfft_forward(dev, c_loc(u), in_b, c_loc(uh), out_b, status)
  call expect(status == NBFFT_SUCCESS, "device=emulated forward through addresses")
  call expect(maxval(abs(uh - ref), mask=.true.) <= 1d-12 * max(1d0, maxval(abs(ref))), &
              "device=emulated forward is the CPU plan's")
  call nbfft_backward(dev, c_loc(uh), out_b, c_loc(v), in_b, status)
  call expect(status == NBFFT_SUCCESS, "device=emulated backward through addresses")
  call expect(maxval(abs(v - u)) < 1d-12, "device=emulated round trip returns the field")
  ! Split phase by address: two transforms in flight, waited in the order they started.
  uh = 0
  v = 0
  call nbfft_forward_start(dev, c_loc(u), in_b, c_loc(uh), out_b, r1, status)
  call expect(status == NBFFT_SUCCESS, "device=emulated forward_start through addresses")
  call nbfft_backward_start(dev, c_loc(ref), out_b, c_loc(v), in_b, r2, status)
  call expect(status == NBFFT_SUCCESS, "device=emulated backward_start through addresses")
  call nbfft_wait(r1)
  call nbfft_wait(r2)
  call expect(maxval(abs(uh - ref)) <= 1d-12 * max(1d0, maxval(abs(ref))), &
              "device=emulated split-phase forward is the CPU plan's")
  call expect(maxval(abs(v - u)) < 1d-12, "device=emulated split-phase backward returns the field")
  call nbfft_plan_destroy(dev)
  call nbfft_plan_destroy(host)

  call nbfft_options_set(opts, "device", "cuda")
  call nbfft_plan_create(cuda, MPI_COMM_WORLD, n, opts, status)
  if (status /= NBFFT_SUCCESS) then
    call expect(index(nbfft_last_error(), "GPU") > 0 .or. index(nbfft_last_error(), "CUDA") > 0, &
                "device=cuda without a GPU names why: " // nbfft_last_error())
  else
    call nbfft_plan_destroy(cuda)
  end if
  call nbfft_options_destroy(opts)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      write (*, '(a)') "FAILED: " // what
    end if
  end subroutine

end program
