# cmake --install: the libraries, the public headers (include/nbfft/**), the Fortran module,
# a CMake package (find_package(nbfft): nbfft::coll, nbfft::fft, nbfft::c, nbfft::fortran)
# and relocatable pkg-config files for C programs (nbfft.pc) and Fortran ones (nbfft-fortran.pc).
# GNU install directories.
include(CMakePackageConfigHelpers)

set(NBFFT_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/nbfft" CACHE STRING
    "Where nbfftConfig.cmake goes, relative to the prefix")
# Installed libraries find each other (and the examples find them) without LD_LIBRARY_PATH.
set_property(TARGET nbfft_coll nbfft_fft nbfft_io nbfft_c APPEND PROPERTY INSTALL_RPATH "$ORIGIN")
# ... and keep the directories of what they link outside the system paths (an MPI in /opt).
set_property(TARGET nbfft_coll nbfft_fft nbfft_io nbfft_c PROPERTY INSTALL_RPATH_USE_LINK_PATH ON)

set(_nbfft_targets nbfft_coll nbfft_fft nbfft_io nbfft_c)
if(NBFFT_WITH_FORTRAN)
  list(APPEND _nbfft_targets nbfft_fortran)
endif()
install(TARGETS ${_nbfft_targets} EXPORT nbfftTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Only the public headers: internal ones stay beside their .cpp files in coll/ and fft/.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nbfft DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/include/nbfft/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nbfft)
if(NBFFT_WITH_FORTRAN)
  install(FILES ${NBFFT_FORTRAN_MODDIR}/nbfft.mod ${NBFFT_FORTRAN_MODDIR}/nbfft_request_type.mod DESTINATION ${NBFFT_INSTALL_MODDIR})
endif()

install(EXPORT nbfftTargets NAMESPACE nbfft:: DESTINATION ${NBFFT_INSTALL_CMAKEDIR})
set(NBFFT_CONFIG_SHARED ${NBFFT_BUILD_SHARED})
set(NBFFT_CONFIG_HDF5 ${NBFFT_HAVE_HDF5})
set(NBFFT_CONFIG_MKL ${NBFFT_HAVE_MKL})
set(NBFFT_CONFIG_CUDA ${NBFFT_HAVE_CUDA})
if(NBFFT_HAVE_CUDA)
  set(NBFFT_PC_CUDA 1)
else()
  set(NBFFT_PC_CUDA 0)
endif()
if(NOT NBFFT_HAVE_MKL)
  set(NBFFT_MKL_LIBRARIES "")
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/nbfftConfig.cmake.in
  ${PROJECT_BINARY_DIR}/nbfftConfig.cmake INSTALL_DESTINATION ${NBFFT_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR NBFFT_INSTALL_MODDIR)
# 0.x: minor versions may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/nbfftConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/nbfftConfig.cmake ${PROJECT_BINARY_DIR}/nbfftConfigVersion.cmake
        DESTINATION ${NBFFT_INSTALL_CMAKEDIR})

# nbfft.pc, relocatable: the prefix is computed from the .pc file's own directory
# (${pcfiledir}), so a moved prefix keeps working. `pkg-config --define-prefix` guesses
# wrong with Debian's multiarch libdir (lib/x86_64-linux-gnu), so the relative path is
# written out here from the real libdir depth.
set(_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(NBFFT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(NBFFT_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _up "/prefix/${_pcdir}" "/prefix")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(NBFFT_PC_PREFIX "\${pcfiledir}/${_up}")
  set(NBFFT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(NBFFT_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(NBFFT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# Static libraries need the local FFT libraries on the link line (shared ones carry them).
set(NBFFT_PC_REQUIRES_PRIVATE "")
if(NBFFT_HAVE_FFTW)
  set(NBFFT_PC_REQUIRES_PRIVATE "fftw3 fftw3f")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/nbfft.pc.in ${PROJECT_BINARY_DIR}/nbfft.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/nbfft.pc DESTINATION ${_pcdir})
if(NBFFT_WITH_FORTRAN)
  if(IS_ABSOLUTE "${NBFFT_INSTALL_MODDIR}")
    set(NBFFT_PC_MODDIR "${NBFFT_INSTALL_MODDIR}")
  else()
    set(NBFFT_PC_MODDIR "\${prefix}/${NBFFT_INSTALL_MODDIR}")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/nbfft-fortran.pc.in ${PROJECT_BINARY_DIR}/nbfft-fortran.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/nbfft-fortran.pc DESTINATION ${_pcdir})
endif()
