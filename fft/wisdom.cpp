#include "nbfft/fft/wisdom.hpp"

#include "nbfft/error.hpp"

#include <fftw3.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace nbfft::fft {

namespace {

// File format: a header line, then each precision's FFTW wisdom text with its length.
constexpr const char* kMagic = "nbfft-wisdom 1";

std::string take(char* s) {
  std::string r = s ? s : "";
  std::free(s);
  return r;
}

// Gathers strings to rank 0 (empty elsewhere).
std::vector<std::string> gather(MPI_Comm comm, const std::string& mine) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(size), displs(size);
  check_mpi(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  std::vector<char> all;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    all.resize(total);
  }
  check_mpi(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                        MPI_CHAR, 0, comm),
            "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r) out.emplace_back(all.data() + displs[r], lens[r]);
  return out;
}

void bcast(MPI_Comm comm, std::string& s) {
  long long len = static_cast<long long>(s.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  s.resize(static_cast<std::size_t>(len));
  check_mpi(MPI_Bcast(s.data(), static_cast<int>(len), MPI_CHAR, 0, comm), "MPI_Bcast");
}

}  // namespace

void save_wisdom(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  auto d = gather(comm, take(fftw_export_wisdom_to_string()));
  auto f = gather(comm, take(fftwf_export_wisdom_to_string()));
  std::string error;
  if (rank == 0) {
    for (auto& s : d) fftw_import_wisdom_from_string(s.c_str());
    for (auto& s : f) fftwf_import_wisdom_from_string(s.c_str());
    const std::string ds = take(fftw_export_wisdom_to_string());
    const std::string fs = take(fftwf_export_wisdom_to_string());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << kMagic << "\ndouble " << ds.size() << "\n" << ds << "\nsingle " << fs.size() << "\n"
        << fs << "\n";
    if (!out) error = "cannot write FFTW wisdom file '" + path + "'";
  }
  bcast(comm, error);
  if (!error.empty()) throw Error(error, ErrorCode::Io);
}

bool load_wisdom(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string status, ds, fs;  // status: "" ok, "missing", or an error
  if (rank == 0) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      status = "missing";
    } else {
      std::stringstream buf;
      buf << in.rdbuf();
      const std::string text = buf.str();
      std::istringstream is(text);
      std::string magic, tag;
      std::size_t len = 0;
      std::getline(is, magic);
      auto read_part = [&](const char* want, std::string& into) {
        if (!(is >> tag >> len) || tag != want) return false;
        is.get();  // newline
        into.resize(len);
        return static_cast<bool>(is.read(into.data(), static_cast<std::streamsize>(len)));
      };
      if (magic != kMagic || !read_part("double", ds) || !read_part("single", fs))
        status = "'" + path + "' is not an nbfft wisdom file";
    }
  }
  bcast(comm, status);
  if (status == "missing") return false;
  if (!status.empty()) throw Error(status, ErrorCode::Io);
  bcast(comm, ds);
  bcast(comm, fs);
  if ((!ds.empty() && !fftw_import_wisdom_from_string(ds.c_str())) ||
      (!fs.empty() && !fftwf_import_wisdom_from_string(fs.c_str())))
    throw Error("FFTW rejected the wisdom in '" + path + "'", ErrorCode::Io);
  return true;
}

}  // namespace nbfft::fft
