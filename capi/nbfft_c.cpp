// The C API (nbfft/nbfft.h) over nbfft::fft::Plan and the field helpers. Each entry point
// is one guard() around the C++ call: handles are checked first (NULL = invalid state),
// local argument checks that could differ between ranks are agreed on the communicator
// before any collective, so every rank returns the same status.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/fft/field.hpp"
#include "nbfft/fft/option_table.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/tune.hpp"
#include "nbfft/fft/wisdom.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <optional>
#include <string>
#include <unordered_map>

namespace nbfft::capi {

namespace {
thread_local std::string g_last_error;
}

void set_last_error(std::string message) noexcept {
  try {
    g_last_error = std::move(message);
  } catch (...) {
    g_last_error.clear();
  }
}

MPI_Comm comm_of_fortran(const char* what, MPI_Fint comm) {
  nbfft::check_mpi_running(what);
  const MPI_Comm c = MPI_Comm_f2c(comm);
  if (c == MPI_COMM_NULL && comm != MPI_Comm_c2f(MPI_COMM_NULL))
    throw Error("MPI_Comm_f2c: Fortran handle " + std::to_string(comm) + " names no communicator",
                nbfft::ErrorCode::Mpi);
  return c;
}

namespace {

using fft::Layout;

Layout layout_of(nbfft_layout l) {
  if (l != NBFFT_LAYOUT_INPUT && l != NBFFT_LAYOUT_OUTPUT)
    throw Error("layout " + std::to_string(static_cast<int>(l)) +
                " is neither NBFFT_LAYOUT_INPUT (0) nor NBFFT_LAYOUT_OUTPUT (1)");
  return static_cast<Layout>(l);
}

// A side's user box from the C arrays: none when lo and n are both NULL; order NULL is
// x fastest ({0, 1, 2}).
std::optional<fft::Box3> user_box(const int64_t lo[3], const int64_t n[3], const int order[3], const char* what) {
  if (!lo && !n) return std::nullopt;
  if (!lo || !n)
    throw Error(std::string(what) + ": give both lo and n (or neither, for the plan's own pencil)");
  fft::Box3 b;
  for (int d = 0; d < 3; ++d) {
    b.lo[d] = lo[d];
    b.n[d] = n[d];
    if (order) b.order[d] = order[d];
  }
  return b;
}

// The C arrays of nbfft_plan_create_boxes.
struct BoxArgs {
  const int64_t *in_lo, *in_n;
  const int* in_order;
  const int64_t *out_lo, *out_n;
  const int* out_order;
};

void create_plan(MPI_Comm comm, const int64_t n[3], nbfft_options options, nbfft_plan* plan,
                 const BoxArgs* boxes = nullptr) {
  check_mpi_running("nbfft_plan_create");
  if (comm == MPI_COMM_NULL) throw Error("the communicator is MPI_COMM_NULL");
  int inter = 0;
  check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
  if (inter) throw Error("an intercommunicator cannot hold a plan; use an intracommunicator");
  const fft::Options* o = nullptr;
  std::optional<fft::Box3> in, out;
  agree(comm, [&] {
    need(n, "n");
    need(plan, "the plan pointer");
    o = &opts_of(options).for_3d();  // a stale handle, or a value only N-D plans take, on one rank fails every rank
    if (boxes) {  // a half-given box on one rank fails every rank too
      in = user_box(boxes->in_lo, boxes->in_n, boxes->in_order, "in box");
      out = user_box(boxes->out_lo, boxes->out_n, boxes->out_order, "out box");
    }
  });
  *plan = nullptr;
  fft::Plan p = boxes ? fft::Plan(comm, {n[0], n[1], n[2]}, in, out, *o) : fft::Plan(comm, {n[0], n[1], n[2]}, *o);
  MPI_Comm dup = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  *plan = add_handle<nbfft_plan>(std::unique_ptr<nbfft_plan_s>(new nbfft_plan_s{std::move(p), dup}));
}

void fill_box(const fft::Box3& b, int64_t lo[3], int64_t n[3], int order[3]) {
  for (int d = 0; d < 3; ++d) {
    if (lo) lo[d] = b.lo[d];
    if (n) n[d] = b.n[d];
    if (order) order[d] = b.order[d];
  }
}

// What the plan calls its element types in direction d ("single precision r2c (float in,
// complex float out)"), read from the plan's one rule of call shapes.
std::string plan_words(const fft::Plan& plan, fft::Direction d) {
  const auto& o = plan.options();
  const fft::Plan::Shape s = plan.shape(d);
  return std::string(fft::name(o.precision)) + " precision " + fft::name(o.transform) + " (" + fft::name(s.in) +
         " in, " + fft::name(s.out) + " out)";
}

// The C API sees only bytes, so a count other than exactly the plan's is a buffer of
// another element type (a double array to a single-precision plan) or of another box:
// both are errors, and the message says the count the plan expects. `nv` fields back to
// back (batch) multiply the single-field sizes; agreed on the plan's communicator so that
// one rank's wrong count fails every rank before anything is sent.
void check_exact(nbfft_plan_s& p, const char* fn, fft::Direction d, std::size_t nv, const void* in,
                 std::size_t in_b, const void* out, std::size_t out_b) {
  const bool forward = d == fft::Direction::Forward;
  agree(p.comm, [&] {
    const fft::Plan& plan = p.plan;
    const bool in_place = in != nullptr && in == out;
    std::size_t need[2] = {forward ? plan.in_bytes() : plan.out_bytes(), forward ? plan.out_bytes() : plan.in_bytes()};
    if (in_place) need[0] = need[1] = plan.inplace_bytes();
    const std::size_t have[2] = {in_b, out_b};
    const char* names[2] = {"in_bytes", "out_bytes"};
    for (int s = 0; s < 2; ++s) {
      std::size_t want = 0;
      if (__builtin_mul_overflow(need[s], nv, &want))
        throw Error(std::string(fn) + ": " + std::to_string(nv) + " fields of " + std::to_string(need[s]) +
                        " bytes cannot be addressed",
                    ErrorCode::OutOfMemory);
      if (have[s] == want) continue;
      std::string what = in_place ? "the in-place buffer (the larger of the input and output boxes)"
                                  : (s == 0) == forward ? "this rank's input box" : "this rank's output box";
      if (nv != 1) what = std::to_string(nv) + " fields of " + what;
      throw Error(std::string(fn) + ": " + names[s] + " is " + std::to_string(have[s]) + " but the plan (" +
                  plan_words(plan, d) + ") needs exactly " + std::to_string(want) + " for " + what +
                  (have[s] > want ? " (a larger count means another element type or another box)" : ""));
    }
  });
}

// Bytes of a whole field of `layout` (what gather writes on the root).
std::size_t global_bytes_of(const fft::Plan& plan, Layout layout) {
  // The input of a padded plan is its physical grid.
  const auto n = layout == Layout::Input ? plan.physical_size() : plan.global_size();
  const std::int64_t nx = layout == Layout::Output ? plan.decomposition().xc : n[0];  // the spectrum's x extent
  std::size_t b = fft::element_bytes(plan, layout);
  for (std::int64_t e : {nx, n[1], n[2]})
    if (__builtin_mul_overflow(b, static_cast<std::size_t>(e), &b))
      throw Error("the whole field cannot be addressed on one rank", ErrorCode::OutOfMemory);
  return b;
}

// gather / scatter: the local size exactly the layout's box, the root's global size
// exactly the whole field; agreed before any data moves.
void check_exact_field(nbfft_plan_s& p, const char* fn, Layout layout, std::size_t local_b, std::size_t global_b,
                       int root) {
  agree(p.comm, [&] {
    const fft::Plan& plan = p.plan;
    const std::size_t local_need = layout == Layout::Input ? plan.in_bytes() : plan.out_bytes();
    const char* box = layout == Layout::Input ? "the input layout's box" : "the output layout's box";
    if (local_b != local_need)
      throw Error(std::string(fn) + ": local_bytes is " + std::to_string(local_b) + " but the plan (" +
                  plan_words(plan, fft::Direction::Forward) + ") needs exactly " + std::to_string(local_need) + " for this rank's " + box);
    int me = 0;
    MPI_Comm_rank(p.comm, &me);
    if (me != root) return;  // global matters on root only (the root's range is checked later)
    const std::size_t global_need = global_bytes_of(plan, layout);
    if (global_b != global_need)
      throw Error(std::string(fn) + ": global_bytes is " + std::to_string(global_b) + " on the root but the whole " +
                  (layout == Layout::Input ? "input" : "output") + " field needs exactly " +
                  std::to_string(global_need));
  });
}

// The split-phase start: checked as the blocking call, on a work area of the plan's pool.
nbfft_status transform_start(const char* fn, fft::Direction d, nbfft_plan plan, const void* in, size_t in_bytes,
                             void* out, size_t out_bytes, nbfft_request* request) {
  return guard(fn, [&] {
    auto& p = plan_of(plan);
    agree(p.comm, [&] { need(request, "the request pointer"); });
    *request = nullptr;
    check_exact(p, fn, d, 1, in, in_bytes, out, out_bytes);
    *request = add_request(p.plan.start_bytes(d, in, in_bytes, out, out_bytes), p.open);
  });
}

// The transform calls, one body per call shape; `fn` names the C function in messages.
nbfft_status transform_one(const char* fn, fft::Direction d, nbfft_plan plan, const void* in, size_t in_bytes,
                           void* out, size_t out_bytes) {
  return guard(fn, [&] {
    auto& p = plan_of(plan);
    check_exact(p, fn, d, 1, in, in_bytes, out, out_bytes);
    p.plan.transform_bytes(d, in, in_bytes, out, out_bytes);
  });
}

nbfft_status transform_many(const char* fn, fft::Direction d, nbfft_plan plan, size_t nv, const void* const* in,
                            size_t in_bytes, void* const* out, size_t out_bytes) {
  return guard(fn, [&] {
    auto& p = plan_of(plan);
    // The field count first: the checks below are collective only where nv > 0, so ranks
    // passing 0 and N fields would wait on each other.
    long long n[2] = {static_cast<long long>(nv), -static_cast<long long>(nv)}, most[2] = {0, 0};
    check_mpi(MPI_Allreduce(n, most, 2, MPI_LONG_LONG, MPI_MAX, p.comm), "MPI_Allreduce");
    if (most[0] != -most[1])
      throw Error(std::string(fn) + ": the ranks pass different numbers of fields (" + std::to_string(-most[1]) +
                      " to " + std::to_string(most[0]) + "); every rank transforms the same fields",
                  ErrorCode::RanksDisagree);
    nbfft::agree(p.comm, [&] {
      if (nv > 0) need(in, "the input pointer array"), need(out, "the output pointer array");
    });
    if (nv > 0) check_exact(p, fn, d, 1, in[0], in_bytes, out[0], out_bytes);
    p.plan.transform_many_bytes(d, nv, in, in_bytes, out, out_bytes);
  });
}

nbfft_status transform_batch(const char* fn, fft::Direction d, nbfft_plan plan, size_t nv, const void* in,
                             size_t in_bytes, void* out, size_t out_bytes) {
  return guard(fn, [&] {
    auto& p = plan_of(plan);
    check_exact(p, fn, d, nv, in, in_bytes, out, out_bytes);  // (a count that cannot be addressed too)
    fft::transform_batch_bytes(p.plan, d, nv, in, in_bytes, out, out_bytes);
  });
}

}  // namespace
}  // namespace nbfft::capi

