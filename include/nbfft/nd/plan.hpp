// nbfft::nd::Plan: distributed FFTs of arrays of any number of dimensions along any subset
// of their axes (numpy's fftn / rfftn with `axes`), on the pencil transposes of
// nbfft/fft/transpose.hpp. The 3-D nbfft::fft::Plan is untouched by this layer.
//
//   nbfft::nd::Options o;                               // r2c, double, norm "backward"
//   nbfft::nd::Plan p(MPI_COMM_WORLD, {nz, ny, nx}, {0, 2}, o);   // a channel: x and z, not y
//   std::vector<double> u(p.in_count());  std::vector<std::complex<double>> uh(p.out_count());
//   p.forward(u.data(), u.size(), uh.data(), uh.size());
//   p.backward(uh.data(), uh.size(), u.data(), u.size());
//
// Single precision: Options::precision = Single and the float / std::complex<float>
// overloads (one Plan type, as the 3-D plan's Options::precision, so the C, Fortran and
// Python front ends keep one handle). Transform kinds: Options::kinds gives each listed axis
// periodic (the DFT) or an FFTW r2r kind (sine/cosine, nbfft/fft/r2r_kinds.hpp).
//
// Conventions are numpy's: shape and boxes list axes slowest first (axis 0 slowest), each
// rank's block is a C-order array of its box's extents (last axis fastest), and negative
// axes count from the end. r2c halves axes.back() (the last axis *as listed*, as rfftn
// does) to n/2+1; the other listed axes are c2c; axes not listed are carried along.
//
// Several fields (velocity components, species): forward_many / backward_many transform
// field k from in[k] to out[k], pipelined: up to Options::fields_in_flight fields travel at
// once, each field's exchanges behind the other fields' local FFTs and copies. Split phase:
// forward_start / backward_start run a transform up to its first exchange and return a
// Pending; wait() finishes it. A batch axis (Options::batch_axis) holds many fields in one
// array: every slice along it is a field, transformed through the same pipeline. Results
// equal the one-field calls bit for bit.
//
// Decomposition: the input is split over a process grid, `grid[a]` ranks along axis a
// (product = communicator size; Options::grid, or chosen). The plan is a sequence of
// local FFTW transforms over the axes that are whole on every rank, alternating with
// exchanges that move one grid dimension from an axis still to be transformed onto one
// already transformed (each a pencil transpose of nbfft::fft::Pencils over that grid
// dimension's ranks, the dims between the two axes moved aside by a local copy). The
// chosen grid puts the ranks on untransformed axes first: those never need an exchange
// (shape (nz, ny, nx), axes (0, 2) at ny >= ranks is purely local). Every distributed axis
// holds at least one point per rank at every stage when a grid can do that; otherwise (and
// with a set grid) some ranks hold nothing at some stages (Options::allow_empty).
#pragma once

#include "nbfft/fft/elements.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/geometry/box.hpp"
#include "nbfft/request.hpp"

#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nbfft::nd {

// r2c or c2c: the 3-D plan's transform kind (the option table's key `transform`, also
// spelled `kind`).
using Kind = fft::TransformKind;
using fft::name;  // name(Kind): "r2c", "c2c"

// A block of an N-D array: global offset and extent along each axis (axis 0 first), and
// the axes in memory order, slowest first (empty: C order). Only a transposed spectrum
// (Options::output_order) has another order. The one box of every plan
// (nbfft/geometry/box.hpp).
using Box = nbfft::Box;

