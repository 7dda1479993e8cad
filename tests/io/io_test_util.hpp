// What the io tests share (test_hdf5.cpp, test_background.cpp, test_series.cpp): the
// world's rank and size, file names unique to a run, fields whose every point is distinct
// and exact, and the check that an nbfft::Error of a kind names what it should.
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/fft/box.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace nbfft::io::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Calls f(sub) on ranks 0..k-1 with a communicator of just them (the others skip it), then
// waits for every rank: reading back at fewer ranks (collective: every rank, the same k).
template <typename F>
void on_first_ranks(int k, F&& f) {
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < k ? 0 : MPI_UNDEFINED, world_rank(), &sub);
  if (sub != MPI_COMM_NULL) {
    f(sub);
    MPI_Comm_free(&sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// $TMPDIR (or /tmp)/<prefix><tag>-<rank 0's pid>.h5: unique to this run, the same on every
// rank (collective).
inline std::string temp_path(const std::string& prefix, const std::string& tag) {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/" + prefix + tag + "-" + std::to_string(pid) + ".h5";
}

// Removes p (and what a Create left beside it: the temporary, the XDMF catalog run.xmf of
// run.h5) on rank 0, between barriers (collective).
inline void remove_file(const std::string& p) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    std::remove(p.c_str());
    std::remove((p + ".nbfft-tmp").c_str());
    if (p.size() > 3 && p.compare(p.size() - 3, 3, ".h5") == 0) std::remove((p.substr(0, p.size() - 3) + ".xmf").c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The value of point (x, y, z) of a field: exact in float too (grids below 2^8 per side),
// distinct for every point and salt, so that a misplaced element cannot go unnoticed;
// complex: (value, -value of salt + 1).
inline double value(std::int64_t x, std::int64_t y, std::int64_t z, int salt) {
  return double(x + 256 * y + 65536 * z) + 0.25 * salt;
}
template <typename T>
T element(std::int64_t x, std::int64_t y, std::int64_t z, int salt) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(value(x, y, z, salt));
  } else {
    using R = typename T::value_type;
    return T(R(value(x, y, z, salt)), R(-value(x, y, z, salt + 1)));
  }
}

// A rank's box of the field f(x, y, z) in the box's memory order.
template <typename T, typename F>
std::vector<T> fill_with(const fft::Box3& b, F&& f) {
  std::vector<T> v(std::size_t(b.count()));
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x) v[std::size_t(b.index(x, y, z))] = f(x, y, z);
  return v;
}
template <typename T>
std::vector<T> fill(const fft::Box3& b, int salt) {
  return fill_with<T>(b, [salt](std::int64_t x, std::int64_t y, std::int64_t z) { return element<T>(x, y, z, salt); });
}
// How many points of the box differ from fill(b, salt).
template <typename T>
int mismatches(const fft::Box3& b, const std::vector<T>& v, int salt) {
  int bad = 0;
  for (std::int64_t z = b.lo[2]; z < b.lo[2] + b.n[2]; ++z)
    for (std::int64_t y = b.lo[1]; y < b.lo[1] + b.n[1]; ++y)
      for (std::int64_t x = b.lo[0]; x < b.lo[0] + b.n[0]; ++x)
        bad += v[std::size_t(b.index(x, y, z))] != element<T>(x, y, z, salt);
  return bad;
}

// Runs f, expects an nbfft::Error of `code` whose message contains `what` (on this rank;
// every rank runs it, so every rank must get it).
template <typename F>
void expect_error(F&& f, ErrorCode code, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << what << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << what << "'";
  }
}

}  // namespace nbfft::io::test
