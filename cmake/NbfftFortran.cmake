# Fortran is optional: the module (fortran/) is built when a Fortran compiler exists and
# NBFFT_BUILD_FORTRAN is on. Sets NBFFT_WITH_FORTRAN.
#
# FindMPI would pick the system's default mpif90 for the Fortran tests and examples, which
# may belong to another MPI than MPI_C_COMPILER (Debian installs Open MPI and MPICH side by
# side). Unless MPI_Fortran_COMPILER is given, take the wrapper beside the C one
# (mpicc.mpich -> mpifort.mpich).
set(NBFFT_WITH_FORTRAN OFF)
if(NBFFT_BUILD_FORTRAN)
  include(CheckLanguage)
  check_language(Fortran)
  if(CMAKE_Fortran_COMPILER)
    enable_language(Fortran)
    set(NBFFT_WITH_FORTRAN ON)
    if(NOT MPI_Fortran_COMPILER AND MPI_C_COMPILER)
      get_filename_component(_dir "${MPI_C_COMPILER}" DIRECTORY)
      get_filename_component(_name "${MPI_C_COMPILER}" NAME)
      string(REPLACE "mpicc" "mpifort" _fname "${_name}")
      if(_dir)
        set(_fpath "${_dir}/${_fname}")
      else()
        find_program(_fpath NAMES ${_fname})
      endif()
      if(_fpath AND EXISTS "${_fpath}")
        set(MPI_Fortran_COMPILER "${_fpath}" CACHE FILEPATH "MPI Fortran compiler wrapper")
      endif()
      unset(_fpath CACHE)
      unset(_fpath)
    endif()
  else()
    message(STATUS "nbfft: no Fortran compiler found; the Fortran module is not built")
  endif()
endif()

# Fortran .mod files are compiler-specific. Default: beside the headers; Debian's own
# convention is -DNBFFT_INSTALL_MODDIR=lib/x86_64-linux-gnu/fortran/gfortran-mod-15.
set(NBFFT_INSTALL_MODDIR "${CMAKE_INSTALL_INCLUDEDIR}" CACHE STRING
    "Where the Fortran module nbfft.mod goes, relative to the prefix")
