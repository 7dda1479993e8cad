// Summaries of repeated timings: min / median / max, and the same reduced over ranks.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace nbfft::bench {

struct Summary {
  double min = 0, median = 0, max = 0;
};

inline Summary summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  return {v.front(), med, v.back()};
}

// The median alone (the mean of the two middle values for an even count; 0 when empty).
inline double median(std::vector<double> v) { return summarize(std::move(v)).median; }

inline double reduce_max(double x, MPI_Comm comm) {
  double out = x;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

inline double reduce_mean(double x, MPI_Comm comm) {
  double out = x;
  int p = 1;
  MPI_Comm_size(comm, &p);
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
  return out / p;
}

// Each field reduced with MAX over ranks: the slowest rank sets the time of a collective step.
inline Summary reduce_max(const Summary& s, MPI_Comm comm) {
  double in[3] = {s.min, s.median, s.max}, out[3];
  MPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, comm);
  return {out[0], out[1], out[2]};
}

}  // namespace nbfft::bench
