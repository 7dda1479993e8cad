#include "bench/common/compute.hpp"

#include "bench/common/clock.hpp"
#include "bench/common/stats.hpp"
#include "nbfft/error.hpp"


namespace nbfft::bench {

namespace {
constexpr std::size_t kCacheDoubles = 2048;             // 16 KiB
constexpr std::size_t kMemoryDoubles = 8u << 20;        // 64 MiB per array
constexpr std::size_t kMemoryBlock = 8192;              // 64 KiB of each array per unit
}  // namespace

ComputeKind parse_compute(const std::string& name) {
  if (name == "cache") return ComputeKind::Cache;
  if (name == "memory") return ComputeKind::Memory;
  throw Error("unknown compute kind '" + name + "' (known: cache, memory)");
}

Compute::Compute(ComputeKind kind) : kind_(kind) {
  const std::size_t n = kind == ComputeKind::Cache ? kCacheDoubles : kMemoryDoubles;
  a_.assign(n, 1.0);
  b_.assign(n, 0.5);
}

void Compute::run(long units) {
  double* a = a_.data();
  const double* b = b_.data();
  for (long u = 0; u < units; ++u) {
    if (kind_ == ComputeKind::Cache) {
      for (std::size_t i = 0; i < kCacheDoubles; ++i) a[i] = a[i] * 0.999999 + b[i];
    } else {
      double* x = a + cursor_;
      const double* y = b + cursor_;
      for (std::size_t i = 0; i < kMemoryBlock; ++i) x[i] = y[i] + 0.999999 * x[i];
      cursor_ = (cursor_ + kMemoryBlock) % kMemoryDoubles;
    }
  }
}

double Compute::calibrate(double probe_s) {
  long units = 1;
  for (;;) {  // grow until one run takes ~probe_s
    double t = now_seconds();
    run(units);
    t = now_seconds() - t;
    if (t > probe_s || units > (1L << 30)) break;
    units *= 2;
  }
  std::vector<double> per_unit;
  for (int i = 0; i < 5; ++i) {
    double t = now_seconds();
    run(units);
    per_unit.push_back((now_seconds() - t) / static_cast<double>(units));
  }
  return summarize(per_unit).median;
}

double Compute::checksum() const {
  double s = 0;
  for (std::size_t i = 0; i < a_.size(); i += 4096) s += a_[i];
  return s;
}

}  // namespace nbfft::bench
