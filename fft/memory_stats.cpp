#include "fft/memory_stats.hpp"

#include "local/memory.hpp"

#include <atomic>

namespace nbfft::fft::detail {

namespace {

std::atomic<long> plans{0}, plans_peak{0};
std::atomic<long> trial_arrays_made{0};

template <typename T>
void raise(std::atomic<T>& peak, T now) {
  T seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
}

}  // namespace

MemoryStats memory_stats() {
  const local::MemoryCount m = local::memory_count();
  return {plans.load(), plans_peak.load(), m.bytes, m.peak, trial_arrays_made.load()};
}

void reset_memory_peaks() {
  plans_peak = plans.load();
  local::reset_memory_peak();
}

void note_trial_array() { ++trial_arrays_made; }

PlanCount::PlanCount() { raise(plans_peak, ++plans); }
PlanCount::~PlanCount() { --plans; }

}  // namespace nbfft::fft::detail
