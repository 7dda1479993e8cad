// Live plans and FFT buffer bytes of this process, with their high-water marks: an
// instrumentation hook, so that tests can check that the tuner holds one trial at a time
// (issue 16) and sizes its arrays once (issue 37) without measuring RSS, which other
// allocations and the OS make noisy.
#pragma once

#include <cstddef>

namespace nbfft::fft::detail {

struct MemoryStats {
  long plans = 0, plans_peak = 0;             // Plan objects alive (moved-from ones excluded)
  std::size_t bytes = 0, bytes_peak = 0;      // local/memory.hpp's bytes: workspaces, trial arrays, nd arrays
  long trial_arrays_made = 0;                 // arrays the tuner allocated so far (never decreases)
};

MemoryStats memory_stats();
void reset_memory_peaks();  // peaks := the current values

void note_trial_array();

// One per live plan (a member of Plan::Impl).
struct PlanCount {
  PlanCount();
  ~PlanCount();
  PlanCount(const PlanCount&) = delete;
  PlanCount& operator=(const PlanCount&) = delete;
};

}  // namespace nbfft::fft::detail
