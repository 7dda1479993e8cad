# nbfft_mpi_test(NAME target RANKS 1 2 3 ... [TIMEOUT s] [ARGS ...])
# Registers one ctest per rank count, each run under mpirun with a timeout so
# that a deadlock fails the test instead of hanging the suite.
set(NBFFT_MPIEXEC_EXTRA "" CACHE STRING "Extra mpiexec flags for tests")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _nbfft_mpiexec_version ERROR_QUIET)
if(_nbfft_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(NBFFT_MPI_FLAVOR openmpi)
  # More ranks than cores, no pinning (ranks and engine threads share 2 cores), shared memory only.
  set(NBFFT_MPIEXEC_DEFAULT --oversubscribe --bind-to none --mca btl self,vader)
else()
  set(NBFFT_MPI_FLAVOR mpich)
  set(NBFFT_MPIEXEC_DEFAULT)
endif()

function(nbfft_mpi_test name target)
  cmake_parse_arguments(T "" "TIMEOUT" "RANKS;ARGS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  foreach(n IN LISTS T_RANKS)
    add_test(NAME ${name}.np${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n}
                     ${NBFFT_MPIEXEC_DEFAULT} ${NBFFT_MPIEXEC_EXTRA}
                     $<TARGET_FILE:${target}> ${T_ARGS})
    set_tests_properties(${name}.np${n} PROPERTIES
      TIMEOUT ${T_TIMEOUT} PROCESSORS 1 LABELS "mpi;${T_LABELS}"
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
