// nbfft._core.Plan: nbfft::fft::Plan on raw buffers. The Python class nbfft.Plan checks
// dtypes, shapes and contiguity (collectively) and passes each array with the number of
// bytes it may use; here only the pointers are taken, with the GIL released.
#include "common.hpp"

#include "nbfft/coll/engine.hpp"
#include "nbfft/fft/plan.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <sstream>
#include <tuple>
#include <vector>

namespace nbfft::py {

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::device::cpu>;
using BoxTuple = std::tuple<std::array<std::int64_t, 3>, std::array<std::int64_t, 3>, std::array<int, 3>>;

class PyPlan {
 public:
  PyPlan(std::uint64_t handle, std::array<std::int64_t, 3> n, const fft::Options& o) {
    check_mpi_running("Plan");
    MPI_Comm comm = comm_from_handle(handle);
    {
      nb::gil_scoped_release release;  // planning is collective and may take seconds
      plan_ = std::make_unique<fft::Plan>(comm, n, o);
      check_mpi(MPI_Comm_dup(comm, &check_), "MPI_Comm_dup");
    }
  }
  ~PyPlan() { close(); }

  void close() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
      // Too late to free MPI objects; leak them rather than call MPI after MPI_Finalize.
      (void)plan_.release();
      check_ = MPI_COMM_NULL;
      return;
    }
    plan_.reset();
    free_comm(check_);
  }
  bool closed() const { return !plan_; }

  const fft::Plan& plan() const {
    if (!plan_) throw Error("Plan: used after close()", ErrorCode::InvalidState);
    return *plan_;
  }

  std::pair<int, std::string> agree(int kind, const std::string& message) const {
    plan();
    nb::gil_scoped_release release;
    return agree_on(check_, kind, message);
  }

  void run(bool forward, const ConstArray& in, std::size_t in_b, const Array& out, std::size_t out_b) const {
    const fft::Plan& p = plan();
    const void* i = in.data();
    void* o = out.data();
    nb::gil_scoped_release release;
    if (forward)
      p.forward_bytes(i, in_b, o, out_b);
    else
      p.backward_bytes(i, in_b, o, out_b);
  }

  void run_many(bool forward, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
                std::size_t out_b) const {
    const fft::Plan& p = plan();
    std::vector<const void*> ip;
    std::vector<void*> op;
    for (const auto& a : in) ip.push_back(a.data());
    for (const auto& a : out) op.push_back(a.data());
    if (ip.size() != op.size())
      throw Error(std::string(forward ? "forward_many" : "backward_many") + ": " + std::to_string(ip.size()) +
                  " input fields but " + std::to_string(op.size()) + " output fields");
    nb::gil_scoped_release release;
    if (forward)
      p.forward_many_bytes(ip.size(), ip.data(), in_b, op.data(), out_b);
    else
      p.backward_many_bytes(ip.size(), ip.data(), in_b, op.data(), out_b);
  }

  static BoxTuple box(const fft::Box3& b) { return {b.lo, b.n, b.order}; }

  std::string options_str() const {
    std::ostringstream s;
    s << plan().options();
    return s.str();
  }

 private:
  std::unique_ptr<fft::Plan> plan_;
  MPI_Comm check_ = MPI_COMM_NULL;  // the argument agreement's own communicator
};

fft::Options make_options(const std::string& precision, const std::string& transform, const std::string& norm,
                          int m1, int m2, const std::string& row, const std::string& col, const std::string& effort,
                          bool allow_empty, int progress_chunks, int col_chunk_planes,
                          const std::string& col_kernel, int fields_in_flight, bool lean_workspace,
                          bool pipeline_row) {
  fft::Options o;
  o.precision = fft::parse_precision(precision);
  o.transform = fft::parse_transform(transform);
  o.norm = fft::parse_norm(norm);
  o.m1 = m1;
  o.m2 = m2;
  o.row_transport = coll::Transport::parse(row);
  o.col_transport = coll::Transport::parse(col);
  o.effort = fft::parse_effort(effort);
  o.allow_empty = allow_empty;
  o.progress_chunks = progress_chunks;
  o.col_chunk_planes = col_chunk_planes;
  // Seed 002's kernels set col_transport, col_chunk_planes and col_depth together.
  if (col_kernel != "transport") o.col_kernel(col_kernel);
  o.fields_in_flight = fields_in_flight;
  o.lean_workspace = lean_workspace;
  o.pipeline_row = pipeline_row;
  return o;
}

}  // namespace

