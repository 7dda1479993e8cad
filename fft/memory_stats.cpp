#include "fft/memory_stats.hpp"

#include <atomic>

namespace nbfft::fft::detail {

namespace {

std::atomic<long> plans{0}, plans_peak{0};
std::atomic<std::size_t> bytes{0}, bytes_peak{0};
std::atomic<long> trial_arrays_made{0};

template <typename T>
void raise(std::atomic<T>& peak, T now) {
  T seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

}  // namespace

MemoryStats memory_stats() {
  return {plans.load(), plans_peak.load(), bytes.load(), bytes_peak.load(), trial_arrays_made.load()};
}

void reset_memory_peaks() {
  plans_peak = plans.load();
  bytes_peak = bytes.load();
}

void note_alloc(std::size_t b) { raise(bytes_peak, bytes += b); }
void note_free(std::size_t b) { bytes -= b; }
void note_trial_array() { ++trial_arrays_made; }

PlanCount::PlanCount() { raise(plans_peak, ++plans); }
PlanCount::~PlanCount() { --plans; }

}  // namespace nbfft::fft::detail
