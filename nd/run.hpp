// The fields of one nd::Plan call on their way through the plan's steps (nd/run.cpp): the
// one-field calls, the multi-field pipeline, a batch and the split-phase calls all run here.
#pragma once

#include "nd/plan_impl.hpp"

#include <memory>
#include <vector>

namespace nbfft::nd::detail {

// Field k goes from in[k] to out[k]: a field runs its steps on the plan's work arrays until
// it starts an exchange (which packs the field away: the arrays are free again), then the
// next field starts, until fields_in_flight fields have exchanges in flight; then the
// oldest is resumed. So each field's exchanges travel behind the other fields' FFTs and
// copies, and every rank starts every exchange in the same order (the order depends only
// on the plan and the number of fields).
class Run {
 public:
  virtual ~Run() = default;
  // Starts fields while lanes are free; with to_end, runs every field to its end.
  virtual void pump(bool to_end) = 0;
  // Whether the oldest field in flight has its exchange (progress pass first); true when
  // nothing is in flight.
  virtual bool test() = 0;
};

std::unique_ptr<Run> make_run(const Plan::Impl& m, bool forward, std::vector<View> in, std::vector<View> out);

}  // namespace nbfft::nd::detail
