// The C face of nbfft::nd::Plan (include/nbfft/nbfft_nd.h). Options cross as "key=value"
// text (nbfft/nd/options_text.hpp), so a field added to nd::Options needs no new entry
// point here. Handles are numbers in capi/handles.hpp's table of live objects: a destroyed
// or foreign handle is NBFFT_INVALID_STATE, never a crash.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/nd/field.hpp"
#include "nbfft/nd/options_text.hpp"
#include "nbfft/nd/plan.hpp"

#include <algorithm>
#include <atomic>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using nbfft::Error;
using nbfft::ErrorCode;
using nbfft::capi::guard;
using nbfft::capi::need;
using cplx = std::complex<double>;

using nbfft::capi::nd_plan_of;

bool input_layout(nbfft_layout l) {
  if (l != NBFFT_LAYOUT_INPUT && l != NBFFT_LAYOUT_OUTPUT)
    throw Error("layout " + std::to_string(static_cast<int>(l)) +
                " is neither NBFFT_LAYOUT_INPUT (0) nor NBFFT_LAYOUT_OUTPUT (1)");
  return l == NBFFT_LAYOUT_INPUT;
}

// A user box from C: lo and n, ndim entries each; both NULL: none (the plan's own).
struct BoxPtrs {
  const int64_t *lo = nullptr, *n = nullptr;
};

// Where a plan's options come from: an options handle (nbfft_plan_create_nd, the one
// convention) or key=value text (nbfft_nd_plan_create, its shorthand).
struct OptionsFrom {
  const char* text = nullptr;
  bool handle_given = false;
  nbfft_options handle = nullptr;
  nbfft::nd::Options read() const {
    if (handle_given) return nbfft::capi::opts_of(handle).for_nd();  // a stale handle: InvalidState
    nbfft::nd::Options o;
    if (text) nbfft::nd::apply_options(o, text);
    return o;
  }
};

OptionsFrom text_options(const char* text) { return {text, false, nullptr}; }
OptionsFrom handle_options(nbfft_options h) { return {nullptr, true, h}; }

void create(const char* what, MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
            const OptionsFrom& options, nbfft_nd_plan* plan, const char* binding_error = nullptr, BoxPtrs in = {},
            BoxPtrs out = {}) {
  nbfft::check_mpi_running(what);
  if (comm == MPI_COMM_NULL) throw Error("the communicator is MPI_COMM_NULL");
  int inter = 0;
  nbfft::check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error("an intercommunicator cannot hold a plan; use an intracommunicator");
  std::vector<std::int64_t> s;
  std::vector<int> a;
  nbfft::nd::Options o;
  // Anything one rank gets wrong locally fails every rank before the plan's collectives.
  nbfft::agree(comm, [&] {
    need(plan, "the plan pointer");
    if (binding_error && *binding_error) throw Error(binding_error);
    if (ndim < 1) throw Error("ndim is " + std::to_string(ndim) + "; an array has at least one axis");
    need(shape, "shape");
    s.assign(shape, shape + ndim);
    if (axes) {
      if (naxes < 1) throw Error("naxes is " + std::to_string(naxes) + "; give at least one axis (or axes NULL: all)");
      a.assign(axes, axes + naxes);
    } else {
      for (int d = 0; d < ndim; ++d) a.push_back(d);
    }
    o = options.read();
    auto pair = [](const BoxPtrs& b, const std::string& lo, const std::string& n) {
      if ((b.lo == nullptr) != (b.n == nullptr))
        throw Error((b.lo ? n : lo) + " is NULL but " + (b.lo ? lo : n) + " is not (both NULL: the plan's own block)");
    };
    pair(in, "in_lo", "in_n");
    pair(out, "out_lo", "out_n");
  });
  auto box = [&](const BoxPtrs& b) -> std::optional<nbfft::nd::Box> {
    if (!b.lo) return std::nullopt;
    return nbfft::nd::Box{{b.lo, b.lo + ndim}, {b.n, b.n + ndim}, {}};
  };
  *plan = nullptr;
  nbfft::nd::Plan p(comm, s, a, box(in), box(out), o);
  o = p.options();  // what was made (the grid, the tuner's choice), for nbfft_nd_plan_options
  MPI_Comm dup = MPI_COMM_NULL;
  nbfft::check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  *plan = nbfft::capi::add_handle<nbfft_nd_plan>(
      std::unique_ptr<nbfft_nd_plan_s>(new nbfft_nd_plan_s{std::move(p), std::move(o), dup}));
}

