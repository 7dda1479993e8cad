// nbfft/io/hdf5.hpp in a build without parallel HDF5: every file is a clear Unavailable
// error naming what is missing, so a program that asks for I/O learns why at once.
#include "nbfft/io/hdf5.hpp"

#include "nbfft/error.hpp"

namespace nbfft::io {

namespace {
[[noreturn]] void missing() {
  throw Error(ErrorCode::Unavailable,
              "H5File: this nbfft was built without parallel HDF5 (" + hdf5_info() +
                  "); install libhdf5-openmpi-dev or libhdf5-mpich-dev (the one for your MPI) and reconfigure "
                  "with -DNBFFT_WITH_HDF5=ON");
}
}  // namespace

bool hdf5_available() noexcept { return false; }
std::string hdf5_info() { return NBFFT_HDF5_WHY; }

struct H5File::Impl {};

H5File::H5File(MPI_Comm, const std::string&, Mode, const H5Options&) { missing(); }
H5File::~H5File() = default;
H5File::H5File(H5File&&) noexcept = default;
H5File& H5File::operator=(H5File&&) noexcept = default;
std::vector<std::string> H5File::fields() const { missing(); }
std::vector<std::int64_t> H5File::steps(const std::string&) const { missing(); }
double H5File::time(const std::string&, std::int64_t) const { missing(); }
void H5File::close() {}
bool H5File::is_open() const { return false; }
void H5File::agree_call(const std::string&, const std::string&) {}
const std::string& H5File::path() const { missing(); }
void H5File::write_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, double, Dtype, const void*,
                         std::size_t) {
  missing();
}
H5File::Pending H5File::write_start_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, double, Dtype,
                                          const void*, std::size_t, Stage) {
  missing();
}
void H5File::read_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, Dtype, void*, std::size_t) const {
  missing();
}
void H5File::write_bytes(const Layout&, const std::string&, std::int64_t, double, Dtype, const void*, std::size_t) {
  missing();
}
H5File::Pending H5File::write_start_bytes(const Layout&, const std::string&, std::int64_t, double, Dtype, const void*,
                                          std::size_t, Stage) {
  missing();
}
void H5File::read_bytes(const Layout&, const std::string&, std::int64_t, Dtype, void*, std::size_t) const {
  missing();
}
void H5File::write_plane_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, double, Axis, std::int64_t,
                               Dtype, const void*, std::size_t) {
  missing();
}
void H5File::write_subsampled_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, double,
                                    std::array<std::int64_t, 3>, Dtype, const void*, std::size_t) {
  missing();
}
void H5File::read_plane_bytes(const fft::Plan&, Space, const std::string&, std::int64_t, Axis, std::int64_t, Dtype,
                              void*, std::size_t) const {
  missing();
}
void H5File::read_subsampled_bytes(const fft::Plan&, Space, const std::string&, std::int64_t,
                                   std::array<std::int64_t, 3>, Dtype, void*, std::size_t) const {
  missing();
}
std::array<double, 3> H5File::box_lengths() const { missing(); }
std::string H5File::xdmf_path() const { missing(); }

}  // namespace nbfft::io
