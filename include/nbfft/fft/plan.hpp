// Plan: a distributed 3D FFT of an nx x ny x nz grid on an M1 x M2 process grid.
//
//   nbfft::fft::Options o;               // double r2c, blocking exchanges, FFTW_MEASURE
//   nbfft::fft::Plan plan(MPI_COMM_WORLD, {nx, ny, nz}, o);
//   std::vector<double> f(plan.in_count());                 // this rank's X-pencil
//   std::vector<std::complex<double>> F(plan.out_count());  // this rank's Z-pencil
//   plan.forward(f, F);  plan.backward(F, f);
//
// Layout. Input (forward) / output (backward) is the rank's X-pencil in_box(): all nx
// points of x, part i of ny, part j of nz, stored x fastest, then y, then z (C [z][y][x]).
// Output (forward) / input (backward) is the Z-pencil out_box(): part i of the xc complex
// x points (xc = nx/2+1 for r2c, nx for c2c), part j of ny, all nz points of z, stored
// x fastest, then z, then y (C [y][z][x]; out_box().order = {0, 2, 1}), i = rank % M1,
// j = rank / M1. Box3::index(x, y, z) gives the offset of a point in either box:
//     input:  (x - lo[0]) + n[0] * ((y - lo[1]) + n[1] * (z - lo[2]))
//     output: (x - lo[0]) + n[0] * ((z - lo[2]) + n[2] * (y - lo[1]))
// The output order is FFTW-MPI's FFTW_MPI_TRANSPOSED_OUT order, chosen for speed: each y
// is one contiguous z-x plane, so the z FFT runs on a plane in cache and the COL exchange
// delivers each peer's part of it as one block (a z-strided layout made the z FFT 4x
// slower at 256^3). Real input is unpadded (nx reals per row). A spectral coefficient
// (kx, ky, kz), kx < xc, is at out_box().index(kx, ky, kz); r2c keeps kx = 0..nx/2.
//
// In-place: pass the same pointer as in and out; the buffer must hold inplace_bytes().
// backward() leaves its input untouched; forward() leaves its input untouched when out of
// place. Calls without a workspace share the plan's own and must not run concurrently;
// make_workspace() gives each thread its own.
// Construction and every forward/backward are collective over the communicator.
//
// Several fields (velocity components, species): forward_many / backward_many transform
// nv fields in one call, pipelined as in seed 000 Fig. 4 so that each field's COL exchange
// runs behind the local FFTs of its neighbours (docs/fft.md "Multi-field transforms"):
//   std::vector<const double*> in = {u, v, w};  std::vector<std::complex<double>*> out = {U, V, W};
//   plan.forward_many(in, plan.in_count(), out, plan.out_count());
// The fields pipeline when the plan was made with Options::fields_in_flight >= 2 (and its COL
// exchange is a bulk exchange between ranks): the plan then holds that many workspaces
// from construction on. Nothing is allocated by a transform call. Split-phase transforms
// (forward_start, below) let the caller overlap its own work with a field's exchange.
#pragma once

#include "nbfft/fft/box.hpp"
#include "nbfft/fft/decomposition.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/timings.hpp"

#include <mpi.h>

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <type_traits>
#include <vector>

namespace nbfft::fft {

class Plan {
 public:
  // n = {nx, ny, nz}. Throws nbfft::Error naming the problem for non-positive sizes, a
  // process grid that does not match the communicator size, an impossible grid (when
  // options.allow_empty is false), or a transport the collective layer cannot run.
  Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  const Options& options() const;  // with the process grid resolved (m1, m2 set)
  const Decomposition& decomposition() const;
  std::array<std::int64_t, 3> global_size() const;
  int m1() const;
  int m2() const;
  const Box3& in_box() const;   // X-pencil of this rank (real points for r2c; padded: of the m grid)
  const Box3& out_box() const;  // Z-pencil of this rank (complex points)
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

