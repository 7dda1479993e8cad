// Timings: where the seconds of forward/backward calls went, per phase.
//
// Pass a Timings* to Plan::forward/backward and each phase's wall time is added to it (two
// clock reads per plane: negligible next to the work). Normalization is fused into the z
// FFT and counted there. "pack" is every copy on the way into an exchange (FFT'd planes into
// send buffers, the rank's own block into the receive side, the user's spectrum into the
// padded z plane), "unpack" every copy on the way out (receive blocks into a plane, the
// finished z plane into the user's array).
#pragma once

#include <chrono>

namespace nbfft::fft {

struct Timings {
  double fft_x = 0, fft_y = 0, fft_z = 0;  // local 1D FFTs along each dimension
  double pack = 0, unpack = 0;
  double row = 0, col = 0;  // ROW / COL exchanges: start + wait
  double total = 0;         // whole calls

  static constexpr int kPhases = 8;
  static const char* phase_name(int k) {
    static const char* names[kPhases] = {"fft_x", "fft_y", "fft_z", "pack", "unpack", "row", "col", "total"};
    return names[k];
  }
  double& phase(int k) {
    double* p[kPhases] = {&fft_x, &fft_y, &fft_z, &pack, &unpack, &row, &col, &total};
    return *p[k];
  }
  double phase(int k) const { return const_cast<Timings*>(this)->phase(k); }
  Timings& operator+=(const Timings& o) {
    for (int k = 0; k < kPhases; ++k) phase(k) += o.phase(k);
    return *this;
  }
};

// Adds the time since the previous mark to a phase; a no-op without a Timings.
class PhaseClock {
 public:
  explicit PhaseClock(Timings* t) : t_(t) {
    if (t_) last_ = std::chrono::steady_clock::now();
  }
  void mark(double Timings::*phase) {
    if (!t_) return;
    const auto now = std::chrono::steady_clock::now();
    t_->*phase += std::chrono::duration<double>(now - last_).count();
    last_ = now;
  }

 private:
  Timings* t_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace nbfft::fft