MPI_Comm from_fortran(const char* what, MPI_Fint comm) {
  nbfft::check_mpi_running(what);
  const MPI_Comm c = MPI_Comm_f2c(comm);
  // MPI_Comm_f2c answers MPI_COMM_NULL for a handle it does not know (Open MPI).
  if (c == MPI_COMM_NULL && comm != MPI_Comm_c2f(MPI_COMM_NULL))
    throw Error("MPI_Comm_f2c: Fortran handle " + std::to_string(comm) + " names no communicator", ErrorCode::Mpi);
  return c;
}

void fill(const nbfft::nd::Box& b, int64_t* lo, int64_t* n) {
  for (std::size_t d = 0; d < b.lo.size(); ++d) {
    if (lo) lo[d] = b.lo[d];
    if (n) n[d] = b.n[d];
  }
}

// The C API sees bytes: anything but exactly this rank's box is another element type or
// another box. Agreed, so one rank's mistake fails every rank before anything moves.
// Element sizes of a plan's input and spectrum: real or complex, float or double.
struct Elements {
  std::size_t in, out;
  const char *in_name, *out_name;
};
Elements elements_of(const nbfft::nd::Plan& q) {
  const bool single = q.precision() == nbfft::fft::Precision::Single;
  const bool real_in = q.kind() == nbfft::nd::Kind::R2C;
  const char* r = single ? "float" : "double";
  const char* c = single ? "complex float" : "complex double";
  return {nbfft::nd::element_bytes(q, nbfft::nd::Layout::Input), nbfft::nd::element_bytes(q, nbfft::nd::Layout::Output),
          real_in ? r : c, q.real_spectrum() ? r : c};
}

// The C API sees bytes: anything but exactly this rank's box is another element type or
// another box. Agreed, so one rank's mistake fails every rank before anything moves; so is
// `missing`, the name of a required pointer that is NULL on this rank (nullptr: none).
// fields = 0 (a multi-field call of none) checks no sizes but still agrees.
void check_bytes(nbfft_nd_plan_s& p, bool forward, const void* in, std::size_t in_b, const void* out,
                 std::size_t out_b, const char* missing = nullptr, std::size_t fields = 1) {
  nbfft::agree(p.comm, [&] {
    if (missing) throw Error(std::string(missing) + " is NULL");
    if (fields == 0) return;
    const Elements e = elements_of(p.plan);
    const std::size_t want_in = p.plan.in_count() * e.in, want_out = p.plan.out_count() * e.out;
    const std::size_t want[2] = {forward ? want_in : want_out, forward ? want_out : want_in};
    const std::size_t have[2] = {in_b, out_b};
    const void* ptr[2] = {in, out};
    const char* names[2] = {"in", "out"};
    for (int s = 0; s < 2; ++s) {
      const bool spectrum = (s == 0) != forward;
      const std::string box = spectrum ? std::string("this rank's spectrum box (") + e.out_name + ")"
                                       : std::string("this rank's input box (") + e.in_name + ")";
      // In place (one array in and out) a size of at least nbfft_nd_plan_memory's inplace_bytes
      // also serves: a lean plan's stages may need more than either box.
      const bool in_place_size = in == out && in && have[s] >= p.plan.inplace_bytes() && have[s] >= want[s];
      if (have[s] != want[s] && !in_place_size)
        throw Error(std::string(names[s]) + "_bytes is " + std::to_string(have[s]) + " but the plan (" +
                    nbfft::nd::name(p.plan.kind()) + ") needs exactly " + std::to_string(want[s]) + " for " + box);
      if (want[s] > 0 && !ptr[s]) throw Error(std::string(names[s]) + " is NULL");
    }
  });
}

// The typed call for the plan's element types: R is the real type (float or double).
// in_b, out_b: the bytes given (check_bytes: the boxes', or in place at least the in-place size).
template <typename R>
void run(const nbfft::nd::Plan& q, bool forward, const void* in, std::size_t in_b, void* out, std::size_t out_b) {
  using C = std::complex<R>;
  const bool real_in = q.kind() == nbfft::nd::Kind::R2C, real_out = q.real_spectrum();
  const std::size_t data_b = forward ? in_b : out_b, spec_b = forward ? out_b : in_b;
  const std::size_t ni = data_b / (real_in ? sizeof(R) : sizeof(C)), no = spec_b / (real_out ? sizeof(R) : sizeof(C));
  if (real_out && forward)
    q.forward(static_cast<const R*>(in), ni, static_cast<R*>(out), no);
  else if (real_out)
    q.backward(static_cast<const R*>(in), no, static_cast<R*>(out), ni);
  else if (forward && real_in)
    q.forward(static_cast<const R*>(in), ni, static_cast<C*>(out), no);
  else if (forward)
    q.forward(static_cast<const C*>(in), ni, static_cast<C*>(out), no);
  else if (real_in)
    q.backward(static_cast<const C*>(in), no, static_cast<R*>(out), ni);
  else
    q.backward(static_cast<const C*>(in), no, static_cast<C*>(out), ni);
}

