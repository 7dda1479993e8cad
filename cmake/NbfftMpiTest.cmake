# nbfft_mpi_test(NAME target RANKS 1 2 3 ... [TIMEOUT s] [ARGS ...] [ENV VAR=VALUE ...]
#                [MPICH_SPLIT] [MPICH_AT4 gtest-filter] [MPICH_RANKS 1 2 ...])
# Registers one ctest per rank count, each run under mpirun with a timeout so
# that a deadlock fails the test instead of hanging the suite.
# MPICH_SPLIT (GoogleTest suites only): under MPICH, the 3- and 4-rank runs each take every
# other test case (GoogleTest's sharding, GTEST_TOTAL_SHARDS=2), so each case runs at 1, 2
# and one of 3 or 4 ranks there; Open MPI runs every case at every count. For suites whose
# cases are many and no case needs a particular rank count (each 3-4-rank MPICH run costs
# seconds to tens of seconds: its ranks busy-poll on 2 cores).
# MPICH_AT4 F (GoogleTest suites whose cases have 4-rank branches, e.g. a 2x2 grid): the
# same split made by name instead of by index: under MPICH the 4-rank run takes the cases
# matching F (GTEST_FILTER syntax, ':'-separated) and the 3-rank run every other case.
# MPICH_RANKS R...: under MPICH the rank counts R instead of RANKS (a test whose multi-rank
# runs cost MPICH's busy-polling ranks tens of seconds each, and need no count Open MPI skips).
set(NBFFT_MPIEXEC_EXTRA "" CACHE STRING "Extra mpiexec flags for tests")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _nbfft_mpiexec_version ERROR_QUIET)
if(_nbfft_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(NBFFT_MPI_FLAVOR openmpi)
  # More ranks than cores, no pinning (ranks and engine threads share 2 cores), shared memory only.
  set(NBFFT_MPIEXEC_DEFAULT --oversubscribe --bind-to none --mca btl self,vader)
  set(_nbfft_max_ranks 8)
  set(_nbfft_timeout_scale 1)
else()
  set(NBFFT_MPI_FLAVOR mpich)
  set(NBFFT_MPIEXEC_DEFAULT)
  # MPICH's ch4:ucx busy-polls; with more ranks than cores every wait costs scheduler
  # time slices, so suites run ~10x slower on a 2-core machine. Keep its runs at up to 4
  # ranks (3 is the non-power of two; Open MPI runs 5-8) with doubled timeouts. No MPICH
  # setting made waits cheaper here (UCX_TLS=self,sm, MPIR_CVAR_CH4_GLOBAL_PROGRESS=0,
  # MPIR_CVAR_POLLS_BEFORE_YIELD: all within noise).
  set(_nbfft_max_ranks 4)
  set(_nbfft_timeout_scale 2)
endif()
set(NBFFT_TEST_MAX_RANKS ${_nbfft_max_ranks} CACHE STRING "Largest rank count a test is registered at")
# Rank counts of the suites run again on a second local FFT backend (tests/fft, tests/nd): a
# backend's results do not depend on the MPI (Open MPI runs them at 1-4 ranks), and MPICH's
# multi-rank runs busy-poll on 2 cores: one rank there.
if(NBFFT_MPI_FLAVOR STREQUAL "mpich")
  set(NBFFT_BACKEND_TEST_RANKS 1)
else()
  set(NBFFT_BACKEND_TEST_RANKS 1 2 3 4)
endif()

function(nbfft_mpi_test name target)
  cmake_parse_arguments(T "MPICH_SPLIT" "TIMEOUT;MPICH_AT4" "RANKS;ARGS;LABELS;ENV;MPICH_RANKS" ${ARGN})
  if(T_MPICH_RANKS AND NBFFT_MPI_FLAVOR STREQUAL "mpich")
    set(T_RANKS ${T_MPICH_RANKS})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${_nbfft_timeout_scale}")
  foreach(n IN LISTS T_RANKS)
    if(n GREATER NBFFT_TEST_MAX_RANKS)
      continue()
    endif()
    add_test(NAME ${name}.np${n}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n}
                     ${NBFFT_MPIEXEC_DEFAULT} ${NBFFT_MPIEXEC_EXTRA}
                     $<TARGET_FILE:${target}> ${T_ARGS})
    # Under MPICH a test holds a core per rank, so ctest -j2 runs a multi-rank test alone:
    # two 4-rank runs side by side took 28 s where one after the other took 19 s, every
    # spinning rank of one stealing slices from the other's.
    set(_procs 1)
    set(_shard "")
    if(NBFFT_MPI_FLAVOR STREQUAL "mpich")
      set(_procs ${n})
      set(_both_counts FALSE)
      if((n EQUAL 3 OR n EQUAL 4) AND 3 IN_LIST T_RANKS AND 4 IN_LIST T_RANKS
         AND NBFFT_TEST_MAX_RANKS GREATER_EQUAL 4)
        set(_both_counts TRUE)
      endif()
      if(_both_counts AND T_MPICH_AT4)
        if(n EQUAL 4)
          set(_shard "GTEST_FILTER=${T_MPICH_AT4};")
        else()
          set(_shard "GTEST_FILTER=-${T_MPICH_AT4};")
        endif()
      elseif(_both_counts AND T_MPICH_SPLIT)
        math(EXPR _index "${n} - 3")
        set(_shard "GTEST_TOTAL_SHARDS=2;GTEST_SHARD_INDEX=${_index};")
      endif()
    endif()
    set_tests_properties(${name}.np${n} PROPERTIES
      TIMEOUT ${T_TIMEOUT} PROCESSORS ${_procs} LABELS "mpi;${T_LABELS}" SKIP_RETURN_CODE 77
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;${_shard}${T_ENV}")
  endforeach()
endfunction()