using nbfft::Error;
using nbfft::capi::guard;
using namespace nbfft::capi;
using nbfft::fft::Direction;

extern "C" {

const char* nbfft_status_string(nbfft_status status) {
  if (status == NBFFT_SUCCESS) return "success";
  if (status >= NBFFT_INVALID_ARGUMENT && status <= NBFFT_INTERNAL)
    return nbfft::error_code_name(static_cast<nbfft::ErrorCode>(static_cast<int>(status)));
  return "unknown status";
}

const char* nbfft_last_error(void) { return g_last_error.c_str(); }

void nbfft_set_last_error(const char* message) { nbfft::capi::set_last_error(message ? message : ""); }

const char* nbfft_version(void) { return NBFFT_VERSION_STRING; }

nbfft_status nbfft_options_create(nbfft_options* options) {
  return guard("nbfft_options_create", [&] {
    need(options, "the options pointer");
    *options = add_handle<nbfft_options>(std::make_unique<nbfft_options_s>());
  });
}

nbfft_status nbfft_options_copy(nbfft_options from, nbfft_options* options) {
  return guard("nbfft_options_copy", [&] {
    need(options, "the options pointer");
    *options = add_handle<nbfft_options>(std::make_unique<nbfft_options_s>(opts_of(from)));
  });
}

nbfft_status nbfft_options_destroy(nbfft_options* options) {
  return guard("nbfft_options_destroy", [&] {
    free_handle<nbfft_options_s>(options, "the options");
  });
}

nbfft_status nbfft_options_set(nbfft_options options, const char* key, const char* value) {
  return guard("nbfft_options_set", [&] {
    auto& o = options_of(options);
    need(key, "key");
    need(value, "value");
    o.assign(key, value);
  });
}

nbfft_status nbfft_options_get(nbfft_options options, const char* key, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_options_get", [&] {
    need(key, "key");
    copy_out(opts_of(options).get(key), buffer, size, needed);
  });
}