struct Options {
  Kind kind = Kind::R2C;
  fft::Precision precision = fft::Precision::Double;  // Single: the float overloads below
  // The forward transform of each listed axis, in the order of `axes` (empty: all periodic):
  // periodic, or an r2r kind (dct1..dct4, dst1..dst4; backward runs its inverse kind). With
  // real input (R2C) the halved axis is the last listed *periodic* axis; with no periodic
  // axis the spectrum is real (real in, real out: the real-to-real overloads). On complex
  // data an r2r kind transforms the real and imaginary parts alike. Norms use each axis's
  // logical size (2(n-1) for dct1, 2(n+1) for dst1, 2n for the other r2r kinds).
  std::vector<fft::AxisKind> kinds;
  fft::Norm norm = fft::Norm::Backward;  // as nbfft::fft::Options (1/N on backward)
  // Dealiasing (the 3-D option's name and rule; docs/nd.md "Padding"): one ratio >= 1 for
  // every listed axis, or one per listed axis in the order of `axes` (empty, or 1: none).
  // `shape` is then the spectrum's grid n; the input lives on the physical grid
  // m = floor(n * R) per listed axis (shape() reports it). Backward zero-pads each padded
  // axis from n to m modes before its FFT, forward truncates after it, so the spectrum keeps
  // the modes of n (docs/fft.md "Padding": the Nyquist split, the norm). Periodic axes only.
  std::vector<double> padding;
  fft::Effort effort = fft::Effort::Measure;  // the 3-D plan's default (docs/fft.md "Defaults")
  // The local FFT library (nbfft/fft/options.hpp Backend): auto, fftw or mkl; r2r axes need
  // FFTW (auto takes it for them).
  fft::Backend backend = fft::Backend::Auto;
  // Ranks along each axis at the input (length = number of axes, product = communicator
  // size; a batch axis's entry 1); empty: chosen (untransformed axes first, then the fewest
  // exchanges).
  std::vector<int> grid;
  std::string transport = "blocking";  // every exchange's transport ("pairwise:4@thread", ...)
  // The first exchange's transport (row_transport) and every later one's (col_transport),
  // the 3-D plan's names: a field's forward meets its ROW exchange first (on a 3-D array the
  // 3-D plan's x<->y one), then the COL ones. Empty: `transport`. In options text,
  // transport= sets both, as on the 3-D plan, and reads "mixed" when they differ.
  std::string row_transport, col_transport;
  // A batch axis (numpy-style, negative from the end; not among `axes`): every slice along it
  // is a field of the array's other axes, whole on every rank (each rank holds all fields of
  // its block), transformed through the multi-field pipeline. Unset: every axis is the
  // array's, and an untransformed axis may be split over the ranks like any other.
  std::optional<int> batch_axis;
  // Fields whose exchanges are in flight at once in forward_many, a batch or a split-phase
  // call (>= 1; 1: the fields one after the other). A field in flight holds no work array
  // of the plan (its exchange packs at the start and unpacks at the end), only its
  // exchange's send and receive buffers, made the first time they are needed.
  int fields_in_flight = 2;
  // With fields in flight on a caller or native engine (which move an exchange only in a
  // progress pass), each local FFT step runs in this many chunks along an axis it does not
  // transform, with a progress pass between them (0: fft::kDefaultProgressChunks; 1: whole).
  // The thread engine and blocking transports need none. The 3-D option's name.
  int progress_chunks = 0;
  // The plane pipeline (the 3-D options' names; docs/nd.md "Plane-pipelined exchanges"): each
  // exchange after the first (col_transport's) in chunks of col_chunk_planes local planes of
  // axis 0, chunk j started as soon as the FFT step before it has transformed those planes,
  // col_depth chunks in flight (0: all), every chunk complete before the FFT step after it.
  // Applies where axis 0 is neither exchanged nor transformed by the FFT steps on either side
  // (describe() lists the exchanges it pipelines); 0: one bulk exchange. col_kernel sets
  // col_transport and both.
  int col_chunk_planes = 0;
  int col_depth = 0;
  // The spectrum's memory order (the 3-D option's name and values; docs/nd.md "Output
  // order"). Natural: C order, as numpy's rfftn. Transposed: the two slowest transformed
  // axes trade places in memory (2-D [k1][k0], 3-D [ky][kz][kx]: FFTW-MPI's transposed
  // out), whatever the grid and the number of ranks; the other axes (a batch axis too) keep
  // theirs. It is the faster order when the last exchange or the last FFT is between those
  // two axes: the last FFT then runs along a faster axis. out_box().order says which.
  fft::OutputOrder output_order = fft::OutputOrder::Natural;
  // A 3-D array transformed along all three axes runs on the 3-D nbfft::fft::Plan (its
  // exchanges fused with its FFT stages) whenever that plan can hold exactly this plan's
  // boxes, grid, kinds and output order: no batch axis, the input's last axis whole on
  // every rank, real input halved along the last axis (or every axis r2r), the spectrum's
  // boxes those of the 3-D plan's pencils (docs/nd.md "3-D plans over all axes"). Boxes,
  // results, errors and the calls are the same either way; describe() says which runs.
  // false keeps nd's own steps (for comparison: benchmarks and tests).
  bool use_3d_plan = true;
  // Whether a grid may split an axis over more ranks than it has points at some stage, so
  // that those ranks hold none of it there (they still take part in the exchanges): a
  // (2, 9) array over 3 ranks. A grid that leaves no rank empty is still chosen when there
  // is one. false: such a grid is an error (the 3-D option's name and default).
  bool allow_empty = true;
  // Lean workspace (the 3-D option's name; docs/nd.md "Memory"): the plan holds one work
  // array instead of two (and, with real input, a third for it) and uses the caller's array
  // as the other, so every call must run in place: the same array as input and output, of
  // at least inplace_bytes() (the larger of the two sizes, or of the stages between where a
  // stage is larger); otherwise an error on every rank. A plan with a batch axis keeps the
  // default arrays; describe() says why. With user boxes the caller's array holds only the
  // caller's blocks: each call stages every field in one array of the plan's in-place size
  // (the reshapes fill and empty it) and transforms there, in place. A 3-D plan over all axes
  // passes it to the 3-D plan. Exchanges keep their own send and receive buffers.
  bool lean_workspace = false;
  // Plan-time tuning (nbfft/nd/tune.hpp): none, or quick / thorough / exhaustive. The plan
  // then times candidate grids, transports and fields in flight on the caller's ranks for
  // up to tune_budget seconds and keeps the fastest (grid, transport and fields_in_flight
  // above are the first candidate, not a fixed choice); tune_fields: the fields per call the
  // application makes (forward_many of that many; a batch plan's calls hold its batch).
  fft::TuneEffort tune = fft::TuneEffort::None;
  double tune_budget = 10;
  int tune_fields = 1;
  // A file where the tuner keeps its choices across runs (the 3-D option's; the same file
  // may serve both plans: their keys differ). Empty: this process's memory only.
  std::string tune_wisdom;
  // What the tuner prints on rank 0's stderr (the 3-D option's): 0 nothing, 1 progress lines
  // with an ETA and the choice, 2 also every trial. The process's tune log hook
  // (fft::set_tune_log, C's nbfft_set_tune_log, Python's logger "nbfft.tune") gets every
  // event whatever it is, TuneEvent::candidate naming the options.
  int tune_log = 0;
  // Threads inside each rank (the 3-D option's name, range and environment: 0 reads
  // NBFFT_THREADS, else OMP_NUM_THREADS, else 1; docs/nd.md "Threads inside each rank"):
  // each local step's FFTs run in chunks along an axis the step does not transform, and the
  // plan's own copies (transposes, the copy in and out) in row blocks, shared among the
  // threads; only the calling thread calls MPI (MPI_THREAD_FUNNELED for more than one). A
  // 3-D plan over all axes passes both to the 3-D plan.
  int threads = 0;
  // With the thread engine: at most the rank's CPUs - 1 compute threads (the agent keeps one).
  bool engine_own_core = false;
};

