// Helpers shared by the coll test suites.
#pragma once

#include "nbfft/coll/coll.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nbfft::coll::testing {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// The value rank `src` puts at element `i` of its block for rank `dst` in start `seq`:
// a receiver can check every element without a reference exchange.
inline std::int32_t pattern(int src, int dst, std::int64_t i, int seq) {
  return static_cast<std::int32_t>(src * 1000003 + dst * 7919 + i * 31 + seq * 104729) ^ 0x5a5a;
}

inline bool algorithm_available(const AlgorithmInfo& a) { return !a.unavailable || !a.unavailable(); }

// An alltoallv of int32 between all ranks, with its own buffers and the expected result.
struct Exchange {
  std::vector<std::int64_t> scounts, sdispls, rcounts, rdispls;
  std::vector<std::int32_t> send, recv, expect;

  // count(src, dst) must be the same function on every rank. Blocks are laid out in rank
  // order with `gap` unused elements after each, which must come back untouched.
  template <class CountFn>
  Exchange(int me, int P, CountFn count, int seq, int gap = 0) {
    std::int64_t so = 0, ro = 0;
    for (int p = 0; p < P; ++p) {
      scounts.push_back(count(me, p));
      sdispls.push_back(so);
      so += scounts.back() + gap;
      rcounts.push_back(count(p, me));
      rdispls.push_back(ro);
      ro += rcounts.back() + gap;
    }
    send.assign(static_cast<std::size_t>(so), -1);
    recv.assign(static_cast<std::size_t>(ro), -7);
    expect = recv;
    for (int p = 0; p < P; ++p) {
      for (std::int64_t i = 0; i < scounts[p]; ++i) send[sdispls[p] + i] = pattern(me, p, i, seq);
      for (std::int64_t i = 0; i < rcounts[p]; ++i) expect[rdispls[p] + i] = pattern(p, me, i, seq);
    }
  }
  // Rewrites the send data and the expectation for a new start of the same collective.
  void reseed(int me, int seq) {
    const int P = static_cast<int>(scounts.size());
    for (int p = 0; p < P; ++p) {
      for (std::int64_t i = 0; i < scounts[p]; ++i) send[sdispls[p] + i] = pattern(me, p, i, seq);
      for (std::int64_t i = 0; i < rcounts[p]; ++i) expect[rdispls[p] + i] = pattern(p, me, i, seq);
    }
  }
  // An alltoall of `n` elements per peer (every rank must make the same call).
  static Exchange uniform(int me, int P, std::int64_t n, int seq) {
    Exchange x(me, P, [n](int, int) { return n; }, seq);
    x.is_uniform = true;
    return x;
  }
  bool is_uniform = false;
  Collective build(const Comm& c, const AlgorithmSpec& spec) {
    if (is_uniform) return alltoall(c, send.data(), recv.data(), scounts[0], sizeof(std::int32_t), spec);
    return alltoallv(c, send.data(), scounts, sdispls, recv.data(), rcounts, rdispls, sizeof(std::int32_t), spec);
  }
};

inline std::vector<EngineKind> all_engines() {
  std::vector<EngineKind> out;
  for (const auto& e : engines()) out.push_back(e.kind);
  return out;
}

// Runs `fn` and returns the nbfft::Error message it threw ("" if none).
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const nbfft::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace nbfft::coll::testing