const char* nbfft_options_key(int i) {
  const auto& rows = nbfft::fft::option_rows();
  return i >= 0 && static_cast<std::size_t>(i) < rows.size() ? rows[static_cast<std::size_t>(i)].key : nullptr;
}

const char* nbfft_options_doc(int i) {
  const auto& rows = nbfft::fft::option_rows();
  return i >= 0 && static_cast<std::size_t>(i) < rows.size() ? rows[static_cast<std::size_t>(i)].doc : nullptr;
}

const char* nbfft_options_example(int i) {
  const auto& rows = nbfft::fft::option_rows();
  return i >= 0 && static_cast<std::size_t>(i) < rows.size() ? rows[static_cast<std::size_t>(i)].example : nullptr;
}

const char* nbfft_options_scope(int i) {
  const auto& rows = nbfft::fft::option_rows();
  return i >= 0 && static_cast<std::size_t>(i) < rows.size() ? nbfft::fft::name(rows[static_cast<std::size_t>(i)].scope)
                                                           : nullptr;
}

nbfft_status nbfft_options_parse(nbfft_options options, const char* text) {
  return guard("nbfft_options_parse", [&] {
    auto& o = options_of(options);
    need(text, "text");
    // All or nothing: a bad pair leaves the handle as it was.
    nbfft_options_s next = o;
    nbfft::fft::for_each_pair(text, [&](std::string_view k, std::string_view v) { next.assign(k, v); });
    o = std::move(next);
  });
}

