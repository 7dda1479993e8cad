// A build without parallel HDF5: asking for a file is an Unavailable error that says what
// is missing and how to get it, on every rank.
#include "nbfft/error.hpp"
#include "nbfft/io/hdf5.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(Hdf5Missing, OpeningAFileSaysWhatIsMissing) {
  EXPECT_FALSE(nbfft::io::hdf5_available());
  try {
    nbfft::io::H5File f(MPI_COMM_WORLD, "never.h5", nbfft::io::H5File::Mode::Create);
    ADD_FAILURE() << "no error";
  } catch (const nbfft::Error& e) {
    EXPECT_EQ(e.code(), nbfft::ErrorCode::Unavailable);
    EXPECT_NE(std::string(e.what()).find("built without parallel HDF5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("libhdf5-openmpi-dev or libhdf5-mpich-dev"), std::string::npos) << e.what();
  }
}
