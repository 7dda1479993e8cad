// nbfft._core.NdPlan: nbfft::nd::Plan on raw buffers. The Python class nbfft.NdPlan checks
// shapes, dtypes and contiguity (collectively) and passes each array as flat bytes; here
// only the pointers are taken, with the GIL released.
#include "common.hpp"

#include "nbfft/nd/plan.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <memory>

namespace nbfft::py {

namespace {

using Bytes = nb::ndarray<std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstBytes = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using cplx = std::complex<double>;

class PyNdPlan {
 public:
  PyNdPlan(std::uint64_t handle, std::vector<std::int64_t> shape, std::vector<int> axes, int kind, int norm,
           int effort, std::vector<int> grid, const std::string& transport) {
    check_mpi_running("NdPlan");
    MPI_Comm comm = comm_from_handle(handle);
    nd::Options o;
    o.kind = kind ? nd::Kind::C2C : nd::Kind::R2C;
    o.norm = static_cast<fft::Norm>(norm);
    o.effort = static_cast<fft::Effort>(effort);
    o.grid = std::move(grid);
    o.transport = transport;
    nb::gil_scoped_release release;  // collective
    p_ = std::make_unique<nd::Plan>(comm, std::move(shape), std::move(axes), o);
  }
  ~PyNdPlan() { close(); }

  void close() { free_or_leak(p_); }
  bool closed() const { return !p_; }
  const nd::Plan& get() const {
    if (!p_) throw Error("NdPlan: used after close()", ErrorCode::InvalidState);
    return *p_;
  }

  // in: the input's bytes; out: the output's (element sizes follow the plan's kind).
  void forward(ConstBytes in, Bytes out) const {
    const nd::Plan& p = get();
    auto* o = reinterpret_cast<cplx*>(out.data());
    nb::gil_scoped_release release;
    if (p.kind() == nd::Kind::R2C)
      p.forward(reinterpret_cast<const double*>(in.data()), in.size() / sizeof(double), o, out.size() / sizeof(cplx));
    else
      p.forward(reinterpret_cast<const cplx*>(in.data()), in.size() / sizeof(cplx), o, out.size() / sizeof(cplx));
  }
  void backward(ConstBytes in, Bytes out) const {
    const nd::Plan& p = get();
    auto* i = reinterpret_cast<const cplx*>(in.data());
    nb::gil_scoped_release release;
    if (p.kind() == nd::Kind::R2C)
      p.backward(i, in.size() / sizeof(cplx), reinterpret_cast<double*>(out.data()), out.size() / sizeof(double));
    else
      p.backward(i, in.size() / sizeof(cplx), reinterpret_cast<cplx*>(out.data()), out.size() / sizeof(cplx));
  }

 private:
  std::unique_ptr<nd::Plan> p_;
};

std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> pair_of(const nd::Box& b) { return {b.lo, b.n}; }

}  // namespace

void bind_nd(nb::module_& m) {
  using namespace nb::literals;
  nb::class_<PyNdPlan>(m, "NdPlan")
      .def(nb::init<std::uint64_t, std::vector<std::int64_t>, std::vector<int>, int, int, int, std::vector<int>,
                    const std::string&>(),
           "comm_handle"_a, "shape"_a, "axes"_a, "kind"_a, "norm"_a, "effort"_a, "grid"_a, "transport"_a)
      .def("close", &PyNdPlan::close)
      .def_prop_ro("closed", &PyNdPlan::closed)
      .def_prop_ro("shape", [](const PyNdPlan& s) { return s.get().shape(); })
      .def_prop_ro("out_shape", [](const PyNdPlan& s) { return s.get().out_shape(); })
      .def_prop_ro("axes", [](const PyNdPlan& s) { return s.get().axes(); })
      .def_prop_ro("grid", [](const PyNdPlan& s) { return s.get().grid(); })
      .def_prop_ro("out_grid", [](const PyNdPlan& s) { return s.get().out_grid(); })
      .def_prop_ro("exchanges", [](const PyNdPlan& s) { return s.get().exchanges(); })
      .def("in_box", [](const PyNdPlan& s, int r) { return pair_of(r < 0 ? s.get().in_box() : s.get().in_box_of_rank(r)); })
      .def("out_box",
           [](const PyNdPlan& s, int r) { return pair_of(r < 0 ? s.get().out_box() : s.get().out_box_of_rank(r)); })
      .def("describe", [](const PyNdPlan& s) { return s.get().describe(); })
      .def("forward", &PyNdPlan::forward)
      .def("backward", &PyNdPlan::backward);
}

}  // namespace nbfft::py