const char* nbfft_options_type(int i) {
  const auto& rows = nbfft::fft::option_rows();
  return i >= 0 && static_cast<std::size_t>(i) < rows.size() ? nbfft::fft::name(rows[static_cast<std::size_t>(i)].type)
                                                           : nullptr;
}

nbfft_status nbfft_plan_option(nbfft_plan plan, const char* key, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_plan_option", [&] {
    const auto& p = plan_of(plan);
    need(key, "key");
    copy_out(nbfft::fft::get_option(p.plan.options(), key), buffer, size, needed);
  });
}

nbfft_status nbfft_plan_tune_report(nbfft_plan plan, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_plan_tune_report", [&] {
    const auto& p = plan_of(plan);
    std::ostringstream os;
    if (const auto* r = p.plan.tune_report()) os << *r;
    copy_out(os.str(), buffer, size, needed);
  });
}

nbfft_status nbfft_set_tune_log(nbfft_tune_log_fn fn, void* user) {
  return guard("nbfft_set_tune_log", [&] {
    if (!fn) {
      nbfft::fft::set_tune_log({});
      return;
    }
    nbfft::fft::set_tune_log([fn, user](const nbfft::fft::TuneEvent& e) {
      const std::string& options = e.candidate;  // any plan's tuned options as text
      nbfft_tune_record r;
      r.kind = static_cast<nbfft_tune_event>(static_cast<int>(e.kind));
      r.trial = e.trial;
      r.planned = e.planned;
      r.seconds = e.seconds;
      r.elapsed = e.elapsed;
      r.budget = e.budget;
      r.eta = e.eta;
      r.from_wisdom = e.from_wisdom ? 1 : 0;
      r.step = e.step.c_str();
      r.options = options.c_str();
      r.line = e.line.c_str();
      fn(&r, user);
    });
  });
}

