// Shared by the three parts of nbfft._core: communicator handles, the collective argument
// agreement, and the declarations of each part's bindings.
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/tune.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/request.hpp"

#include <nanobind/nanobind.h>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace nbfft::py {

namespace nb = nanobind;

// mpi4py's Comm.handle as an unsigned 64-bit integer (Python masks it) -> MPI_Comm.
// MPI_Comm is a pointer in Open MPI and an int in MPICH (whose handles look negative as
// 32-bit ints); only one branch compiles for a given MPI, hence the template.
template <typename C = MPI_Comm>
C comm_from_handle(std::uint64_t h) {
  if constexpr (std::is_pointer_v<C>)
    return reinterpret_cast<C>(static_cast<std::uintptr_t>(h));
  else
    return static_cast<C>(static_cast<std::int32_t>(static_cast<std::uint32_t>(h)));
}

// Python-side argument checks made collective: each rank passes its own problem ("" when
// none) and a kind (an index into nbfft's Python exception classes); if any rank has one,
// every rank returns the lowest such rank's kind and message with "[rank r]" appended.
// Returns {0, ""} when every rank is fine. One MPI_Allreduce on the happy path.
std::pair<int, std::string> agree_on(MPI_Comm comm, int kind, const std::string& message);

// One event of the tuner as Python sees it: a dict of its fields.
inline nb::dict event_dict(const fft::TuneEvent& e) {
  nb::dict d;
  d["kind"] = fft::name(e.kind);
  d["trial"] = e.trial;
  d["planned"] = e.planned;
  d["step"] = e.step;
  d["options"] = e.candidate;  // any plan's tuned options as text
  d["seconds"] = e.seconds;
  d["elapsed"] = e.elapsed;
  d["budget"] = e.budget;
  d["eta"] = e.eta;
  d["from_wisdom"] = e.from_wisdom;
  d["line"] = e.line;
  return d;
}

// The tuner's log hook for the length of one plan construction: each event goes to the
// Python callable (with the GIL, which the construction released). What the callable
// raises is reported as unraisable: one rank's logging must not leave the collective search.
class TuneLogScope {
 public:
  explicit TuneLogScope(nb::object log) : log_(std::move(log)) {
    if (log_.is_none()) return;
    active_ = true;
    nb::object* f = &log_;
    previous_ = fft::set_tune_log([f](const fft::TuneEvent& e) {
      nb::gil_scoped_acquire gil;
      try {
        (*f)(event_dict(e));
      } catch (nb::python_error& err) {
        err.discard_as_unraisable("nbfft's tuning log");
      }
    });
  }
  ~TuneLogScope() {
    if (active_) fft::set_tune_log(std::move(previous_));
  }
  TuneLogScope(const TuneLogScope&) = delete;
  TuneLogScope& operator=(const TuneLogScope&) = delete;

 private:
  nb::object log_;
  bool active_ = false;
  fft::TuneLog previous_;
};


// Frees a communicator unless MPI is already finalized (objects collected at exit).
void free_comm(MPI_Comm& comm);

// True once MPI_Finalize has run: an object Python collects after it must be leaked, since
// freeing it would call MPI.
inline bool mpi_finalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

// close() of a binding that owns one MPI-holding object: frees it with the GIL released
// (its destructor is collective), or leaks it after MPI_Finalize.
template <typename T>
void free_or_leak(std::unique_ptr<T>& owned) {
  if (mpi_finalized()) {
    (void)owned.release();
    return;
  }
  nb::gil_scoped_release release;
  owned.reset();
}

// nbfft::Request (every split-phase operation: a transform of any plan, a transpose, a
// background write) held by a Python object, with what must stay alive until it finishes
// (`keep`: the arrays a Borrow write reads later). The calls run without the GIL; `keep`
// is dropped once the request is waited for. Dropped unwaited, the request finishes as its
// kind must (C++'s destructor); one still valid when Python collects it after MPI_Finalize
// is leaked (finishing it would call MPI).
struct PyRequest {
  Request r;
  nb::object keep;
  PyRequest(Request req, nb::object k) : r(std::move(req)), keep(std::move(k)) {}
  bool test() {
    nb::gil_scoped_release release;
    return r.test();
  }
  void progress() {
    nb::gil_scoped_release release;
    r.progress();
  }
  void wait() {
    {
      nb::gil_scoped_release release;
      try {
        r.wait();
      } catch (...) {
        nb::gil_scoped_acquire again;
        if (!r.valid()) keep = nb::none();
        throw;
      }
    }
    keep = nb::none();
  }
  ~PyRequest() {
    if (!r.valid()) return;
    if (mpi_finalized()) {
      new Request(std::move(r));  // leaked: MPI is gone
      return;
    }
    nb::gil_scoped_release release;
    Request gone(std::move(r));
  }
};

// Binds PyRequest as _core.Request: test, wait, progress, and the properties active and valid.
void bind_request(nb::module_& m);

void bind_plan(nb::module_& m);
void bind_coll(nb::module_& m);
void bind_io(nb::module_& m);

// The C++ plan inside a _core.Plan object (InvalidState once closed): for the other
// parts' bindings that take a plan (io.cpp).
const fft::Plan& plan_of(nb::handle plan);
void bind_transpose(nb::module_& m);
// The C++ objects inside a _core.NdPlan and a _core.Pencils (InvalidState once closed): for
// io.cpp's layouts of their arrays.
const nd::Plan& nd_plan_of(nb::handle plan);
const fft::Pencils& pencils_of(nb::handle pencils);
void bind_nd(nb::module_& m);  // nd.cpp: N-D plans

}  // namespace nbfft::py