// The transport of a plan's exchange `index` (0: its first): row_transport, col_transport
// or transport.
const std::string& exchange_transport(const Options& o, int index);

struct TuneReport;  // nbfft/nd/tune.hpp

class Plan {
 public:
  // Collective over comm. Throws nbfft::Error on every rank for an axis out of range or
  // repeated, a non-positive extent, ranks that disagree on the shape, axes or options, a
  // grid of the wrong length or product, or a decomposition that cannot be made; for a shape
  // whose element count overflows or passes 2^56 - 1 (InvalidArgument, before anything is
  // allocated) and work arrays that cannot be allocated (OutOfMemory). A moved-from plan's
  // members throw InvalidState.
  Plan(MPI_Comm comm, std::vector<std::int64_t> shape, std::vector<int> axes, const Options& options = {});
  Plan(MPI_Comm comm, std::vector<std::int64_t> shape);  // every axis, default Options
  // User boxes: this rank's block of the input array (in_box) and of the spectrum (out_box)
  // in the caller's own decomposition (lo and n per axis, C order; a batch axis included and
  // whole or not, as the caller holds it). The blocks of all ranks must tile each array
  // (empty blocks allowed). Every call then takes and gives arrays in these blocks: the plan
  // moves them to and from its own by one all-to-all each way (a split-phase call's result
  // in wait()). nullopt (or blocks equal to the plan's own on every rank): that side in the
  // plan's own block, no reshape. in_box() / out_box() and the counts are then the caller's. Errors on every rank: a box outside the array, of the
  // wrong rank, or blocks that overlap or leave points out.
  Plan(MPI_Comm comm, std::vector<std::int64_t> shape, std::vector<int> axes, std::optional<Box> in_box,
       std::optional<Box> out_box, const Options& options = {});
  ~Plan();
  Plan(Plan&&) noexcept;
  Plan& operator=(Plan&&) noexcept;