nbfft_status nbfft_options_string(nbfft_options options, char* buffer, size_t size, size_t* needed) {
  return guard("nbfft_options_string", [&] {
    copy_out(opts_of(options).text(), buffer, size, needed);
  });
}

nbfft_status nbfft_required_thread_level(nbfft_options options, int* level) {
  return guard("nbfft_required_thread_level", [&] {
    need(level, "level");
    *level = nbfft::fft::required_thread_level(opts_of(options).o);
  });
}

nbfft_status nbfft_plan_create(MPI_Comm comm, const int64_t n[3], nbfft_options options, nbfft_plan* plan) {
  return guard("nbfft_plan_create", [&] { create_plan(comm, n, options, plan); });
}

nbfft_status nbfft_plan_create_f(MPI_Fint comm, const int64_t n[3], nbfft_options options, nbfft_plan* plan) {
  return guard("nbfft_plan_create_f", [&] {
    create_plan(comm_of_fortran("nbfft_plan_create_f", comm), n, options, plan);
  });
}

nbfft_status nbfft_plan_create_boxes(MPI_Comm comm, const int64_t n[3], const int64_t in_lo[3], const int64_t in_n[3],
                                     const int in_order[3], const int64_t out_lo[3], const int64_t out_n[3],
                                     const int out_order[3], nbfft_options options, nbfft_plan* plan) {
  return guard("nbfft_plan_create_boxes", [&] {
    const BoxArgs b{in_lo, in_n, in_order, out_lo, out_n, out_order};
    create_plan(comm, n, options, plan, &b);
  });
}

nbfft_status nbfft_plan_create_boxes_f(MPI_Fint comm, const int64_t n[3], const int64_t in_lo[3],
                                       const int64_t in_n[3], const int in_order[3], const int64_t out_lo[3],
                                       const int64_t out_n[3], const int out_order[3], nbfft_options options,
                                       nbfft_plan* plan) {
  return guard("nbfft_plan_create_boxes_f", [&] {
    const BoxArgs b{in_lo, in_n, in_order, out_lo, out_n, out_order};
    create_plan(comm_of_fortran("nbfft_plan_create_boxes_f", comm), n, options, plan, &b);
  });
}

nbfft_status nbfft_plan_destroy(nbfft_plan* plan) {
  return guard("nbfft_plan_destroy", [&] {
    need(plan, "the plan pointer");
    if (!*plan) return;
    if (const auto* s = find_handle<nbfft_plan_s>(*plan)) refuse_while_open(*s->open, "nbfft_wait");
    std::unique_ptr<nbfft_plan_s> p = remove_handle<nbfft_plan_s>(*plan);
    if (!p) throw Error(std::string("the plan handle") + kStale, nbfft::ErrorCode::InvalidState);
    *plan = nullptr;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && p->comm != MPI_COMM_NULL) MPI_Comm_free(&p->comm);
  });
}

nbfft_status nbfft_plan_box(nbfft_plan plan, nbfft_layout layout, int64_t lo[3], int64_t n[3], int order[3]) {
  return guard("nbfft_plan_box", [&] {
    auto& p = plan_of(plan);
    fill_box(nbfft::fft::box(p.plan, layout_of(layout)), lo, n, order);
  });
}

