// Synthetic compute for overlap experiments, in units of fixed work, calibrated to time.
//
//   cache   a multiply-add sweep over a 16 KiB array that stays in L1: pure CPU work.
//   memory  a STREAM-triad over two 64 MiB arrays (far beyond cache), a block per unit:
//           it competes for memory bandwidth the way an FFT's passes and packing do, which
//           shared-memory message copies also need.
#pragma once

#include <string>
#include <vector>

namespace nbfft::bench {

enum class ComputeKind { Cache, Memory };
ComputeKind parse_compute(const std::string& name);  // throws Error on an unknown name

class Compute {
 public:
  explicit Compute(ComputeKind kind);
  void run(long units);
  // Seconds per unit: the median of several timed runs of about `probe_s` seconds each.
  double calibrate(double probe_s = 0.02);
  double checksum() const;  // read it so the work cannot be optimized away

 private:
  ComputeKind kind_;
  std::vector<double> a_, b_;
  std::size_t cursor_ = 0;
};

}  // namespace nbfft::bench
