// Options: every run-time choice of a Plan in one printable object (heFFTe's plan_options).
//
// A benchmark prints `options` with operator<< so each record says exactly what ran.
// The parse_* helpers turn command-line words into options and throw nbfft::Error listing
// the accepted words when given anything else.
#pragma once

#include "nbfft/coll/transport.hpp"
#include "nbfft/fft/r2r_kinds.hpp"

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbfft::fft {

enum class Precision { Double, Single };

// R2C: forward real -> complex (x shrinks to nx/2+1), backward complex -> real (c2r).
// C2C: complex both ways.
enum class TransformKind { R2C, C2C };

// Scaling, named like numpy.fft's `norm`, plus FFTW's unscaled convention:
//   None      neither direction scaled (FFTW, P3DFFT): backward(forward(f)) = N*f
//   Backward  backward scaled by 1/N (the default in every front end, as numpy's): the
//             forward spectrum is FFTW's and backward(forward(f)) = f (docs/fft.md)
//   Forward   forward scaled by 1/N
//   Ortho     both scaled by 1/sqrt(N)
// N = nx*ny*nz. The scaling is fused into the z-FFT stage, so it costs no extra pass.
enum class Norm { None, Backward, Forward, Ortho };

// How hard the local FFT backend searches for fast plans (FFTW's planner: estimate ...
// exhaustive; backends without a planner ignore it). Measure plans take seconds on large
// grids but make each execution faster; wisdom (fft/wisdom.hpp) keeps them.
enum class Effort { Estimate, Measure, Patient, Exhaustive };

// The library that runs a stage's local FFTs (docs/fft.md "Local FFT backends"). Auto:
// FFTW where this nbfft was built with it (and for the r2r kinds, which MKL lacks), else
// MKL; the environment variable NBFFT_LOCAL_BACKEND (fftw|mkl) changes what Auto picks for
// the periodic axes. Plan::options() reports the backend each stage runs.
enum class Backend { Auto, Fftw, Mkl };
using StageBackends = std::array<Backend, 3>;  // the x, y and z stages

// How hard plan-time tuning searches (fft/tune.hpp): None makes the plan as asked; Quick
// tries the likely winners, Thorough more of each kind, Exhaustive every combination.
enum class TuneEffort { None, Quick, Thorough, Exhaustive };

// The spectrum's memory order on each rank (docs/fft.md "Output order"). Transposed: the
// Z-pencil stored [ky][kz][kx] (FFTW-MPI's transposed-out order, the fastest); Natural:
// [kz][ky][kx] (numpy's order, x fastest), one local copy per transform more. A plan made
// with user boxes (Plan's box constructor) takes its output order from the output box.
enum class OutputOrder { Transposed, Natural };

// Where a plan's arrays live (docs/gpu.md). Host: host memory, the CPU plan. Cuda: device
// memory of a CUDA GPU, the device plan (cuFFT, device pack/unpack, exchanges staged through
// pinned host memory); transforms take device pointers. Emulated: the device plan's path on
// host memory and the local FFT layer, for tests and debugging (slow).
enum class Device { Host, Cuda, Emulated };

// How a device plan's exchanges move blocks between ranks (docs/gpu.md). Staged: copies to
// pinned host memory, the engine's alltoallv (row_ / col_transport), copies back; any MPI,
// any placement of ranks. Ipc: ranks read each other's device buffers (CUDA IPC), for ranks
// sharing a GPU or on GPUs that reach each other; no host copies, no MPI for the data.
// Mpi: device buffers handed to a CUDA-aware MPI (MPIX_Query_cuda_support), no host copies;
// the plan refuses it where the MPI library says it is not. Nccl: grouped ncclSend /
// ncclRecv queued on the field's stream, progressed by the GPU (one GPU per rank; NCCL is
// loaded when a plan asks for it).
enum class DeviceExchange { Staged, Ipc, Mpi, Nccl };

// Seed 002 §3's five ways to redistribute the COL exchange (the slab transpose when
// M1 = 1), as settings of the one exchange path: an alltoall algorithm of coll/'s registry,
// a chunking and an in-flight depth (docs/fft.md "Redistribution kernels").
//   replace    `replace` algorithm (MPI_Sendrecv_replace), per plane, depth 1
//   standard   `standard` algorithm (blocking MPI_Send/MPI_Recv pairs), per plane, depth 1
//   overlap    `linear` algorithm (MPI_Isend/MPI_Irecv with every peer), per plane, depth 1:
//              a plane's exchange completes after the next plane has been transformed
//   oneplane   `blocking` algorithm (MPI_Alltoallv), per plane
//   allplanes  `blocking` algorithm, one bulk exchange (the default transform)
// "Per plane" is a chunk of col_chunk_planes planes (1 unless set).
struct ColKernel {
  const char* name;
  const char* algorithm;  // alltoall algorithm name (runs on the caller engine)
  bool per_plane;         // chunked with depth 1; else one bulk exchange
  const char* summary;
};
const std::vector<ColKernel>& col_kernels();
// Case-insensitive; throws Error listing the kernels for anything else.
const ColKernel& find_col_kernel(std::string_view name);

// Caller-progress calls per stage when nothing else says: each stage's plane loop is cut
// into this many chunks with coll::progress_all() between them while an exchange is in
// flight (measured on the emulated cluster, docs/fft.md "Multi-field transforms").
constexpr int kDefaultProgressChunks = 64;

struct Options {
  Precision precision = Precision::Double;
  TransformKind transform = TransformKind::R2C;
  // The forward transform of each axis x, y, z (nbfft/fft/r2r_kinds.hpp): periodic (the
  // DFT; r2c on x of real data) or an FFTW r2r kind. Real data with every axis r2r stays
  // real (real in, real out); real data needs x periodic or every axis r2r.
  AxisKinds kinds{AxisKind::Periodic, AxisKind::Periodic, AxisKind::Periodic};
  Norm norm = Norm::Backward;
  // Process grid M1 x M2 (M1 splits y of the input, M2 splits z). 0 x 0 lets the plan choose
  // (slabs when they fit, else the squarest grid); one 0 is derived from the other.
  int m1 = 0, m2 = 0;
  // How each exchange moves data: an alltoall algorithm x progress engine of coll/.
  // "blocking" (MPI_Alltoallv, caller engine) is the default: the fastest for a transform
  // that does not overlap anything. The thread engine needs MPI_THREAD_MULTIPLE.
  coll::Transport row_transport{};
  coll::Transport col_transport{};
  Effort effort = Effort::Measure;
  StageBackends backends{Backend::Auto, Backend::Auto, Backend::Auto};
  // Let grids leave some ranks without points (e.g. 8 ranks on nz = 4). Those ranks just
  // take part in the exchanges. When false such grids are an error at plan time.
  bool allow_empty = true;

  // Multi-field pipeline and plane pipeline (docs/fft.md): the local FFT work of a stage
  // runs in `progress_chunks` chunks with coll::progress_all() between them while an
  // exchange is in flight (0 = kDefaultProgressChunks; only the caller engine needs them).
  int progress_chunks = 0;
  // Plane-pipelined COL exchange (seed 001 §5): > 0 starts the exchange of every chunk of
  // this many planes as soon as they are transformed; 0 = one bulk exchange.
  int col_chunk_planes = 0;
  // Chunks of the COL exchange in flight at once while the next planes are transformed:
  // 0 = all of them (the plane pipeline); 1 = one (seed 002's per-plane kernels).
  int col_depth = 0;
  // Fields in flight in forward_many / backward_many: the plan holds this many workspaces
  // (each about the size of the local data) and pipelines that many fields over the COL
  // exchange: 2 (the default, N-D plans' too) is seed 000 Fig. 4, each field's COL exchange
  // behind its neighbours' FFTs; 1 runs the fields one after the other. Only a bulk COL
  // exchange between several ranks on a transport that can overlap (not `blocking`, which
  // completes where it starts) pipelines; otherwise the plan holds one workspace, so the
  // default costs no memory on the default transport (docs/fft.md "Defaults").
  // Split-phase transforms (Plan::forward_start) use workspaces from make_workspace().
  int fields_in_flight = 2;
  // Lean workspace (docs/fft.md "Memory"): the plan's own buffers shrink to about 1x the
  // local data (default: 2-3x) by using the caller's array as one side of every exchange,
  // at the price that transforms run in place only (the same array in and out) and the
  // first exchange is cut into one collective per plane. Plans where this cannot work
  // (tiny x extents on many ranks, one rank) keep the default workspace and say why.
  bool lean_workspace = false;
  // Pencils with fields in flight: also pipeline the ROW exchange across fields (each field's
  // ROW exchange behind the previous field's last stage; docs/fft.md "Multi-field
  // transforms"). It shortens the COL exchange's cover to one stage, so it pays where ROW
  // crosses the network too and costs where ROW stays within a node (seed 000's layout):
  // measured +5% on 2 hosts x 2 ranks. The tuner tries both.
  bool pipeline_row = false;
  // Threads per rank for the local stages (FFTs, pack and unpack; docs/fft.md "Threads
  // inside each rank"): each stage's planes are shared among this many threads, with the
  // same result as one thread. 0: from the environment (NBFFT_THREADS, else
  // OMP_NUM_THREADS, else 1); Plan::options() holds the number resolved. Purely local (no
  // exchange changes), so ranks may differ. More than 1 needs MPI_THREAD_FUNNELED.
  int threads = 0;
  // The thread engine's core (docs/fft.md "Threads inside each rank"): with the thread
  // engine on either exchange the rank runs its agent thread beside the compute threads.
  // false (the default): it shares the rank's CPUs with `threads` compute threads (it polls
  // and sleeps, so it needs little of a core); true: one of the rank's CPUs is left to it,
  // the plan running at most CPUs - 1 compute threads (at least 1; Plan::options().threads
  // says how many). Nothing is pinned; without the thread engine it changes nothing.
  bool engine_own_core = false;
  // Padded transforms for dealiasing (docs/fft.md "Padding"): ratio r_d >= 1 per axis
  // (x, y, z). The plan's grid n is the spectrum's; the physical grid is
  // m_d = floor(n_d * r_d) (as mpi4py-fft's int(np.floor(padding * n))). Backward zero-pads
  // the n-mode spectrum to m per axis, stage by stage, and forward truncates back, so no
  // exchange carries the padded spectrum. {1, 1, 1}: no padding.
  std::array<double, 3> padding{1.0, 1.0, 1.0};
  // The spectrum's memory order (OutputOrder above; Plan::out_box().order says which).
  OutputOrder output_order = OutputOrder::Transposed;
  // Where the arrays live (Device above) and, for Cuda, which GPU: -1 picks the rank's
  // node-local index modulo the GPUs it sees, so the ranks of a node spread over its GPUs
  // (several ranks may share one).
  Device device = Device::Host;
  int device_id = -1;
  DeviceExchange device_exchange = DeviceExchange::Staged;

  // Plan-time tuning (fft/tune.hpp, docs/fft.md "Tuning"). With tune other than None the
  // plan's constructor first times candidates of the rows the option table marks tuned
  // (collective, up to tune_budget seconds) and is then made with the fastest;
  // Plan::tune_report() says what was tried and chosen. These are the tuner's own
  // settings: they are neither part of its wisdom key nor stored in its wisdom.
  TuneEffort tune = TuneEffort::None;
  double tune_budget = 10;  // seconds of trials; the best found so far wins
  int tune_fields = 1;      // fields per transform call the application makes (forward_many)
  std::string tune_wisdom;  // file remembering choices across runs ("" = this process only)
  int tune_log = 0;         // 0 quiet, 1 progress lines on rank 0's stderr, 2 also every trial

  // Sets both transports from a name ("blocking", "pairwise:4@thread", ...).
  Options& transport(std::string_view name);
  // Sets col_transport, col_chunk_planes (at least 1 for per-plane kernels, 0 for
  // allplanes) and col_depth to one of seed 002's kernels (col_kernels()).
  Options& col_kernel(std::string_view name);
};

std::ostream& operator<<(std::ostream& os, const Options& o);

// The data's element types: real data (transform r2c) whose every axis is r2r has a real
// spectrum (real in, real out); x is halved (nx/2+1 complex points) only when it is the
// periodic r2c axis.
inline bool real_spectrum(const Options& o) { return o.transform == TransformKind::R2C && all_r2r(o.kinds); }
inline bool halves_x(const Options& o) { return o.transform == TransformKind::R2C && !is_r2r(o.kinds[0]); }

const char* name(Precision p);      // "double", "single"
const char* name(TransformKind t);  // "r2c", "c2c"
const char* name(Norm n);           // "none", "backward", "forward", "ortho"
const char* name(Effort e);         // "estimate", "measure", "patient", "exhaustive"
const char* name(TuneEffort e);     // "none", "quick", "thorough", "exhaustive"
const char* name(OutputOrder o);    // "transposed", "natural"
const char* name(Device d);         // "host", "cuda", "emulated"
const char* name(DeviceExchange e);  // "staged", "ipc", "mpi", "nccl"
const char* name(Backend b);        // "auto", "fftw", "mkl"

Precision parse_precision(std::string_view s);  // double|single (also float)
TransformKind parse_transform(std::string_view s);  // r2c|c2c
Norm parse_norm(std::string_view s);
Effort parse_effort(std::string_view s);
TuneEffort parse_tune_effort(std::string_view s);  // none|quick|thorough|exhaustive
OutputOrder parse_output_order(std::string_view s);  // transposed|natural
Device parse_device(std::string_view s);              // host|cuda|emulated
DeviceExchange parse_device_exchange(std::string_view s);  // staged|ipc|mpi|nccl
Backend parse_backend(std::string_view s);            // auto|fftw|mkl
// "B" (every stage) or "B,B,B" (x, y, z); backends_str writes one name when the three agree.
StageBackends parse_backends(std::string_view s);
std::string backends_str(const StageBackends& b);
// "M1xM2" -> {M1, M2}, each entry in [least, 2^20]; throws on anything else. least = 0 is
// the plan option's spelling (Options::m1, m2: a 0 is derived from the other entry).
std::pair<int, int> parse_proc_grid(std::string_view s, int least = 1);
// Ranks per axis, axis 0 first ("2x1x1" -> {2, 1, 1}; "auto" or "" -> {}: chosen), every
// entry an integer in [1, INT_MAX]; the process-grid spelling every plan reads (the N-D
// plan's proc_grid, the 3-D plan's PZxPYx1). Throws InvalidArgument otherwise.
std::vector<int> parse_ranks_per_axis(std::string_view s);
// Padding ratios: "R" (every axis) or "RX,RY,RZ", each a number >= 1; throws on anything
// else. padding_str writes one number when the three agree ("1.5"), else three.
std::array<double, 3> parse_padding(std::string_view s);
std::string padding_str(const std::array<double, 3>& r);
// The physical grid of a padded plan, m_d = floor(n_d * r_d); throws naming the axis for a
// ratio below 1 (or not finite) or a grid past 2^62 points per axis.
std::array<std::int64_t, 3> padded_size(const std::array<std::int64_t, 3>& n, const std::array<double, 3>& r);
// The same for any number of axes (an N-D plan's padding: one ratio for every listed axis,
// or one per listed axis): the ratios of "R" or "R,R,...", each a number >= 1, and their
// shortest text ("1.5" when they agree). padded_points is one axis's m = floor(n * r),
// `axis` naming it in the error of a grid past 2^62.
std::vector<double> parse_padding_list(std::string_view s);
std::string padding_list_str(const std::vector<double>& r);
std::int64_t padded_points(std::int64_t n, double r, const std::string& axis);

}  // namespace nbfft::fft
