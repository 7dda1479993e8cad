// nbfft._core.NdPlan: nbfft::nd::Plan on raw buffers. The Python class nbfft.NdPlan checks
// shapes, dtypes and contiguity (collectively) and passes each array as flat bytes; here
// only the pointers are taken, with the GIL released.
#include "common.hpp"

#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/tune.hpp"
#include "nbfft/nd/plan.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <memory>
#include <sstream>

namespace nbfft::py {

namespace {

using Bytes = nb::ndarray<std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstBytes = nb::ndarray<const std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using cplx = std::complex<double>;

// The pointers of a list of arrays as T*.
template <typename T, typename P>
std::vector<T*> as(const std::vector<P>& v) {
  std::vector<T*> r;
  for (P x : v) r.push_back(static_cast<T*>(x));
  return r;
}

// Calls f(In{}, Out{}) with the plan's forward element types.
template <typename F>
void with_types(const nd::Plan& p, F&& f) {
  using cplxf = std::complex<float>;
  const bool single = p.precision() == fft::Precision::Single;
  if (p.real_spectrum())
    single ? f(float{}, float{}) : f(double{}, double{});
  else if (p.kind() == nd::Kind::R2C)
    single ? f(float{}, cplxf{}) : f(double{}, cplx{});
  else
    single ? f(cplxf{}, cplxf{}) : f(cplx{}, cplx{});
}

// A started transform (nd::Plan::forward_start / backward_start); nbfft.NdPending holds the
// arrays and the plan alive until it is waited for.

// A user box from Python: (start, shape), one entry per axis.
using BoxArg = std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>;

class PyNdPlan {
 public:
  // options: key=value pairs of the option table (nbfft.NdPlan builds them from its
  // arguments, each word checked on every rank first).
  // log: called with each of the tuner's events while this plan is made (Options::tune), or None.
  PyNdPlan(std::uint64_t handle, std::vector<std::int64_t> shape, std::vector<int> axes, const std::string& options,
           std::optional<BoxArg> in_box, std::optional<BoxArg> out_box, nb::object log) {
    check_mpi_running("NdPlan");
    MPI_Comm comm = comm_from_handle(handle);
    nd::Options o;
    nd::apply_options(o, options);
    TuneLogScope scope(o.tune != fft::TuneEffort::None ? std::move(log) : nb::none());
    nb::gil_scoped_release release;  // collective
    auto box = [](const std::optional<BoxArg>& b) -> std::optional<nd::Box> {
      if (!b) return std::nullopt;
      return nd::Box{b->first, b->second, {}};
    };
    p_ = std::make_unique<nd::Plan>(comm, std::move(shape), std::move(axes), box(in_box), box(out_box), o);
  }
  ~PyNdPlan() { close(); }

  void close() { free_or_leak(p_); }
  bool closed() const { return !p_; }
  const nd::Plan& get() const {
    if (!p_) throw Error("NdPlan: used after close()", ErrorCode::InvalidState);
    return *p_;
  }

  // in: the input's bytes; out: the output's (element types follow the plan's kind,
  // precision and kinds).
  void forward(ConstBytes in, Bytes out) const {
    const nd::Plan& p = get();
    nb::gil_scoped_release release;
    with_types(p, [&](auto i, auto o) {
      using In = decltype(i);
      using Out = decltype(o);
      p.forward(reinterpret_cast<const In*>(in.data()), in.size() / sizeof(In), reinterpret_cast<Out*>(out.data()),
                out.size() / sizeof(Out));
    });
  }
  void backward(ConstBytes in, Bytes out) const {
    const nd::Plan& p = get();
    nb::gil_scoped_release release;
    with_types(p, [&](auto i, auto o) {
      using In = decltype(i);
      using Out = decltype(o);
      p.backward(reinterpret_cast<const Out*>(in.data()), in.size() / sizeof(Out), reinterpret_cast<In*>(out.data()),
                 out.size() / sizeof(In));
    });
  }
  // Split phase: forward or backward up to the first exchange, as forward / backward.
  PyRequest* start(bool fwd, ConstBytes in, Bytes out) const {
    const nd::Plan& p = get();
    Request r;
    {
    nb::gil_scoped_release release;
    with_types(p, [&](auto i, auto o) {
      using In = decltype(i);
      using Out = decltype(o);
      if (fwd)
        r = p.forward_start(reinterpret_cast<const In*>(in.data()), in.size() / sizeof(In),
                            reinterpret_cast<Out*>(out.data()), out.size() / sizeof(Out));
      else
        r = p.backward_start(reinterpret_cast<const Out*>(in.data()), in.size() / sizeof(Out),
                             reinterpret_cast<In*>(out.data()), out.size() / sizeof(In));
    });
    }
    return new PyRequest(std::move(r), nb::none());
  }
  // Several fields: the arrays' bytes, as forward / backward, one list per side.
  void many(bool fwd, const std::vector<ConstBytes>& in, const std::vector<Bytes>& out) const {
    const nd::Plan& p = get();
    std::vector<const void*> ip;
    std::vector<void*> op;
    std::size_t in_b = in.empty() ? 0 : in[0].size(), out_b = out.empty() ? 0 : out[0].size();
    for (const auto& a : in) {
      ip.push_back(a.data());
      in_b = std::min<std::size_t>(in_b, a.size());
    }
    for (const auto& a : out) {
      op.push_back(a.data());
      out_b = std::min<std::size_t>(out_b, a.size());
    }
    nb::gil_scoped_release release;
    with_types(p, [&](auto i, auto o) {
      using In = decltype(i);
      using Out = decltype(o);
      if (fwd)
        p.forward_many(as<const In>(ip), in_b / sizeof(In), as<Out>(op), out_b / sizeof(Out));
      else
        p.backward_many(as<const Out>(ip), in_b / sizeof(Out), as<In>(op), out_b / sizeof(In));
    });
  }