void bind_plan(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<PyPlan>(m, "Plan")
      .def(
          "__init__",
          [](PyPlan* self, std::uint64_t handle, std::array<std::int64_t, 3> n, const std::string& precision,
             const std::string& transform, const std::string& norm, int m1, int m2, const std::string& row,
             const std::string& col, const std::string& effort, bool allow_empty, int progress_chunks,
             int col_chunk_planes, const std::string& col_kernel, int fields_in_flight, bool lean_workspace,
             bool pipeline_row) {
            // Options are parsed on every rank before the collective constructor; the
            // Python layer has already agreed that every rank's words are valid.
            const fft::Options o = make_options(precision, transform, norm, m1, m2, row, col, effort, allow_empty,
                                                progress_chunks, col_chunk_planes, col_kernel, fields_in_flight,
                                                lean_workspace, pipeline_row);
            new (self) PyPlan(handle, n, o);
          },
          "comm_handle"_a, "n"_a, "precision"_a, "transform"_a, "norm"_a, "m1"_a, "m2"_a, "row_transport"_a,
          "col_transport"_a, "effort"_a, "allow_empty"_a, "progress_chunks"_a, "col_chunk_planes"_a,
          "col_kernel"_a, "fields_in_flight"_a, "lean_workspace"_a, "pipeline_row"_a)
      .def("close", &PyPlan::close)
      .def_prop_ro("closed", &PyPlan::closed)
      .def("agree", &PyPlan::agree, "kind"_a, "message"_a)
      .def(
          "forward",
          [](const PyPlan& p, ConstArray in, std::size_t in_b, Array out, std::size_t out_b) {
            p.run(true, in, in_b, out, out_b);
          },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def(
          "backward",
          [](const PyPlan& p, ConstArray in, std::size_t in_b, Array out, std::size_t out_b) {
            p.run(false, in, in_b, out, out_b);
          },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def(
          "forward_many",
          [](const PyPlan& p, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
             std::size_t out_b) { p.run_many(true, in, in_b, out, out_b); },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def(
          "backward_many",
          [](const PyPlan& p, const std::vector<ConstArray>& in, std::size_t in_b, const std::vector<Array>& out,
             std::size_t out_b) { p.run_many(false, in, in_b, out, out_b); },
          "a"_a.noconvert(), "a_bytes"_a, "out"_a.noconvert(), "out_bytes"_a)
      .def_prop_ro("in_box", [](const PyPlan& p) { return PyPlan::box(p.plan().in_box()); })
      .def_prop_ro("out_box", [](const PyPlan& p) { return PyPlan::box(p.plan().out_box()); })
      .def_prop_ro("in_bytes", [](const PyPlan& p) { return p.plan().in_bytes(); })
      .def_prop_ro("out_bytes", [](const PyPlan& p) { return p.plan().out_bytes(); })
      .def_prop_ro("inplace_bytes", [](const PyPlan& p) { return p.plan().inplace_bytes(); })
      .def_prop_ro("workspace_bytes", [](const PyPlan& p) { return p.plan().workspace_bytes(); })
      .def_prop_ro("lean_workspace", [](const PyPlan& p) { return p.plan().lean_workspace(); })
      .def_prop_ro("m1", [](const PyPlan& p) { return p.plan().m1(); })
      .def_prop_ro("m2", [](const PyPlan& p) { return p.plan().m2(); })
      .def_prop_ro("options_str", &PyPlan::options_str)
      .def_prop_ro("options", [](const PyPlan& p) {
        const fft::Options& o = p.plan().options();
        nb::dict d;
        d["precision"] = fft::name(o.precision);
        d["transform"] = fft::name(o.transform);
        d["norm"] = fft::name(o.norm);
        d["m1"] = o.m1;
        d["m2"] = o.m2;
        d["row_transport"] = o.row_transport.str();
        d["col_transport"] = o.col_transport.str();
        d["effort"] = fft::name(o.effort);
        d["allow_empty"] = o.allow_empty;
        d["progress_chunks"] = o.progress_chunks;
        d["col_chunk_planes"] = o.col_chunk_planes;
        d["col_depth"] = o.col_depth;
        d["fields_in_flight"] = o.fields_in_flight;
        return d;
      });
}

}  // namespace nbfft::py
