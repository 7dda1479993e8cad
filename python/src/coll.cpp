// nbfft._core.coll: the collective layer (coll::Comm, persistent alltoall, Request) for
// Python. Buffers are bound at build time, as in MPI persistent collectives: the Python
// class keeps the arrays alive for as long as the collective exists.
#include "common.hpp"

#include "nbfft/coll/coll.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>

namespace nbfft::py {

namespace {

using Array = nb::ndarray<nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::device::cpu>;

struct PyComm {
  std::optional<coll::Comm> comm;
  const coll::Comm& get() const {
    if (!comm) throw Error("coll.Comm: used after close()", ErrorCode::InvalidState);
    return *comm;
  }
  void close() {
    if (mpi_finalized() && comm) new coll::Comm(std::move(*comm));  // leaked on purpose: MPI is gone
    comm.reset();
  }
  ~PyComm() { close(); }
};

struct PyCollective {
  std::optional<coll::Collective> c;
  const coll::Collective& get() const {
    if (!c) throw Error("coll.Collective: used after close()", ErrorCode::InvalidState);
    return *c;
  }
  void close() {
    if (mpi_finalized() && c) {
      new coll::Collective(std::move(*c));  // leaked on purpose: MPI is gone
    } else if (c) {
      nb::gil_scoped_release release;  // may complete an outstanding start
      c.reset();
    }
    c.reset();
  }
  ~PyCollective() { close(); }
};

struct PyCollRequest {
  coll::Request r;
  bool test() {
    nb::gil_scoped_release release;
    return r.test();
  }
  void wait() {
    nb::gil_scoped_release release;
    r.wait();
  }
};

}  // namespace

void bind_coll(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<PyComm>(m, "CollComm")
      .def(
          "__init__",
          [](PyComm* self, std::uint64_t handle, const std::string& engine) {
            check_mpi_running("coll.Comm");
            const coll::EngineKind kind = coll::parse_engine(engine);
            new (self) PyComm();
            nb::gil_scoped_release release;
            self->comm.emplace(comm_from_handle(handle), kind);
          },
          "comm_handle"_a, "engine"_a)
      .def_prop_ro("rank", [](const PyComm& c) { return c.get().rank(); })
      .def_prop_ro("size", [](const PyComm& c) { return c.get().size(); })
      .def_prop_ro("engine", [](const PyComm& c) { return std::string(coll::engine_name(c.get().engine_kind())); })
      .def_prop_ro("closed", [](const PyComm& c) { return !c.comm.has_value(); })
      .def("progress", [](const PyComm& c) {
        const coll::Comm& comm = c.get();
        nb::gil_scoped_release release;
        comm.progress();
      })
      .def("close", &PyComm::close);

  nb::class_<PyCollRequest>(m, "CollRequest")
      .def("test", &PyCollRequest::test)
      .def("wait", &PyCollRequest::wait)
      .def_prop_ro("active", [](const PyCollRequest& r) { return r.r.active(); });

  nb::class_<PyCollective>(m, "Collective")
      .def("start",
           [](const PyCollective& c) {
             const coll::Collective& col = c.get();
             auto r = std::make_unique<PyCollRequest>();
             {
               nb::gil_scoped_release release;
               r->r = col.start();
             }
             return r.release();
           },
           nb::rv_policy::take_ownership)
      .def_prop_ro("description", [](const PyCollective& c) { return c.get().description(); })
      .def_prop_ro("closed", [](const PyCollective& c) { return !c.c.has_value(); })
      .def("close", &PyCollective::close);

  m.def(
      "alltoall",
      [](const PyComm& comm, ConstArray send, Array recv, std::int64_t count, std::size_t elem_size,
         const std::string& algorithm) {
        const coll::Comm& c = comm.get();
        const auto spec = coll::AlgorithmSpec::parse(algorithm);
        auto out = std::make_unique<PyCollective>();
        const void* s = send.data();
        void* r = recv.data();
        {
          nb::gil_scoped_release release;  // building is collective (windows, persistent requests)
          out->c = coll::alltoall(c, s, r, count, elem_size, spec);
        }
        return out.release();
      },
      "comm"_a, "send"_a.noconvert(), "recv"_a.noconvert(), "count"_a, "elem_size"_a, "algorithm"_a,
      nb::rv_policy::take_ownership);

  m.def("parse_algorithm", [](const std::string& name) { return coll::AlgorithmSpec::parse(name).str(); });

  m.def("progress", [] {
    nb::gil_scoped_release release;
    coll::progress_all();
  });
}

}  // namespace nbfft::py
