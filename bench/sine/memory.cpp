#include "bench/sine/memory.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nbfft::sine {

namespace {

std::size_t peak_seen = 0;  // the highest VmHWM read before any reset

// A "VmRSS:" / "VmHWM:" line of /proc/self/status, in bytes (0 when not there).
std::size_t status_bytes(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string k = key;
  while (std::getline(in, line))
    if (line.rfind(k, 0) == 0) return std::stoull(line.substr(k.size())) * 1024;  // "... kB"
  return 0;
}

std::size_t hwm() {
  const std::size_t h = status_bytes("VmHWM:");
  peak_seen = std::max(peak_seen, h);
  return h;
}

bool reset_hwm() {
  hwm();  // keep the process peak before it is forgotten
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

// Returns freed heap memory to the system, so that a run's growth is not hidden by pages
// an earlier run freed but the allocator kept.
void trim() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

PeakRss::PeakRss() {
  trim();
  base_ = status_bytes("VmRSS:");
  resettable_ = base_ > 0 && reset_hwm();
}

void PeakRss::begin() {
  if (!resettable_) return;
  trim();
  before_ = status_bytes("VmRSS:");
  resettable_ = reset_hwm();
}

std::size_t PeakRss::grown() {
  if (!resettable_) return 0;
  const std::size_t h = hwm();
  return h > before_ ? h - before_ : 0;
}

std::size_t PeakRss::end() { return resettable_ ? base_ + grown() : 0; }

std::size_t PeakRss::process_peak() { return std::max(peak_seen, hwm()); }

}  // namespace nbfft::sine