  const std::vector<std::int64_t>& shape() const;   // the real (r2c) or complex input's shape
  std::vector<std::int64_t> out_shape() const;      // the spectrum's (r2c: axes.back() halved)
  const std::vector<int>& axes() const;             // as given, made non-negative
  Kind kind() const;
  fft::Precision precision() const;
  const std::vector<fft::AxisKind>& kinds() const;  // one per entry of axes()
  bool real_spectrum() const;                       // every listed axis r2r on real input
  const std::vector<int>& grid() const;             // the input's grid (ranks per axis)
  const std::vector<int>& out_grid() const;         // the spectrum's grid
  fft::OutputOrder output_order() const;
  const std::vector<int>& out_order() const;        // the spectrum's axes in memory order, slowest first
  int exchanges() const;                            // exchanges one transform makes
  int size() const;                                 // ranks
  int rank() const;

  const Box& in_box() const;   // this rank's block of the input (the caller's, with user boxes)
  const Box& out_box() const;  // of the spectrum
  bool user_boxes() const;     // whether a call reshapes either side (user boxes other than the plan's)
  Box in_box_of_rank(int r) const;
  Box out_box_of_rank(int r) const;
  std::size_t in_count() const;   // elements: real (r2c) or complex (c2c)
  std::size_t out_count() const;  // elements: complex, or real when real_spectrum()