// Calls f(I*, O*) with null pointers of the call's element types, input I and output O,
// for this plan and direction (the split-phase and multi-field calls are templates on them).
template <typename R, typename F>
void with_types_of(const nbfft::nd::Plan& q, bool forward, F&& f) {
  using C = std::complex<R>;
  if (q.real_spectrum())
    f(static_cast<R*>(nullptr), static_cast<R*>(nullptr));
  else if (q.kind() == nbfft::nd::Kind::C2C)
    f(static_cast<C*>(nullptr), static_cast<C*>(nullptr));
  else if (forward)
    f(static_cast<R*>(nullptr), static_cast<C*>(nullptr));
  else
    f(static_cast<C*>(nullptr), static_cast<R*>(nullptr));
}
template <typename F>
void with_types(const nbfft::nd::Plan& q, bool forward, F&& f) {
  if (q.precision() == nbfft::fft::Precision::Single)
    with_types_of<float>(q, forward, f);
  else
    with_types_of<double>(q, forward, f);
}

nbfft_status transform_many(const char* fn, bool forward, nbfft_nd_plan plan, size_t nv, const void* const* in,
                            size_t in_bytes, void* const* out, size_t out_bytes) {
  return guard(fn, [&] {
    auto& p = nd_plan_of(plan);
    // Sizes per field, checked once (on every rank, nv = 0 too: nv is agreed by the plan's
    // call, with NULL fields and shared outputs).
    const char* missing = nv == 0 ? nullptr : !in ? "the input pointer array" : !out ? "the output pointer array" : nullptr;
    const bool lists = nv > 0 && in && out;
    check_bytes(p, forward, lists ? in[0] : nullptr, in_bytes, lists ? out[0] : nullptr, out_bytes, missing, nv);
    with_types(p.plan, forward, [&](auto i, auto o) {
      using I = std::remove_pointer_t<decltype(i)>;
      using O = std::remove_pointer_t<decltype(o)>;
      const std::pair<std::size_t, std::size_t> n{in_bytes / sizeof(I), out_bytes / sizeof(O)};  // as check_bytes allowed
      std::vector<const I*> vi(nv);
      std::vector<O*> vo(nv);
      for (std::size_t k = 0; k < nv; ++k) vi[k] = static_cast<const I*>(in[k]), vo[k] = static_cast<O*>(out[k]);
      if (forward)
        p.plan.forward_many(vi, n.first, vo, n.second);
      else
        p.plan.backward_many(vi, n.first, vo, n.second);
    });
  });
}

nbfft_status transform_start(const char* fn, bool forward, nbfft_nd_plan plan, const void* in, size_t in_bytes,
                             void* out, size_t out_bytes, nbfft_nd_pending* pending) {
  return guard(fn, [&] {
    auto& p = nd_plan_of(plan);
    check_bytes(p, forward, in, in_bytes, out, out_bytes, pending ? nullptr : "the pending pointer");
    *pending = nullptr;
    nbfft::Request r;
    with_types(p.plan, forward, [&](auto i, auto o) {
      using I = std::remove_pointer_t<decltype(i)>;
      using O = std::remove_pointer_t<decltype(o)>;
      const std::pair<std::size_t, std::size_t> n{in_bytes / sizeof(I), out_bytes / sizeof(O)};  // as check_bytes allowed
      r = forward ? p.plan.forward_start(static_cast<const I*>(in), n.first, static_cast<O*>(out), n.second)
                  : p.plan.backward_start(static_cast<const I*>(in), n.first, static_cast<O*>(out), n.second);
    });
    *pending = nbfft::capi::add_request(std::move(r), p.open);
  });
}

