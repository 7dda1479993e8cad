! Without a status argument an nbfft error stops the program with nbfft's message
! (the ctest checks the message and the non-zero exit).
program fortran_stop
  use mpi_f08
  use nbfft
  implicit none
  type(nbfft_options) :: opts
  call MPI_Init()
  call nbfft_options_create(opts)
  call nbfft_options_set(opts, "no_such_key", "1")
  print '(a)', "not reached"
  call MPI_Finalize()
end program fortran_stop
