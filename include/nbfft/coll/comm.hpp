// Comm: the communicator nbfft's collectives run on.
//
// It holds a private duplicate of the user's communicator, so nbfft traffic never matches
// user messages, and a per-communicator sequence of tags: each start of a collective gets
// the next tag, so any number of collectives may be outstanding without cross-matching.
// Every rank must start collectives on a Comm in the same order (as with MPI collectives).
// Comm is a cheap shared handle; the duplicate is freed when the last handle goes.
#pragma once

#include "nbfft/coll/engine.hpp"

#include <mpi.h>

#include <memory>

namespace nbfft::coll {

class Comm {
 public:
  Comm() = default;
  explicit Comm(MPI_Comm user, EngineKind engine = EngineKind::Caller);

  int rank() const;
  int size() const;
  MPI_Comm mpi() const;  // the private duplicate
  EngineKind engine_kind() const;
  const std::shared_ptr<Engine>& engine() const;
  int next_tag() const;  // reserves the tag of the next start
  // A further private duplicate, freed with the last reference (for MPI-level collectives
  // that must not share a communicator with concurrently outstanding ones).
  std::shared_ptr<MPI_Comm> private_duplicate() const;
  // The communicator's dynamic RMA window (MPI_Win_create_dynamic, opened with lock_all),
  // created by the first call — which is collective, like the builds that make it. The
  // rma algorithm attaches and detaches its buffers locally, so no collective has to free
  // a window of its own (MPI_Win_free synchronizes; collectives finish in any order).
  // The window is freed, collectively, with the Comm.
  MPI_Win rma_window() const;
  void progress() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  const Impl& impl() const;
};

}  // namespace nbfft::coll
