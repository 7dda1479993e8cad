// Plan-time tuning of N-D plans: time candidate decompositions and transports on the
// caller's own ranks and keep the fastest (the 3-D plan's tuner, nbfft/fft/tune.hpp, for
// arrays of any rank and axes).
//
//   nbfft::nd::Options o;
//   o.tune = nbfft::fft::TuneEffort::Quick;  o.tune_budget = 5;
//   nbfft::nd::Plan p(MPI_COMM_WORLD, {nz, ny, nx}, {0, 2}, o);   // collective; seconds
//   if (rank == 0) std::cout << *p.tune_report();                  // what was tried, what won
//
// Every front end reaches it through the options text: "tune=quick tune_budget=5" (C,
// Fortran), NdPlan(..., tune="quick") in Python.
//
// What is tuned: the process grid (Options::grid: how many ranks along each axis, so how many
// exchanges a transform makes and between which axes), the transport of every exchange
// and, for several fields per call (tune_fields, or a batch axis), the fields in flight.
// Everything else (shape, axes, kinds, precision, norm, output order, FFTW effort, the
// batch axis) is the caller's and stays as given.
//
// How (greedy, bounded by tune_budget seconds; the best found so far wins when it runs out):
//   0. the caller's own options ("untuned"); a plan that cannot be made with them fails
//      the tune with the plan's own error;
//   1. grids, with the caller's transport: every grid whose product is the number of ranks
//      (the batch axis whole), the fewest split axes first; those the plan refuses (an axis
//      with fewer points than ranks at some stage) are skipped. quick tries 4 beyond the
//      caller's, thorough 8, exhaustive every one;
//   2. transports on the two fastest grids that make exchanges: blocking, pairwise windows, native
//      (MPI_Ialltoallv), and the thread engine when MPI provides MPI_THREAD_MULTIPLE
//      (thorough and exhaustive add more windows and linear);
//   3. with several fields (tune_fields > 1 or a batch axis) and a transport that
//      overlaps, 1, 2 and 3 fields in flight;
//   4. a runoff: the three fastest and the untuned plan timed again in turn, so that one
//      noisy trial cannot win.
// Each trial is one warm-up and 3 timed forward + backward calls (forward_many /
// backward_many of tune_fields fields), the slowest rank's time, the median kept. A tune
// holds one candidate plan and one set of arrays at a time.
//
// Remembering: the choice is kept in this process under a key of everything it depends on
// (shape, axes, ranks, the caller's other options, tune_fields): a later plan with the same
// key is made at once (from_memory).
#pragma once

#include "nbfft/nd/plan.hpp"

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::nd {

struct TuneTrial {
  Options options;     // the candidate (grid as the plan made it)
  double seconds = 0;  // per forward + backward of all fields; the runoff's when it ran
  std::string step;    // "untuned", "grid", "transport", "fields"; ", runoff" when re-timed
  int exchanges = 0;   // the plan's exchanges per transform (none: no transport to choose)
};

struct TuneReport {
  Options chosen;                 // the options the plan is made with
  std::vector<TuneTrial> trials;  // in the order tried (empty from memory)
  double best_seconds = 0;        // the chosen trial's (0 from memory)
  double untuned_seconds = 0;     // the caller's own options' (0 from memory)
  double tuning_seconds = 0;      // wall time of the tune
  bool budget_exhausted = false;  // the budget ran out before the search ended
  bool from_memory = false;       // an earlier tune in this process with the same key
  bool from_wisdom = false;       // the wisdom file's entry for the key (Options::tune_wisdom)
};

// "nd tune: 9 trials in 2.1 s, chose grid=2x1 transport=pairwise:2@caller ..." and a line
// per trial.
std::ostream& operator<<(std::ostream& os, const TuneReport& r);

// Tunes plans like Plan(comm, shape, axes, base) (base.tune: the effort; None is an error).
// Collective; every rank gets the same report. Errors (every rank alike): the plan's own for
// the caller's options, and ranks that disagree on the tune settings.
// With user boxes (Plan's user-box constructor) every trial's plan takes and gives arrays in
// them, so the choice counts the reshapes too, and the key names every rank's boxes.
TuneReport tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, const std::vector<int>& axes,
                const Options& base, const std::optional<Box>& in_box = std::nullopt,
                const std::optional<Box>& out_box = std::nullopt);

// Forgets the choices this process remembers (tests and benchmarks that time tuning).
void forget_tuning();

}  // namespace nbfft::nd