  // Typed transforms; counts are elements of the pointed-to type. A call that does not
  // match the plan's precision / transform, or buffers smaller than the box, throw.
  void forward(const double* in, std::size_t in_n, std::complex<double>* out, std::size_t out_n,
               Timings* t = nullptr) const;
  void forward(const float* in, std::size_t in_n, std::complex<float>* out, std::size_t out_n,
               Timings* t = nullptr) const;
  void forward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out,
               std::size_t out_n, Timings* t = nullptr) const;
  void forward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out,
               std::size_t out_n, Timings* t = nullptr) const;
  void backward(const std::complex<double>* in, std::size_t in_n, double* out, std::size_t out_n,
                Timings* t = nullptr) const;
  void backward(const std::complex<float>* in, std::size_t in_n, float* out, std::size_t out_n,
                Timings* t = nullptr) const;
  void backward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out,
                std::size_t out_n, Timings* t = nullptr) const;
  void backward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out,
                std::size_t out_n, Timings* t = nullptr) const;

  template <typename In, typename Out>
  void forward(const std::vector<In>& in, std::vector<Out>& out, Timings* t = nullptr) const {
    forward(in.data(), in.size(), out.data(), out.size(), t);
  }
  template <typename In, typename Out>
  void backward(const std::vector<In>& in, std::vector<Out>& out, Timings* t = nullptr) const {
    backward(in.data(), in.size(), out.data(), out.size(), t);
  }

  // Untyped form: sizes in bytes; the element types are the plan's.
  void forward_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                     Timings* t = nullptr) const;
  void backward_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                      Timings* t = nullptr) const;

  // The buffers and collectives one transform in flight writes besides the user's arrays.
  // The plan makes its own at construction (the calls above use them, one call at a time);
  // make_workspace() (collective) makes another, so that transforms of one plan can run at
  // once on different workspaces (one thread each). The plan itself never changes.
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
  void forward_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, Workspace& ws,
                     Timings* t = nullptr) const;
  void backward_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, Workspace& ws,
                      Timings* t = nullptr) const;

  // Split-phase transforms: start a field's transform, do other work, complete it.
  //
  //   Plan::Workspace ws = plan.make_workspace();          // one per transform in flight
  //   Plan::Pending p = plan.forward_start(u, nu, U, nU, ws);
  //   compute_next_term();                                  // the COL exchange travels
  //   p.progress();                                         // (caller engine: now and then)
  //   p.wait();                                             // the stages after the exchange
  //
  // forward_start / backward_start run the stages up to the COL exchange and start it;
  // wait() completes the exchange and runs the stages after it (for backward these include
  // the ROW exchange). Any number may be in flight, one per workspace: a workspace is busy
  // from start to wait. Starts are collective and must come in the same order on every
  // rank, and so must the waits of backward transforms (their ROW exchange is collective).
  // With the thread engine the exchange moves by itself; with the caller engine it moves
  // only inside progress(), test(), wait() and the stages of other transforms of this
  // library. Results equal the plain calls. The arrays must outlive the Pending;
  // destroying an active Pending waits for it, and destroying (or assigning over) its plan
  // or workspace completes it first (wait() then throws InvalidState saying so). A plan
  // may be moved while transforms are in flight. Every collective call of a plan (each
  // transform, start, and backward wait) first agrees on which call it is: ranks out of
  // step get RanksDisagree together, and a refused backward wait can be waited for again.
  class Pending {
   public:
    Pending();
    ~Pending();
    Pending(Pending&&) noexcept;
    Pending& operator=(Pending&&) noexcept;
    bool active() const;  // started and not yet waited for
    void progress();      // one host progress pass over nbfft's exchanges in flight
    bool test();          // progress(), then whether the exchange has arrived (wait() still needed)
    void wait();          // completes the transform; the Pending is inactive afterwards
    struct Impl;

   private:
    friend class Plan;
    std::unique_ptr<Impl> impl_;
  };
  template <typename In, typename Out>
  Pending forward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Workspace& ws,
                        Timings* t = nullptr) const {
    static_assert(is_fft_type<In>() && is_fft_type<Out>(), "forward_start: element types must be double, float or their std::complex");
    check_call("forward", is_real<In>(), is_real<Out>(), precision_of<In>());
    return forward_start_bytes(in, in_n * sizeof(In), out, out_n * sizeof(Out), ws, t);
  }
  template <typename In, typename Out>
  Pending backward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n, Workspace& ws,
                         Timings* t = nullptr) const {
    static_assert(is_fft_type<In>() && is_fft_type<Out>(), "backward_start: element types must be double, float or their std::complex");
    check_call("backward", is_real<In>(), is_real<Out>(), precision_of<In>());
    return backward_start_bytes(in, in_n * sizeof(In), out, out_n * sizeof(Out), ws, t);
  }
  Pending forward_start_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, Workspace& ws,
                              Timings* t = nullptr) const;
  Pending backward_start_bytes(const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, Workspace& ws,
                               Timings* t = nullptr) const;

  // Multi-field transforms: field k goes from in[k] to out[k]; every in[k] holds at least
  // in_n and every out[k] at least out_n elements of the pointed-to types (the single-field
  // sizes). in.size() == out.size() = nv must be the same on every rank. In place per field
  // (in[k] == out[k]) is allowed; different fields must not overlap. Results equal nv
  // single-field calls. The element types are those of forward()/backward() above.
  template <typename In, typename Out>
  void forward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out,
                    std::size_t out_n, Timings* t = nullptr) const {
    using I = std::remove_const_t<In>;
    static_assert(is_fft_type<I>() && is_fft_type<Out>(), "forward_many: element types must be double, float or their std::complex");
    check_call("forward", is_real<I>(), is_real<Out>(), precision_of<I>());
    many_bytes(true, in.size(), reinterpret_cast<const void* const*>(in.data()), in_n * sizeof(I), out.size(),
               reinterpret_cast<void* const*>(out.data()), out_n * sizeof(Out), t);
  }
  template <typename In, typename Out>
  void backward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out,
                     std::size_t out_n, Timings* t = nullptr) const {
    using I = std::remove_const_t<In>;
    static_assert(is_fft_type<I>() && is_fft_type<Out>(), "backward_many: element types must be double, float or their std::complex");
    check_call("backward", is_real<I>(), is_real<Out>(), precision_of<I>());
    many_bytes(false, in.size(), reinterpret_cast<const void* const*>(in.data()), in_n * sizeof(I), out.size(),
               reinterpret_cast<void* const*>(out.data()), out_n * sizeof(Out), t);
  }
  // The same on vectors of fields (sizes: the smallest vector of each side).
  template <typename In, typename Out>
  void forward_many(const std::vector<std::vector<In>>& in, std::vector<std::vector<Out>>& out,
                    Timings* t = nullptr) const {
    forward_many(pointers(in), smallest(in), pointers(out), smallest(out), t);
  }
  template <typename In, typename Out>
  void backward_many(const std::vector<std::vector<In>>& in, std::vector<std::vector<Out>>& out,
                     Timings* t = nullptr) const {
    backward_many(pointers(in), smallest(in), pointers(out), smallest(out), t);
  }
  // Untyped form: nv fields, sizes in bytes per field.
  void forward_many_bytes(std::size_t nv, const void* const* in, std::size_t in_bytes, void* const* out,
                          std::size_t out_bytes, Timings* t = nullptr) const {
    many_bytes(true, nv, in, in_bytes, nv, out, out_bytes, t);
  }
  void backward_many_bytes(std::size_t nv, const void* const* in, std::size_t in_bytes, void* const* out,
                           std::size_t out_bytes, Timings* t = nullptr) const {
    many_bytes(false, nv, in, in_bytes, nv, out, out_bytes, t);
  }

  // Diagnostics for benchmarks: runs only one exchange (0 ROW, 1 COL) of one direction on
  // the plan's own buffers (their contents are meaningless then) and adds its time to
  // t->row or t->col. Collective. nbfft-sine times the exchanges alone with it.
  void exchange_only(int exchange, bool forward, Timings* t = nullptr) const;

  struct Impl;
  // The resolved plan: boxes, each exchange with its collectives, chunks, depth and the
  // workspace bytes (several lines, this rank's view). Benchmarks print it with each record.
  friend std::ostream& operator<<(std::ostream& os, const Plan& plan);

 private:
  template <typename X>
  static constexpr bool is_fft_type() {
    return std::is_same_v<X, double> || std::is_same_v<X, float> || std::is_same_v<X, std::complex<double>> ||
           std::is_same_v<X, std::complex<float>>;
  }
  template <typename X>
  static constexpr bool is_real() { return std::is_same_v<X, double> || std::is_same_v<X, float>; }
  template <typename X>
  static constexpr Precision precision_of() {
    return std::is_same_v<X, double> || std::is_same_v<X, std::complex<double>> ? Precision::Double : Precision::Single;
  }
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
  void many_bytes(bool forward, std::size_t nv_in, const void* const* in, std::size_t in_bytes, std::size_t nv_out,
                  void* const* out, std::size_t out_bytes, Timings* t) const;
  void one_bytes(bool forward, const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes, Workspace* ws,
                 Timings* t) const;
  Pending start_bytes(bool forward, const void* in, std::size_t in_bytes, void* out, std::size_t out_bytes,
                      Workspace& ws, Timings* t) const;
  void check_call(const char* what, bool real_in, bool real_out, Precision p) const;
  const Impl& impl() const;  // throws InvalidState on a moved-from plan
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::fft
