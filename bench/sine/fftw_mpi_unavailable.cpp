// Stand-in for the FFTW-MPI baseline when nbfft-sine is built without it
// (NBFFT_WITH_FFTW_MPI=OFF, or libfftw3_mpi / libfftw3f_mpi not found).
#include "bench/sine/runner.hpp"

#include "nbfft/error.hpp"

namespace nbfft::sine {

std::unique_ptr<Runner> make_fftw_mpi(const BaselineSpec&) {
  throw Error("--baseline fftw-mpi: this nbfft-sine was built without FFTW-MPI "
              "(configure with -DNBFFT_WITH_FFTW_MPI=ON and libfftw3-mpi installed for this MPI)",
              ErrorCode::Unavailable);
}

bool fftw_mpi_available() { return false; }
void fftw_mpi_init() {}
void fftw_mpi_cleanup() {}

}  // namespace nbfft::sine