  // Collective. Counts are elements of the arrays passed (at least in_count / out_count);
  // a short array is an error on every rank. The input is left unchanged.
  void forward(const double* in, std::size_t in_n, std::complex<double>* out, std::size_t out_n) const;
  void forward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out, std::size_t out_n) const;
  void backward(const std::complex<double>* in, std::size_t in_n, double* out, std::size_t out_n) const;
  void backward(const std::complex<double>* in, std::size_t in_n, std::complex<double>* out,
                std::size_t out_n) const;
  // real_spectrum() plans (every listed axis r2r on real data): real both ways.
  void forward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const;
  void backward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const;
  // Single precision (Options::precision = Single), the same calls on float data.
  void forward(const float* in, std::size_t in_n, std::complex<float>* out, std::size_t out_n) const;
  void forward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out, std::size_t out_n) const;
  void backward(const std::complex<float>* in, std::size_t in_n, float* out, std::size_t out_n) const;
  void backward(const std::complex<float>* in, std::size_t in_n, std::complex<float>* out,
                std::size_t out_n) const;
  void forward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const;
  void backward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const;

  // ---- Several fields, pipelined (nbfft::fft::Plan's names) ------------------------------
  // Field k goes from in[k] to out[k]; every in[k] holds at least in_n and every out[k] at
  // least out_n elements (the one-field sizes). in.size() == out.size() must be the same on
  // every rank; different fields must not share an output. Element types as the one-field
  // calls (double, float or their std::complex; a wrong pair throws on every rank). On a
  // batch plan each array is a whole batch.
  template <typename In, typename Out>
  void forward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out,
                    std::size_t out_n) const {
    static_assert(fft::fft_elements<In, Out>(), "nd::Plan::forward_many: double, float or their std::complex");
    many(true, fft::element_of<In>::type, fft::element_of<Out>::type, in.size(),
         reinterpret_cast<const void* const*>(in.data()), in_n, out.size(), reinterpret_cast<void* const*>(out.data()),
         out_n);
  }
  template <typename In, typename Out>
  void backward_many(const std::vector<In*>& in, std::size_t in_n, const std::vector<Out*>& out,
                     std::size_t out_n) const {
    static_assert(fft::fft_elements<In, Out>(), "nd::Plan::backward_many: double, float or their std::complex");
    many(false, fft::element_of<In>::type, fft::element_of<Out>::type, in.size(),
         reinterpret_cast<const void* const*>(in.data()), in_n, out.size(), reinterpret_cast<void* const*>(out.data()),
         out_n);
  }

  // ---- Split phase -----------------------------------------------------------------------
  // A transform in flight. progress() gives the exchanges in flight a host progress pass
  // (the caller engine moves only then, in test() and wait(), and between the steps of this
  // library's other transforms); test() also says whether the next exchange has arrived;
  // wait() runs the rest. wait() is collective when the plan has more than one exchange, or
  // the call several fields (the later exchanges start there): then every rank waits its
  // Pendings in the same order. Other calls of the plan may run meanwhile (they hold the
  // plan's work arrays only while they run; so does wait). A collective wait agrees first
  // on which transform it finishes (in start order): ranks out of step get RanksDisagree and
  // the transform stays active. The arrays and the plan must outlive the Pending;
  // destroying an active Pending waits for it.
  using Pending = nbfft::Request;  // nbfft/request.hpp

  // Collective (every rank starts in the same order). Runs the transform up to its first
  // exchange (on a batch plan: as many fields as are in flight at once) and starts it; the
  // result is in `out` after wait(). Arrays as the one-field calls.
  template <typename In, typename Out>
  Pending forward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n) const {
    static_assert(fft::fft_elements<In, Out>(), "nd::Plan::forward_start: double, float or their std::complex");
    return start(true, fft::element_of<In>::type, fft::element_of<Out>::type, in, in_n, out, out_n);
  }
  template <typename In, typename Out>
  Pending backward_start(const In* in, std::size_t in_n, Out* out, std::size_t out_n) const {
    static_assert(fft::fft_elements<In, Out>(), "nd::Plan::backward_start: double, float or their std::complex");
    return start(false, fft::element_of<In>::type, fft::element_of<Out>::type, in, in_n, out, out_n);
  }

  std::optional<int> batch_axis() const;  // non-negative, as made
  std::int64_t batch() const;             // fields in one array: the batch axis's extent, or 1
  int fields_in_flight() const;           // as given
  std::size_t workspace_bytes() const;    // the plan's work arrays (exchange buffers not counted)
  // Whether the plan got the lean workspace it was asked for (Options::lean_workspace): then
  // every call runs in place.
  bool lean_workspace() const;
  // Bytes of one array that serves a call in place (input and output the same array): the
  // larger of this rank's input and spectrum, or more for a lean plan whose stages between
  // are larger on this rank (they live in that array in turn). Pass counts that cover it.
  std::size_t inplace_bytes() const;
  // Whether the transforms run on the 3-D nbfft::fft::Plan (Options::use_3d_plan).
  bool uses_3d_plan() const;
  // The options the plan runs with: as given, with the grid as made and, when tuned, the
  // tuner's choice of grid, transport and fields_in_flight.
  const Options& options() const;
  // What the tuner tried and chose (Options::tune); nullptr when the plan was not tuned.
  const TuneReport* tune_report() const;

  // "nd r2c (6, 5, 8) axes (0, 2) grid 1x2x1 -> 1x2x1, 0 exchanges: fft(2,0)"; single
  // precision and r2r kinds are named ("nd r2c single ... kinds (periodic, dst2) ...")
  std::string describe() const;
  struct Impl;

 private:
  void call(bool fwd, fft::Element in_type, fft::Element out_type, const void* in, std::size_t in_n, void* out,
            std::size_t out_n) const;
  void many(bool fwd, fft::Element in_type, fft::Element out_type, std::size_t nv_in, const void* const* in,
            std::size_t in_n, std::size_t nv_out, void* const* out, std::size_t out_n) const;
  Pending start(bool fwd, fft::Element in_type, fft::Element out_type, const void* in, std::size_t in_n, void* out,
                std::size_t out_n) const;
  const Impl& impl() const;  // throws InvalidState on a moved-from plan
  std::unique_ptr<Impl> impl_;
};

}  // namespace nbfft::nd
