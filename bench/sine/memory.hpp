// Peak resident memory of each run (issue 16: the tuner's memory). One process holds every
// run at once, so ru_maxrss alone would say only what all of them needed together. Linux
// lets a process reset its high-water mark (/proc/self/clear_refs, "5"): the probe resets
// it before a run is planned (tuning included) and reads it after the run's first
// iteration, and reports the RSS the process had before any run plus that growth, i.e.
// the peak a process holding only this run would have reached.
#pragma once

#include <cstddef>

namespace nbfft::sine {

class PeakRss {
 public:
  PeakRss();                        // records the RSS before any run (the base)
  bool per_run() const { return resettable_; }  // false: the kernel does not let us reset
  void begin();                     // before planning a run
  std::size_t end();                // after its first iteration: base + growth (0 = unknown)
  std::size_t grown();              // how far the high-water mark rose since begin() (0 = unknown)
  static std::size_t process_peak();  // the most this process held so far (bytes)

 private:
  bool resettable_ = false;
  std::size_t base_ = 0, before_ = 0;
};

}  // namespace nbfft::sine