nbfft_status transform(const char* fn, bool forward, nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out,
                       size_t out_bytes) {
  return guard(fn, [&] {
    auto& p = nd_plan_of(plan);
    check_bytes(p, forward, in, in_bytes, out, out_bytes);
    if (p.plan.precision() == nbfft::fft::Precision::Single)
      run<float>(p.plan, forward, in, in_bytes, out, out_bytes);
    else
      run<double>(p.plan, forward, in, in_bytes, out, out_bytes);
  });
}

}  // namespace

extern "C" {

nbfft_status nbfft_nd_plan_create(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                  const char* options, nbfft_nd_plan* plan) {
  return guard("nbfft_nd_plan_create",
               [&] { create("nbfft_nd_plan_create", comm, ndim, shape, naxes, axes, text_options(options), plan); });
}

nbfft_status nbfft_nd_plan_create_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                    const char* options, const char* error, nbfft_nd_plan* plan) {
  return guard("nbfft_nd_plan_create_f", [&] {
    create("nbfft_nd_plan_create_f", from_fortran("nbfft_nd_plan_create_f", comm), ndim, shape, naxes, axes,
           text_options(options), plan, error);
  });
}

nbfft_status nbfft_nd_plan_create_boxes(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                        const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                        const int64_t* out_n, const char* options, nbfft_nd_plan* plan) {
  return guard("nbfft_nd_plan_create_boxes", [&] {
    create("nbfft_nd_plan_create_boxes", comm, ndim, shape, naxes, axes, text_options(options), plan, nullptr,
           {in_lo, in_n}, {out_lo, out_n});
  });
}

nbfft_status nbfft_nd_plan_create_boxes_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                          const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                          const int64_t* out_n, const char* options, const char* error,
                                          nbfft_nd_plan* plan) {
  return guard("nbfft_nd_plan_create_boxes_f", [&] {
    create("nbfft_nd_plan_create_boxes_f", from_fortran("nbfft_nd_plan_create_boxes_f", comm), ndim, shape, naxes,
           axes, text_options(options), plan, error, {in_lo, in_n}, {out_lo, out_n});
  });
}

nbfft_status nbfft_plan_create_nd(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                  nbfft_options options, nbfft_nd_plan* plan) {
  return guard("nbfft_plan_create_nd",
               [&] { create("nbfft_plan_create_nd", comm, ndim, shape, naxes, axes, handle_options(options), plan); });
}

nbfft_status nbfft_plan_create_nd_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                    nbfft_options options, const char* error, nbfft_nd_plan* plan) {
  return guard("nbfft_plan_create_nd_f", [&] {
    create("nbfft_plan_create_nd_f", from_fortran("nbfft_plan_create_nd_f", comm), ndim, shape, naxes, axes,
           handle_options(options), plan, error);
  });
}

nbfft_status nbfft_plan_create_nd_boxes(MPI_Comm comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                        const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                        const int64_t* out_n, nbfft_options options, nbfft_nd_plan* plan) {
  return guard("nbfft_plan_create_nd_boxes", [&] {
    create("nbfft_plan_create_nd_boxes", comm, ndim, shape, naxes, axes, handle_options(options), plan, nullptr,
           {in_lo, in_n}, {out_lo, out_n});
  });
}

nbfft_status nbfft_plan_create_nd_boxes_f(MPI_Fint comm, int ndim, const int64_t* shape, int naxes, const int* axes,
                                          const int64_t* in_lo, const int64_t* in_n, const int64_t* out_lo,
                                          const int64_t* out_n, nbfft_options options, const char* error,
                                          nbfft_nd_plan* plan) {
  return guard("nbfft_plan_create_nd_boxes_f", [&] {
    create("nbfft_plan_create_nd_boxes_f", from_fortran("nbfft_plan_create_nd_boxes_f", comm), ndim, shape, naxes,
           axes, handle_options(options), plan, error, {in_lo, in_n}, {out_lo, out_n});
  });
}

nbfft_status nbfft_nd_plan_destroy(nbfft_nd_plan* plan) {
  return guard("nbfft_nd_plan_destroy", [&] {
    need(plan, "the plan pointer");
    if (!*plan) return;
    // A transform in flight uses the plan's exchanges and the caller's arrays until its wait.
    if (const auto* s = nbfft::capi::find_handle<nbfft_nd_plan_s>(*plan))
      nbfft::capi::refuse_while_open(*s->open, "nbfft_wait (nbfft_nd_wait)");
    std::unique_ptr<nbfft_nd_plan_s> p = nbfft::capi::remove_handle<nbfft_nd_plan_s>(*plan);
    if (!p) throw Error(std::string("the N-D plan handle") + nbfft::capi::kStale, ErrorCode::InvalidState);
    *plan = nullptr;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
  });
}

