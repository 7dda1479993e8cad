// Plan: a distributed 3D FFT of an nx x ny x nz grid on an M1 x M2 process grid.
//
//   using nbfft::fft::Direction;
//   nbfft::fft::Options o;               // double r2c, blocking exchanges, effort measure
//   nbfft::fft::Plan plan(MPI_COMM_WORLD, {nx, ny, nz}, o);
//   std::vector<double> f(plan.in_count());                 // this rank's X-pencil
//   std::vector<std::complex<double>> F(plan.out_count());  // this rank's Z-pencil
//   plan.transform(Direction::Forward, f, F);  plan.transform(Direction::Backward, F, f);
//
// Each call shape has one entry point with the direction as its first argument: transform
// (one field, typed pointers or vectors), transform_bytes, transform_many (several fields),
// transform_many_bytes, and the split-phase start / start_bytes. plan.forward(f, F) and the
// other direction-named spellings are one-line aliases of them.
//
// Layout. Input (forward) / output (backward) is the rank's X-pencil in_box(): all nx
// points of x, part i of ny, part j of nz, stored x fastest, then y, then z (C [z][y][x]).
// Output (forward) / input (backward) is the Z-pencil out_box(): part i of the xc complex
// x points (xc = nx/2+1 for r2c, nx for c2c), part j of ny, all nz points of z, stored
// x fastest, then z, then y (C [y][z][x]; out_box().order = {0, 2, 1}), i = rank % M1,
// j = rank / M1. Box3::index(x, y, z) gives the offset of a point in either box:
//     input:  (x - lo[0]) + n[0] * ((y - lo[1]) + n[1] * (z - lo[2]))
//     output: (x - lo[0]) + n[0] * ((z - lo[2]) + n[2] * (y - lo[1]))
// The output order is FFTW-MPI's transposed-out order, chosen for speed: each y
// is one contiguous z-x plane, so the z FFT runs on a plane in cache and the COL exchange
// delivers each peer's part of it as one block (a z-strided layout made the z FFT 4x
// slower at 256^3). Real input is unpadded (nx reals per row). With Options::kinds an r2r
// x keeps nx points, and real data whose every axis is r2r has a real spectrum. A spectral coefficient
// (kx, ky, kz), kx < xc, is at out_box().index(kx, ky, kz); r2c keeps kx = 0..nx/2.
// Options::output_order = Natural stores the output [kz][ky][kx] instead (out_box().order
// = {0, 1, 2}), and the box constructor below takes the user's own boxes in and out: then
// in_box()/out_box() are those, and decomposition() keeps the pencils transformed on.
//
// In-place: pass the same pointer as in and out; the buffer must hold inplace_bytes().
// A backward transform leaves its input untouched; a forward one leaves its input untouched
// when out of place. Calls without a workspace share the plan's own and must not run concurrently;
// make_workspace() gives each thread its own.
// Construction and every transform are collective over the communicator.
//
// Several fields (velocity components, species): transform_many transforms nv fields in
// one call, pipelined as in seed 000 Fig. 4 so that each field's COL exchange
// runs behind the local FFTs of its neighbours (docs/fft.md "Multi-field transforms"):
//   std::vector<const double*> in = {u, v, w};  std::vector<std::complex<double>*> out = {U, V, W};
//   plan.transform_many(Direction::Forward, in, plan.in_count(), out, plan.out_count());
// The fields pipeline when the plan was made with Options::fields_in_flight >= 2 (and its COL
// exchange is a bulk exchange between ranks): the plan then holds that many workspaces
// from construction on. Nothing is allocated by a transform call. Split-phase transforms
// (start, below) let the caller overlap its own work with a field's exchange.
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/fft/box.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/direction.hpp"
#include "nbfft/fft/elements.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"
#include "nbfft/request.hpp"

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::fft {

struct TuneReport;  // nbfft/fft/tune.hpp

class Plan {
 public:
  // n = {nx, ny, nz}. Throws nbfft::Error naming the problem for non-positive sizes, a
  // process grid that does not match the communicator size, an impossible grid (when
  // options.allow_empty is false), or a transport the collective layer cannot run.
  Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options = {});
  // Your own layout (docs/fft.md "Your own layout: boxes in and out"): this rank's box of
  // the input (real points for r2c; a padded plan's: of the physical grid) and of the
  // spectrum (x: xc points), each with its memory order (Box3::order; default x fastest,
  // C [z][y][x]). Any bricks that tile the grid, possibly empty, different in and out;
  // std::nullopt keeps that side's internal pencil (and, for the output, output_order).
  // Transforms reshape to and from the internal pencils on the plan's COL transport; a
  // side whose boxes equal the internal ones on every rank costs nothing. Boxes that are
  // out of range, overlap or leave points uncovered are an error on every rank naming the
  // first conflict; every rank must pass boxes, or none (RanksDisagree). A plan with user
  // boxes that reshape gets no lean workspace.
  Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const std::optional<Box3>& in_box,
       const std::optional<Box3>& out_box, const Options& options = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  const Options& options() const;  // with the process grid resolved (m1, m2 set)
  const Decomposition& decomposition() const;
  std::array<std::int64_t, 3> global_size() const;
  int m1() const;
  int m2() const;
  // The boxes the user's arrays hold: the internal X-pencil and Z-pencil (below) unless the
  // plan was made with user boxes or output_order = natural (then the output box has
  // order {0, 1, 2}).
  const Box3& in_box() const;   // X-pencil of this rank (real points for r2c; padded: of the m grid)
  const Box3& out_box() const;  // Z-pencil of this rank (complex points)
  // Whether transforms reshape between the user's boxes and the internal pencils.
  bool reshapes() const;
  // in_box() / out_box() of any rank of the plan's communicator (0 <= rank < M1*M2).
  Box3 in_box_of(int rank) const;
  Box3 out_box_of(int rank) const;
  // The physical grid {mx, my, mz}: global_size() unless padded (Options::padding), where
  // in_box() is a box of it and out_box() one of the spectrum's modes of global_size().
  std::array<std::int64_t, 3> physical_size() const;
  std::int64_t in_count() const { return in_box().count(); }    // elements (real for r2c)
  std::int64_t out_count() const { return out_box().count(); }  // complex elements
  std::size_t in_bytes() const;
  std::size_t out_bytes() const;
  std::size_t inplace_bytes() const;    // max(in_bytes, out_bytes)
  std::size_t workspace_bytes() const;  // buffers the plan holds besides the user's arrays
  // Whether the workspace is lean (Options::lean_workspace, and it fits every rank): then
  // every transform must run in place. operator<< says why when it was asked for and not made.
  bool lean_workspace() const;
  // What plan-time tuning tried and chose (Options::tune; fft/tune.hpp), or nullptr when
  // the plan was made as asked.
  const TuneReport* tune_report() const;
  // Agrees over the plan's communicator on a check each rank made of its own arguments
  // (local_error, "" = passed): every rank throws the lowest failing rank's Error (of its
  // code), or none does. Collective. Helpers that take a plan (nbfft/fft/field.hpp's
  // batches) check with it before a rank acts on what the others may refuse.
  void agree_check(const std::string& local_error, ErrorCode code = ErrorCode::InvalidArgument) const;

  // The buffers and collectives one transform in flight writes besides the user's arrays.
  // The plan makes its own at construction (calls without a workspace use it, one call at a
  // time); make_workspace() (collective) makes another, so that transforms of one plan can
  // run at once on different workspaces (one thread each). The plan itself never changes.
  class Workspace {
   public:
    Workspace();
    ~Workspace();
    Workspace(Workspace&&) noexcept;
    Workspace& operator=(Workspace&&) noexcept;
    std::size_t bytes() const;
    struct Impl;

   private:
    friend class Plan;
    std::unique_ptr<Impl> impl_;
  };
  Workspace make_workspace() const;

  // A split-phase transform in flight (Plan::start below): nbfft::Request
  // (nbfft/request.hpp). progress() is one host progress pass over nbfft's exchanges in
  // flight; test() also says whether the exchange has arrived (wait() still needed); wait()
  // completes the transform, and the request is inactive afterwards.
  using Pending = nbfft::Request;

  // ---- Transforms: one entry point per call shape, the direction a parameter ------------
  //
  // The one rule of call shapes: the element types direction d reads and writes. r2c:
  // forward real -> complex, backward complex -> real; c2c: complex both ways; real data
  // with every axis an r2r kind (Options::kinds): real both ways; all of the plan's precision. Every typed call is checked against it (one function, with one
  // error text), and the C API words its messages from it.
  struct Shape {
    Element in, out;
  };
  Shape shape(Direction d) const;

  // The optional part of a single-field call, written as its last argument: nothing, `&t`
  // (add the stage times to t), `ws` (run on a workspace of make_workspace()) or
  // `{ws, &t}`. The constructors are implicit on purpose: they are that spelling.
  // (No default member initializers: `Call c = {}` below needs the constructor before Plan
  // is complete.)
  struct Call {
    Workspace* workspace;  // nullptr: the plan's own
    Timings* timings;
    Call() : workspace(nullptr), timings(nullptr) {}
    Call(Timings* t) : workspace(nullptr), timings(t) {}                     // NOLINT
    Call(Workspace& ws, Timings* t = nullptr) : workspace(&ws), timings(t) {}  // NOLINT
  };

  // One field. Counts are elements of the pointed-to types (double, float or their
  // std::complex, one precision: other types do not compile); a call whose types are not
  // shape(d), or whose buffers are smaller than the boxes, throws nbfft::Error.
  template <typename In, typename Out>
  void transform(Direction d, const In* in, std::size_t in_n, Out* out, std::size_t out_n, Call c = {}) const {
    static_assert(fft_elements<In, Out>(),
                  "Plan::transform: element types must be double, float or their std::complex, of one precision");
    check_shape(d, name(d), element_of<In>::type, element_of<Out>::type);
    transform_bytes(d, in, in_n * sizeof(In), out, out_n * sizeof(Out), c);
  }
  template <typename In, typename Out>
  void transform(Direction d, const std::vector<In>& in, std::vector<Out>& out, Call c = {}) const {
    transform(d, in.data(), in.size(), out.data(), out.size(), c);
  }
  // Untyped: sizes in bytes; the element types are the plan's (shape(d)).
  void transform_bytes(Direction d, const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                       Call c = {}) const;

  // Several fields (velocity components, species): field k goes from in[k] to out[k];
  // every in[k] holds at least in_n and every out[k] at least out_n elements (the
  // single-field sizes). in.size() == out.size() = nv must be the same on every rank. In
  // place per field (in[k] == out[k]) is allowed; different fields must not overlap.
  // Results equal nv single-field calls; the fields pipeline as described at the top.
  template <typename In, typename Out>
  void transform_many(Direction d, const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out,
                      std::size_t out_n, Timings* t = nullptr) const {
    static_assert(fft_elements<In, Out>(),
                  "Plan::transform_many: element types must be double, float or their std::complex, of one precision");
    check_shape(d, many_name(d), element_of<In>::type, element_of<Out>::type);
    many_bytes(d, in.size(), reinterpret_cast<const void* const*>(in.data()), in_n * sizeof(In), out.size(),
               reinterpret_cast<void* const*>(out.data()), out_n * sizeof(Out), t);
  }
  // The same on vectors of fields (sizes: the smallest vector of each side).
  template <typename In, typename Out>
  void transform_many(Direction d, const std::vector<std::vector<In>>& in, std::vector<std::vector<Out>>& out,
                      Timings* t = nullptr) const {
    transform_many(d, pointers(in), smallest(in), pointers(out), smallest(out), t);
  }
  // Untyped: nv fields, sizes in bytes per field.
  void transform_many_bytes(Direction d, std::size_t nv, const void* const* in, std::size_t in_bytes,
                            void* const* out, std::size_t out_bytes, Timings* t = nullptr) const {
    many_bytes(d, nv, in, in_bytes, nv, out, out_bytes, t);
  }

  // Split phase: start a field's transform, do other work, complete it.
  //
  //   Plan::Workspace ws = plan.make_workspace();          // one per transform in flight
  //   Plan::Pending p = plan.start(Direction::Forward, u, nu, U, nU, ws);
  //   compute_next_term();                                  // the COL exchange travels
  //   p.progress();                                         // (caller engine: now and then)
  //   p.wait();                                             // the stages after the exchange
  //
  // start() runs the stages up to the COL exchange and starts it; wait() completes the
  // exchange and runs the stages after it (for backward these include the ROW exchange).
  // Any number may be in flight, one per workspace: a workspace is busy from start to
  // wait. Starts are collective and must come in the same order on every rank, and so
  // must the waits of backward transforms (their ROW exchange is collective) and every
  // wait of a device plan (Options::device; docs/gpu.md). With the
  // thread engine the exchange moves by itself; with the caller engine it moves only
  // inside progress(), test(), wait() and the stages of other transforms of this library.
  // Results equal the plain calls. The arrays must outlive the Pending; destroying an
  // active Pending waits for it, and destroying (or assigning over) its plan or workspace
  // completes it first (wait() then throws InvalidState saying so). A plan may be moved
  // while transforms are in flight. Every collective call of a plan (each transform,
  // start, and backward wait) first agrees on which call it is: ranks out of step get
  // RanksDisagree together, and a refused backward wait can be waited for again.
  template <typename In, typename Out>
  Pending start(Direction d, const In* in, std::size_t in_n, Out* out, std::size_t out_n, Workspace& ws,
                Timings* t = nullptr) const {
    static_assert(fft_elements<In, Out>(),
                  "Plan::start: element types must be double, float or their std::complex, of one precision");
    check_shape(d, name(d), element_of<In>::type, element_of<Out>::type);
    return start_bytes(d, in, in_n * sizeof(In), out, out_n * sizeof(Out), ws, t);
  }
  Pending start_bytes(Direction d, const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                      Workspace& ws, Timings* t = nullptr) const;
  // Without a workspace: the plan keeps workspaces for these starts (made as more are in
  // flight at once, up to 64, freed with the plan), taking one that is free on every rank.
  // This is what the C, Fortran and Python front ends call.
  template <typename In, typename Out>
  Pending start(Direction d, const In* in, std::size_t in_n, Out* out, std::size_t out_n,
                Timings* t = nullptr) const {
    static_assert(fft_elements<In, Out>(),
                  "Plan::start: element types must be double, float or their std::complex, of one precision");
    check_shape(d, name(d), element_of<In>::type, element_of<Out>::type);
    return start_bytes(d, in, in_n * sizeof(In), out, out_n * sizeof(Out), t);
  }
  Pending start_bytes(Direction d, const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                      Timings* t = nullptr) const;

  // The direction-named spellings, kept so that code written against them compiles: each
  // is the call above with Direction::Forward or Direction::Backward and nothing else
  // (forward_bytes takes a workspace as its Call: `ws` or `{ws, &t}`).
  template <typename In, typename Out>
  void forward(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Call c = {}) const {
    transform(Direction::Forward, in, in_n, out, out_n, c);
  }
  template <typename In, typename Out>
  void backward(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Call c = {}) const {
    transform(Direction::Backward, in, in_n, out, out_n, c);
  }
  template <typename In, typename Out>
  void forward(const std::vector<In>& in, std::vector<Out>& out, Call c = {}) const {
    transform(Direction::Forward, in, out, c);
  }
  template <typename In, typename Out>
  void backward(const std::vector<In>& in, std::vector<Out>& out, Call c = {}) const {
    transform(Direction::Backward, in, out, c);
  }
  void forward_bytes(const void* in, std::size_t in_b, void* out, std::size_t out_b, Call c = {}) const {
    transform_bytes(Direction::Forward, in, in_b, out, out_b, c);
  }
  void backward_bytes(const void* in, std::size_t in_b, void* out, std::size_t out_b, Call c = {}) const {
    transform_bytes(Direction::Backward, in, in_b, out, out_b, c);
  }
  template <typename In, typename Out>
  void forward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out, std::size_t out_n,
                    Timings* t = nullptr) const {
    transform_many(Direction::Forward, in, in_n, out, out_n, t);
  }
  template <typename In, typename Out>
  void backward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out, std::size_t out_n,
                     Timings* t = nullptr) const {
    transform_many(Direction::Backward, in, in_n, out, out_n, t);
  }
  template <typename In, typename Out>
  void forward_many(const std::vector<std::vector<In>>& in, std::vector<std::vector<Out>>& out,
                    Timings* t = nullptr) const {
    transform_many(Direction::Forward, in, out, t);
  }
  template <typename In, typename Out>
  void backward_many(const std::vector<std::vector<In>>& in, std::vector<std::vector<Out>>& out,
                     Timings* t = nullptr) const {
    transform_many(Direction::Backward, in, out, t);
  }
  void forward_many_bytes(std::size_t nv, const void* const* in, std::size_t in_b, void* const* out,
                          std::size_t out_b, Timings* t = nullptr) const {
    transform_many_bytes(Direction::Forward, nv, in, in_b, out, out_b, t);
  }
  void backward_many_bytes(std::size_t nv, const void* const* in, std::size_t in_b, void* const* out,
                           std::size_t out_b, Timings* t = nullptr) const {
    transform_many_bytes(Direction::Backward, nv, in, in_b, out, out_b, t);
  }
  template <typename In, typename Out>
  Pending forward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Workspace& ws,
                        Timings* t = nullptr) const {
    return start(Direction::Forward, in, in_n, out, out_n, ws, t);
  }
  template <typename In, typename Out>
  Pending backward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Workspace& ws,
                         Timings* t = nullptr) const {
    return start(Direction::Backward, in, in_n, out, out_n, ws, t);
  }

  // Diagnostics for benchmarks: runs only one exchange (0 ROW, 1 COL) of one direction on
  // the plan's own buffers (their contents are meaningless then) and adds its time to
  // t->row or t->col. Collective. nbfft-sine times the exchanges alone with it.
  void exchange_only(int exchange, Direction d, Timings* t = nullptr) const;

  struct Impl;
  // The resolved plan: boxes, each exchange with its collectives, chunks, depth and the
  // workspace bytes (several lines, this rank's view). Benchmarks print it with each record.
  friend std::ostream& operator<<(std::ostream& os, const Plan& plan);

 private:
  template <typename X>
  static std::vector<const X*> pointers(const std::vector<std::vector<X>>& v) {
    std::vector<const X*> p;
    for (const auto& f : v) p.push_back(f.data());
    return p;
  }
  template <typename X>
  static std::vector<X*> pointers(std::vector<std::vector<X>>& v) {
    std::vector<X*> p;
    for (auto& f : v) p.push_back(f.data());
    return p;
  }
  template <typename X>
  static std::size_t smallest(const std::vector<std::vector<X>>& v) {
    std::size_t n = v.empty() ? 0 : v[0].size();
    for (const auto& f : v) n = f.size() < n ? f.size() : n;
    return n;
  }
  static constexpr const char* many_name(Direction d) {
    return d == Direction::Forward ? "forward_many" : "backward_many";
  }
  // Throws unless a call that reads `in` and writes `out` is shape(d); `call` opens the
  // message. The one check of call shapes.
  void check_shape(Direction d, const char* call, Element in, Element out) const;
  void many_bytes(Direction d, std::size_t nv_in, const void* const* in, std::size_t in_bytes, std::size_t nv_out,
                  void* const* out, std::size_t out_bytes, Timings* t) const;
  const Impl& impl() const;  // throws InvalidState on a moved-from plan
  void make(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options, const std::optional<Box3>* in_box,
            const std::optional<Box3>* out_box);
  void attach_layout(const Box3* in_box, const Box3* out_box);
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::fft
