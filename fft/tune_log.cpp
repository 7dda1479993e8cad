// What the tuner tells while it works (fft/tune_detail.hpp): the process's log hook (C's
// nbfft_set_tune_log and Python's logger "nbfft.tune" sit on it) and, by
// TuneSettings::log, lines on rank 0's stderr: progress with an ETA at 1, every trial at 2.
//
// The ETA is the fewer of the budget left and the trials the search still expects times the
// mean time per trial so far; greedy searches stop early when a step has nothing to try, so
// it is an upper estimate.
#include "fft/tune_detail.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <sstream>

namespace nbfft::fft {

namespace {

std::mutex hook_mutex;
TuneLog& hook() {
  static TuneLog h;
  return h;
}

// Seconds or milliseconds as a person reads them.
std::string secs(double s) {
  char b[32];
  if (s < 0) return "-";
  if (s < 0.0995) std::snprintf(b, sizeof b, "%.3g ms", s * 1e3);
  else if (s < 1) std::snprintf(b, sizeof b, "%.0f ms", s * 1e3);  // not %g's "1e+03 ms"
  else std::snprintf(b, sizeof b, "%.1f s", s);
  return b;
}

// How often tune_log 1 prints a progress line.
constexpr double kProgressEvery = 2.0;

}  // namespace

const char* name(TuneEvent::Kind k) {
  switch (k) {
    case TuneEvent::Kind::Start: return "start";
    case TuneEvent::Kind::Trial: return "trial";
    case TuneEvent::Kind::Done: return "done";
  }
  return "?";
}

TuneLog set_tune_log(TuneLog h) {
  std::lock_guard<std::mutex> lock(hook_mutex);
  std::swap(hook(), h);
  return h;
}

std::string tuned_values(const Options& o) {
  std::string s;
  for (const auto& [k, v] : option_values(o, detail::tuned_row)) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

namespace detail {

TuneLogger::TuneLogger(MPI_Comm comm, std::array<std::int64_t, 3> n, const TuneSettings& s, double t0)
    : TuneLogger(comm, std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]), s, t0) {}

TuneLogger::TuneLogger(MPI_Comm comm, std::string what, const TuneSettings& s, double t0)
    : what_(std::move(what)), s_(s), t0_(t0), last_print_(t0) {
  {
    std::lock_guard<std::mutex> lock(hook_mutex);
    hook_ = hook();  // one tune() sees one hook, even if another thread replaces it meanwhile
  }
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

double TuneLogger::eta(double elapsed) const {
  const double left_budget = std::max(0.0, s_.budget_seconds - elapsed);
  if (done_ == 0) return left_budget;
  const double by_trials = elapsed / done_ * std::max(0, planned_ - done_);
  return std::min(left_budget, by_trials);
}

void TuneLogger::emit(TuneEvent& e, bool print) {
  if (print && rank_ == 0 && s_.log > 0) {
    std::fprintf(stderr, "%s\n", e.line.c_str());
    std::fflush(stderr);
  }
  if (!hook_) return;
  try {
    hook_(e);
  } catch (...) {
    // A hook that throws must not make this rank leave the collective search.
  }
}

void TuneLogger::start(int planned) {
  planned_ = planned;
  TuneEvent e;
  e.kind = TuneEvent::Kind::Start;
  e.planned = planned;
  e.budget = s_.budget_seconds;
  e.eta = s_.budget_seconds;
  std::ostringstream l;
  l << "nbfft tune: " << name(s_.effort) << " search of " << what_ << " on " << size_ << " rank" << (size_ == 1 ? "" : "s") << (s_.fields > 1 ? ", " + std::to_string(s_.fields) + " fields" : "")
    << ": about " << planned << " trials, budget " << secs(s_.budget_seconds);
  e.line = l.str();
  emit(e, true);
}

void TuneLogger::trial(const TuneTrial& t, bool planned_here) {
  trial(t.step, t.seconds, planned_here, tuned_values(t.options), &t.options);
}

void TuneLogger::trial(const std::string& step, double seconds, bool planned_here, const std::string& candidate,
                       const Options* options) {
  ++done_;
  const double now = MPI_Wtime();
  TuneEvent e;
  e.kind = TuneEvent::Kind::Trial;
  e.trial = done_;
  e.planned = std::max(planned_, done_);
  e.step = step;
  if (options) e.options = *options;
  e.candidate = candidate;
  e.seconds = planned_here ? seconds : -1;
  e.elapsed = now - t0_;
  e.budget = s_.budget_seconds;
  e.eta = eta(e.elapsed);
  if (e.seconds >= 0 && (best_ < 0 || e.seconds < best_)) {
    best_ = e.seconds;
    best_text_ = candidate;
  }
  std::ostringstream l;
  l << "nbfft tune: trial " << done_ << "/~" << e.planned << " [" << step << "] "
    << (planned_here ? secs(seconds) : std::string("cannot be planned here")) << "  " << candidate << "  ("
    << secs(e.elapsed) << " of " << secs(e.budget) << ", ETA " << secs(e.eta) << ")";
  e.line = l.str();
  const bool progress = s_.log == 1 && now - last_print_ >= kProgressEvery;
  if (progress) {
    // tune_log 1: a progress line now and then instead of every trial.
    std::ostringstream p;
    p << "nbfft tune: " << done_ << "/~" << e.planned << " trials, " << secs(e.elapsed) << " of "
      << secs(e.budget) << ", ETA " << secs(e.eta) << "; best so far " << secs(best_) << " (" << best_text_ << ")";
    if (rank_ == 0) {
      std::fprintf(stderr, "%s\n", p.str().c_str());
      std::fflush(stderr);
    }
    last_print_ = now;
  }
  emit(e, s_.log >= 2);
}

void TuneLogger::done(const TuneReport& r) {
  done(tuned_values(r.chosen), r.best_seconds, r.tuning_seconds, r.from_wisdom, r.budget_exhausted, &r.chosen);
}

void TuneLogger::done(const std::string& candidate, double best_seconds, double tuning_seconds, bool from_wisdom,
                      bool budget_exhausted, const Options* options) {
  TuneEvent e;
  e.kind = TuneEvent::Kind::Done;
  e.trial = done_;
  e.planned = std::max(planned_, done_);
  if (options) e.options = *options;
  e.candidate = candidate;
  e.seconds = best_seconds;
  e.elapsed = tuning_seconds;
  e.budget = s_.budget_seconds;
  e.from_wisdom = from_wisdom;
  std::ostringstream l;
  l << "nbfft tune: chose " << candidate << " (";
  if (from_wisdom)
    l << "from wisdom";
  else
    l << secs(best_seconds) << " per forward+backward; " << done_ << " trials in " << secs(tuning_seconds)
      << (budget_exhausted ? ", budget exhausted" : "");
  l << ")";
  e.line = l.str();
  emit(e, true);
}

}  // namespace detail
}  // namespace nbfft::fft
