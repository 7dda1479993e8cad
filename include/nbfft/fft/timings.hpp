// Timings: where the seconds of forward/backward calls went, per phase.
//
// Pass a Timings* to Plan::forward/backward and each phase's wall time is added to it (two
// clock reads per plane: negligible next to the work). Normalization is fused into the z
// FFT and counted there. "pack" is every copy on the way into an exchange (FFT'd planes into
// send buffers, the rank's own block into the receive side, the user's spectrum into the
// padded z plane), "unpack" every copy on the way out (receive blocks into a plane, the
// finished z plane into the user's array).
#pragma once

#include "nbfft/coll/trace.hpp"

#include <chrono>

namespace nbfft::fft {

struct Timings {
  double fft_x = 0, fft_y = 0, fft_z = 0;  // local 1D FFTs along each dimension
  double pack = 0, unpack = 0;
  double row = 0, col = 0;  // ROW / COL exchanges: start + wait
  double total = 0;         // whole calls

  static constexpr int kPhases = 8;
  static const char* phase_name(double Timings::*p) {
    for (int k = 0; k < kPhases; ++k)
      if (member(k) == p) return phase_name(k);
    return "?";
  }
  static double Timings::*member(int k) {
    static double Timings::*const m[kPhases] = {&Timings::fft_x, &Timings::fft_y,  &Timings::fft_z, &Timings::pack,
                                                  &Timings::unpack, &Timings::row, &Timings::col,   &Timings::total};
    return m[k];
  }
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

// Adds the time since the previous mark to a phase; a no-op without a Timings, unless a
// trace is being recorded (nbfft/coll/trace.hpp): then every mark is also a span on the
// rank's "fft" lane, so the timeline shows the stages without touching the plans.
class PhaseClock {
 public:
  explicit PhaseClock(Timings* t) : t_(t), trace_(trace::enabled()) {
    if (t_ || trace_) last_ = std::chrono::steady_clock::now();
  }
  void mark(double Timings::*phase) {
    if (!t_ && !trace_) return;
    const auto now = std::chrono::steady_clock::now();
    if (t_) t_->*phase += std::chrono::duration<double>(now - last_).count();
    if (trace_) {
      using us = std::chrono::duration<double, std::micro>;
      trace::complete("fft", Timings::phase_name(phase), us(last_.time_since_epoch()).count(),
                      us(now.time_since_epoch()).count());
    }
    last_ = now;
  }

 private:
  Timings* t_;
  bool trace_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace nbfft::fft