nbfft_status nbfft_plan_box_of(nbfft_plan plan, nbfft_layout layout, int rank, int64_t lo[3], int64_t n[3],
                               int order[3]) {
  return guard("nbfft_plan_box_of", [&] {
    auto& p = plan_of(plan);
    const auto& d = p.plan.decomposition();
    const int size = d.m1 * d.m2;
    if (rank < 0 || rank >= size)
      throw Error("rank " + std::to_string(rank) + " is not in the plan's communicator (0.." +
                  std::to_string(size - 1) + ")");
    fill_box(layout_of(layout) == nbfft::fft::Layout::Input ? p.plan.in_box_of(rank) : p.plan.out_box_of(rank), lo, n,
             order);
  });
}

nbfft_status nbfft_plan_grid(nbfft_plan plan, int64_t n[3], int* m1, int* m2) {
  return guard("nbfft_plan_grid", [&] {
    auto& p = plan_of(plan);
    const auto g = p.plan.global_size();
    if (n)
      for (int d = 0; d < 3; ++d) n[d] = g[d];
    if (m1) *m1 = p.plan.m1();
    if (m2) *m2 = p.plan.m2();
  });
}

nbfft_status nbfft_plan_counts(nbfft_plan plan, int64_t* in_count, int64_t* out_count) {
  return guard("nbfft_plan_counts", [&] {
    auto& p = plan_of(plan);
    if (in_count) *in_count = p.plan.in_count();
    if (out_count) *out_count = p.plan.out_count();
  });
}

nbfft_status nbfft_plan_bytes(nbfft_plan plan, size_t* in_bytes, size_t* out_bytes, size_t* inplace_bytes) {
  return guard("nbfft_plan_bytes", [&] {
    auto& p = plan_of(plan);
    if (in_bytes) *in_bytes = p.plan.in_bytes();
    if (out_bytes) *out_bytes = p.plan.out_bytes();
    if (inplace_bytes) *inplace_bytes = p.plan.inplace_bytes();
  });
}

nbfft_status nbfft_plan_elements(nbfft_plan plan, int* in_complex, int* out_complex, int* real_bytes) {
  return guard("nbfft_plan_elements", [&] {
    // The plan's one rule of call shapes: what forward reads and writes.
    const nbfft::fft::Plan::Shape s = plan_of(plan).plan.shape(nbfft::fft::Direction::Forward);
    if (in_complex) *in_complex = !s.in.real;
    if (out_complex) *out_complex = !s.out.real;
    if (real_bytes) *real_bytes = s.in.precision == nbfft::fft::Precision::Double ? 8 : 4;
  });
}

nbfft_status nbfft_forward(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
  return transform_one("nbfft_forward", Direction::Forward, plan, in, in_bytes, out, out_bytes);
}
nbfft_status nbfft_backward(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
  return transform_one("nbfft_backward", Direction::Backward, plan, in, in_bytes, out, out_bytes);
}
nbfft_status nbfft_forward_start(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                 nbfft_request* request) {
  return transform_start("nbfft_forward_start", Direction::Forward, plan, in, in_bytes, out, out_bytes, request);
}
nbfft_status nbfft_backward_start(nbfft_plan plan, const void* in, size_t in_bytes, void* out, size_t out_bytes,
                                  nbfft_request* request) {
  return transform_start("nbfft_backward_start", Direction::Backward, plan, in, in_bytes, out, out_bytes, request);
}
nbfft_status nbfft_forward_many(nbfft_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                void* const* out, size_t out_bytes) {
  return transform_many("nbfft_forward_many", Direction::Forward, plan, nv, in, in_bytes, out, out_bytes);
}
nbfft_status nbfft_backward_many(nbfft_plan plan, size_t nv, const void* const* in, size_t in_bytes,
                                 void* const* out, size_t out_bytes) {
  return transform_many("nbfft_backward_many", Direction::Backward, plan, nv, in, in_bytes, out, out_bytes);
}
nbfft_status nbfft_forward_batch(nbfft_plan plan, size_t nv, const void* in, size_t in_bytes, void* out,
                                 size_t out_bytes) {
  return transform_batch("nbfft_forward_batch", Direction::Forward, plan, nv, in, in_bytes, out, out_bytes);
}
nbfft_status nbfft_backward_batch(nbfft_plan plan, size_t nv, const void* in, size_t in_bytes, void* out,
                                  size_t out_bytes) {
  return transform_batch("nbfft_backward_batch", Direction::Backward, plan, nv, in, in_bytes, out, out_bytes);
}

