! Without a status argument a spectrum declared in the wrong order, uh(x, y, z) instead of
! uh(x, z, y), stops every rank with nbfft's message naming both shapes (the ctest checks
! the message and the non-zero exit; "not reached" would mean a silent transform).
program fortran_stop_shape
  use mpi_f08
  use nbfft
  implicit none
  type(nbfft_plan) :: plan
  integer :: lo(3), hi(3), olo(3), ohi(3)
  real(8), allocatable :: u(:,:,:)
  complex(8), allocatable :: uh(:,:,:)
  call MPI_Init()
  call nbfft_plan_create(plan, MPI_COMM_WORLD, [64, 64, 16])
  call nbfft_box(plan, NBFFT_LAYOUT_INPUT, lo, hi)
  call nbfft_box(plan, NBFFT_LAYOUT_OUTPUT, olo, ohi)
  allocate(u(lo(1):hi(1), lo(2):hi(2), lo(3):hi(3)))
  allocate(uh(olo(1):ohi(1), olo(2):ohi(2), olo(3):ohi(3)))   ! wrong: uh(x, y, z)
  u = 1
  call nbfft_forward(plan, u, uh)
  print '(a)', "not reached"
  call MPI_Finalize()
end program fortran_stop_shape