 private:
  std::unique_ptr<nd::Plan> p_;
};

std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> pair_of(const nd::Box& b) { return {b.lo, b.n}; }

}  // namespace

const nd::Plan& nd_plan_of(nb::handle plan) { return nb::cast<const PyNdPlan&>(plan).get(); }

void bind_nd(nb::module_& m) {
  using namespace nb::literals;

  nb::class_<PyNdPlan>(m, "NdPlan")
      .def(nb::init<std::uint64_t, std::vector<std::int64_t>, std::vector<int>, const std::string&,
                    std::optional<BoxArg>, std::optional<BoxArg>, nb::object>(),
           "comm_handle"_a, "shape"_a, "axes"_a, "options"_a, "in_box"_a.none(), "out_box"_a.none(),
           "log"_a.none() = nb::none())
      .def("close", &PyNdPlan::close)
      .def_prop_ro("closed", &PyNdPlan::closed)
      .def_prop_ro("options_text", [](const PyNdPlan& s) { return nd::options_text(s.get().options()); })
      .def_prop_ro("shape", [](const PyNdPlan& s) { return s.get().shape(); })
      .def_prop_ro("out_shape", [](const PyNdPlan& s) { return s.get().out_shape(); })
      .def_prop_ro("axes", [](const PyNdPlan& s) { return s.get().axes(); })
      .def_prop_ro("grid", [](const PyNdPlan& s) { return s.get().grid(); })
      .def_prop_ro("out_grid", [](const PyNdPlan& s) { return s.get().out_grid(); })
      .def_prop_ro("exchanges", [](const PyNdPlan& s) { return s.get().exchanges(); })
      .def_prop_ro("batch_axis", [](const PyNdPlan& s) { return s.get().batch_axis(); })
      .def_prop_ro("fields_in_flight", [](const PyNdPlan& s) { return s.get().fields_in_flight(); })
      .def_prop_ro("out_order", [](const PyNdPlan& s) { return s.get().out_order(); })
      .def_prop_ro("transport", [](const PyNdPlan& s) { return s.get().options().transport; })
      .def_prop_ro("user_boxes", [](const PyNdPlan& s) { return s.get().user_boxes(); })
      .def_prop_ro("lean_workspace", [](const PyNdPlan& s) { return s.get().lean_workspace(); })
      .def_prop_ro("inplace_bytes", [](const PyNdPlan& s) { return s.get().inplace_bytes(); })
      .def_prop_ro("workspace_bytes", [](const PyNdPlan& s) { return s.get().workspace_bytes(); })
      .def_prop_ro("tune_report",
                   [](const PyNdPlan& s) -> std::optional<std::string> {
                     const nd::TuneReport* r = s.get().tune_report();
                     if (!r) return std::nullopt;
                     std::ostringstream os;
                     os << *r;
                     return os.str();
                   })
      .def("in_box", [](const PyNdPlan& s, int r) { return pair_of(r < 0 ? s.get().in_box() : s.get().in_box_of_rank(r)); })
      .def("out_box",
           [](const PyNdPlan& s, int r) { return pair_of(r < 0 ? s.get().out_box() : s.get().out_box_of_rank(r)); })
      .def("describe", [](const PyNdPlan& s) { return s.get().describe(); })
      .def("forward", &PyNdPlan::forward)
      .def("backward", &PyNdPlan::backward)
      .def("start", &PyNdPlan::start, nb::rv_policy::take_ownership)
      .def("forward_many", [](const PyNdPlan& s, const std::vector<ConstBytes>& in,
                              const std::vector<Bytes>& out) { s.many(true, in, out); })
      .def("backward_many", [](const PyNdPlan& s, const std::vector<ConstBytes>& in,
                               const std::vector<Bytes>& out) { s.many(false, in, out); });
}

}  // namespace nbfft::py