nbfft_status nbfft_nd_plan_axes(nbfft_nd_plan plan, int* ndim, int* naxes, int* axes) {
  return guard("nbfft_nd_plan_axes", [&] {
    const auto& p = nd_plan_of(plan).plan;
    if (ndim) *ndim = static_cast<int>(p.shape().size());
    if (naxes) *naxes = static_cast<int>(p.axes().size());
    if (axes)
      for (std::size_t i = 0; i < p.axes().size(); ++i) axes[i] = p.axes()[i];
  });
}

nbfft_status nbfft_nd_plan_shape(nbfft_nd_plan plan, int64_t* in_shape, int64_t* out_shape) {
  return guard("nbfft_nd_plan_shape", [&] {
    const auto& p = nd_plan_of(plan).plan;
    const auto out = p.out_shape();
    for (std::size_t d = 0; d < out.size(); ++d) {
      if (in_shape) in_shape[d] = p.shape()[d];
      if (out_shape) out_shape[d] = out[d];
    }
  });
}

nbfft_status nbfft_nd_plan_box(nbfft_nd_plan plan, nbfft_layout layout, int64_t* lo, int64_t* n) {
  return guard("nbfft_nd_plan_box", [&] {
    const auto& p = nd_plan_of(plan).plan;
    fill(input_layout(layout) ? p.in_box() : p.out_box(), lo, n);
  });
}

nbfft_status nbfft_nd_plan_box_of(nbfft_nd_plan plan, nbfft_layout layout, int rank, int64_t* lo, int64_t* n) {
  return guard("nbfft_nd_plan_box_of", [&] {
    const auto& p = nd_plan_of(plan).plan;
    const bool in = input_layout(layout);
    if (rank < 0 || rank >= p.size())
      throw Error("rank " + std::to_string(rank) + " is not in the plan's communicator (0.." +
                  std::to_string(p.size() - 1) + ")");
    fill(in ? p.in_box_of_rank(rank) : p.out_box_of_rank(rank), lo, n);
  });
}

nbfft_status nbfft_nd_plan_out_order(nbfft_nd_plan plan, int* order) {
  return guard("nbfft_nd_plan_out_order", [&] {
    const auto& p = nd_plan_of(plan).plan;
    need(order, "order");
    const std::vector<int>& o = p.out_order();
    for (std::size_t i = 0; i < p.shape().size(); ++i) order[i] = o.empty() ? static_cast<int>(i) : o[i];
  });
}

nbfft_status nbfft_nd_plan_counts(nbfft_nd_plan plan, int64_t* in_count, int64_t* out_count) {
  return guard("nbfft_nd_plan_counts", [&] {
    const auto& p = nd_plan_of(plan).plan;
    if (in_count) *in_count = static_cast<int64_t>(p.in_count());
    if (out_count) *out_count = static_cast<int64_t>(p.out_count());
  });
}

nbfft_status nbfft_nd_plan_memory(nbfft_nd_plan plan, size_t* inplace_bytes, size_t* workspace_bytes, int* lean) {
  return guard("nbfft_nd_plan_memory", [&] {
    const auto& p = nd_plan_of(plan).plan;
    if (inplace_bytes) *inplace_bytes = p.inplace_bytes();
    if (workspace_bytes) *workspace_bytes = p.workspace_bytes();
    if (lean) *lean = p.lean_workspace() ? 1 : 0;
  });
}

nbfft_status nbfft_nd_plan_elements(nbfft_nd_plan plan, int* in_complex) {
  return guard("nbfft_nd_plan_elements", [&] {
    const auto& p = nd_plan_of(plan).plan;
    if (in_complex) *in_complex = p.kind() == nbfft::nd::Kind::C2C ? 1 : 0;
  });
}

nbfft_status nbfft_nd_plan_element_types(nbfft_nd_plan plan, int* in_complex, int* out_complex, int* real_bytes) {
  return guard("nbfft_nd_plan_element_types", [&] {
    const auto& p = nd_plan_of(plan).plan;
    const std::size_t real = p.precision() == nbfft::fft::Precision::Single ? sizeof(float) : sizeof(double);
    if (in_complex) *in_complex = nbfft::nd::element_bytes(p, nbfft::nd::Layout::Input) > real;
    if (out_complex) *out_complex = nbfft::nd::element_bytes(p, nbfft::nd::Layout::Output) > real;
    if (real_bytes) *real_bytes = static_cast<int>(real);
  });
}