// A language binding's own argument check (the Fortran module's shapes and kinds), agreed
// on the plan's communicator like the C API's, so a mistake on one rank fails every rank.
nbfft_status nbfft_plan_agree(nbfft_plan plan, const char* what, const char* error) {
  return guard(what && *what ? what : "nbfft_plan_agree", [&] {
    nbfft::agree_message(plan_of(plan).comm, error ? error : "");
  });
}

nbfft_status nbfft_comm_agree_f(MPI_Fint comm, const char* what, const char* error) {
  return guard(what && *what ? what : "nbfft_comm_agree_f", [&] {
    nbfft::agree_message(comm_of_fortran("nbfft_comm_agree_f", comm), error ? error : "");
  });
}

nbfft_status nbfft_wavenumbers(nbfft_plan plan, const double length[3], double* kx, double* ky, double* kz) {
  return guard("nbfft_wavenumbers", [&] {
    auto& p = plan_of(plan);
    std::array<double, 3> len{nbfft::fft::kTwoPi, nbfft::fft::kTwoPi, nbfft::fft::kTwoPi};
    if (length) len = {length[0], length[1], length[2]};
    const auto k = nbfft::fft::wavenumbers(p.plan, len);
    double* dst[3] = {kx, ky, kz};
    for (int d = 0; d < 3; ++d) {
      if (!k[d].empty() && !dst[d]) throw Error(std::string("k") + "xyz"[d] + " is NULL");
      if (!k[d].empty()) std::memcpy(dst[d], k[d].data(), k[d].size() * sizeof(double));
    }
  });
}

nbfft_status nbfft_gather(nbfft_plan plan, nbfft_layout layout, const void* local, size_t local_bytes, void* global,
                          size_t global_bytes, int root) {
  return guard("nbfft_gather", [&] {
    auto& p = plan_of(plan);
    check_exact_field(p, "nbfft_gather", layout_of(layout), local_bytes, global_bytes, root);
    nbfft::fft::gather_bytes(p.comm, p.plan, layout_of(layout), local, local_bytes, global, global_bytes, root);
  });
}

nbfft_status nbfft_scatter(nbfft_plan plan, nbfft_layout layout, const void* global, size_t global_bytes,
                           void* local, size_t local_bytes, int root) {
  return guard("nbfft_scatter", [&] {
    auto& p = plan_of(plan);
    check_exact_field(p, "nbfft_scatter", layout_of(layout), local_bytes, global_bytes, root);
    nbfft::fft::scatter_bytes(p.comm, p.plan, layout_of(layout), global, global_bytes, local, local_bytes, root);
  });
}

nbfft_status nbfft_wisdom_save(MPI_Comm comm, const char* path) {
  return guard("nbfft_wisdom_save", [&] {
    nbfft::check_mpi_running("nbfft_wisdom_save");
    nbfft::agree(comm, [&] { need(path, "path"); });
    nbfft::fft::save_wisdom(comm, path);
  });
}

nbfft_status nbfft_wisdom_load(MPI_Comm comm, const char* path, int* found) {
  return guard("nbfft_wisdom_load", [&] {
    nbfft::check_mpi_running("nbfft_wisdom_load");
    nbfft::agree(comm, [&] { need(path, "path"); });
    const bool f = nbfft::fft::load_wisdom(comm, path);
    if (found) *found = f ? 1 : 0;
  });
}

}  // extern "C"