nbfft_status nbfft_nd_plan_options(nbfft_nd_plan plan, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_nd_plan_options", [&] {
    nbfft::capi::copy_out(nbfft::nd::options_text(nd_plan_of(plan).options), buffer, size, needed);
  });
}

nbfft_status nbfft_nd_plan_describe(nbfft_nd_plan plan, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_nd_plan_describe",
               [&] { nbfft::capi::copy_out(nd_plan_of(plan).plan.describe(), buffer, size, needed); });
}

nbfft_status nbfft_nd_forward(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
  return transform("nbfft_nd_forward", true, plan, in, in_bytes, out, out_bytes);
}

nbfft_status nbfft_nd_backward(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
  return transform("nbfft_nd_backward", false, plan, in, in_bytes, out, out_bytes);
}

nbfft_status nbfft_nd_forward_many(nbfft_nd_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                   void* const* out, size_t out_bytes) {
  return transform_many("nbfft_nd_forward_many", true, plan, nv, in, in_bytes, out, out_bytes);
}

nbfft_status nbfft_nd_backward_many(nbfft_nd_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                    void* const* out, size_t out_bytes) {
  return transform_many("nbfft_nd_backward_many", false, plan, nv, in, in_bytes, out, out_bytes);
}

nbfft_status nbfft_nd_forward_start(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                    nbfft_nd_pending* pending) {
  return transform_start("nbfft_nd_forward_start", true, plan, in, in_bytes, out, out_bytes, pending);
}

nbfft_status nbfft_nd_backward_start(nbfft_nd_plan plan, const void* in, size_t in_bytes, void* out,
                                     size_t out_bytes, nbfft_nd_pending* pending) {
  return transform_start("nbfft_nd_backward_start", false, plan, in, in_bytes, out, out_bytes, pending);
}

nbfft_status nbfft_nd_test(nbfft_nd_pending pending, int* done) { return nbfft_test(pending, done); }

nbfft_status nbfft_nd_wait(nbfft_nd_pending* pending) {
  return guard("nbfft_nd_wait", [&] { nbfft::capi::wait_request(pending); });
}

nbfft_status nbfft_nd_plan_rank(nbfft_nd_plan plan, int* rank, int* size) {
  return guard("nbfft_nd_plan_rank", [&] {
    const auto& p = nd_plan_of(plan).plan;
    if (rank) *rank = p.rank();
    if (size) *size = p.size();
  });
}

nbfft_status nbfft_nd_gather(nbfft_nd_plan plan, nbfft_layout layout, const void* local, size_t local_bytes,
                             void* global, size_t global_bytes, int root) {
  return guard("nbfft_nd_gather", [&] {
    auto& p = nd_plan_of(plan);
    nbfft::nd::gather_bytes(p.plan, p.comm, static_cast<nbfft::nd::Layout>(layout), local, local_bytes, global,
                            global_bytes, root);
  });
}

nbfft_status nbfft_nd_scatter(nbfft_nd_plan plan, nbfft_layout layout, const void* global, size_t global_bytes,
                              void* local, size_t local_bytes, int root) {
  return guard("nbfft_nd_scatter", [&] {
    auto& p = nd_plan_of(plan);
    nbfft::nd::scatter_bytes(p.plan, p.comm, static_cast<nbfft::nd::Layout>(layout), global, global_bytes, local,
                             local_bytes, root);
  });
}

nbfft_status nbfft_nd_wavenumbers(nbfft_nd_plan plan, int axis, double length, double* k, size_t count) {
  return guard("nbfft_nd_wavenumbers", [&] {
    const std::vector<double> w = nbfft::nd::wavenumbers(nd_plan_of(plan).plan, axis, length);
    if (count != w.size())
      throw Error("count is " + std::to_string(count) + " but this rank's spectrum block has " +
                  std::to_string(w.size()) + " points along axis " + std::to_string(axis));
    if (!w.empty()) need(k, "k");
    std::copy(w.begin(), w.end(), k);
  });
}

nbfft_status nbfft_nd_plan_agree(nbfft_nd_plan plan, const char* what, const char* error) {
  return guard(what && *what ? what : "nbfft_nd_plan_agree",
               [&] { nbfft::agree_message(nd_plan_of(plan).comm, error ? error : ""); });
}

}  // extern "C"
