// The device plan (Options::device, gpu/transform.hpp) against the CPU plan, on the device
// NBFFT_TEST_DEVICE names: `emulated` (the default; host memory: the plan's schedule,
// exchange geometry, chunked staging and field pipeline, checked on every machine) or `cuda`
// (a GPU: the kernels and cuFFT too; every case reports SKIPPED where no GPU is seen).
// Every process grid of the communicator, even, uneven and tiny grids (empty ranks), r2c
// and c2c, double (1e-12) and single (1e-5), both output orders, every norm, chunked and
// bulk exchanges on several transports, one field and several in flight, every exchange
// (staged, ipc and nccl where the device has them, mpi), split phase.
#include "gpu/device.hpp"
#include "gpu/transform.hpp"
#include "nbfft/coll/transport.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/fft.hpp"
#include "nbfft/fft/tune.hpp"
#include "../fft/fft_test_util.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>

namespace nbfft::fft::test {
namespace {

using Grid = std::array<std::int64_t, 3>;

Device test_device() {
  const char* e = std::getenv("NBFFT_TEST_DEVICE");
  return e ? parse_device(e) : Device::Emulated;
}

// Skips the case (every rank alike) when the device is cuda and no GPU is seen.
#define NBFFT_NEED_DEVICE()                                                                        \
  do {                                                                                             \
    std::string why;                                                                               \
    if (test_device() == Device::Cuda && gpu::cuda_device_count(&why) == 0)                        \
      GTEST_SKIP() << "device=cuda: no GPU here (" << why << ")";                                  \
  } while (0)

// Device arrays for the tests: allocated, filled and read back through the device layer.
class Mem {
 public:
  Mem() {
    if (test_device() == Device::Cuda) {
      std::string why;
      const int n = gpu::cuda_device_count(&why);
      dev_ = gpu::cuda_device(gpu::node_local_rank(MPI_COMM_WORLD) % n);
    } else {
      dev_ = gpu::host_emulation();
    }
    q_ = dev_->make_queue();
  }
  ~Mem() {
    for (void* p : live_) dev_->free(p);
  }
  void* alloc(std::size_t bytes) {
    void* p = dev_->alloc(std::max<std::size_t>(bytes, 1), "test array");
    live_.push_back(p);
    return p;
  }
  template <typename X>
  void* put(const std::vector<X>& v, std::size_t bytes = 0) {
    void* p = alloc(std::max(bytes, v.size() * sizeof(X)));
    q_->copy(p, v.data(), v.size() * sizeof(X));
    q_->sync();
    return p;
  }
  template <typename X>
  std::vector<X> get(const void* p, std::size_t n) {
    std::vector<X> v(n);
    q_->copy(v.data(), p, n * sizeof(X));
    q_->sync();
    return v;
  }
  gpu::Device& device() { return *dev_; }

 private:
  std::unique_ptr<gpu::Device> dev_;
  std::unique_ptr<gpu::Queue> q_;
  std::vector<void*> live_;
};

template <typename X>
double rel_diff(const std::vector<X>& a, const std::vector<X>& b) {
  double in[2] = {0, 0}, out[2];
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    in[0] = std::max(in[0], static_cast<double>(std::abs(a[k] - b[k])));
    in[1] = std::max(in[1], static_cast<double>(std::abs(b[k])));
  }
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out[1] > 0 ? out[0] / out[1] : out[0];
}

template <typename In>
std::vector<In> field(const Plan& plan, const Grid& n, int seed) {
  constexpr bool real = std::is_floating_point<In>::value;
  auto d = random_box(plan.in_box(), n, real ? 1 : 2, 1000 + seed);
  std::vector<In> f(static_cast<std::size_t>(plan.in_count()));
  for (std::size_t k = 0; k < f.size(); ++k) {
    if constexpr (real)
      f[k] = static_cast<In>(d[k]);
    else
      f[k] = In(d[2 * k], d[2 * k + 1]);
  }
  return f;
}


std::string str(const Grid& n, const Options& o) {
  std::ostringstream os;
  os << n[0] << "x" << n[1] << "x" << n[2] << " on " << o.m1 << "x" << o.m2 << " " << name(o.transform) << " "
     << name(o.precision) << " " << name(o.output_order) << " norm " << name(o.norm) << " col "
     << o.col_transport.str() << " chunk " << o.col_chunk_planes << " in flight " << o.fields_in_flight;
  return os.str();
}

// The device plan of `o` against the CPU plan of the same options on nv fields: forward
// (forward_many when nv > 1) and backward, which must leave its input untouched.
template <typename In, typename Out>
void compare(const Grid& n, Options o, int nv, double tol) {
  const std::string what = str(n, o);
  Options h = o;
  h.device = Device::Host;
  o.device = test_device();
  const Plan ref(MPI_COMM_WORLD, n, h);
  const Plan dev(MPI_COMM_WORLD, n, o);
  ASSERT_EQ(dev.out_box(), ref.out_box()) << what;
  ASSERT_EQ(dev.in_box(), ref.in_box()) << what;
  Mem mem;
  std::vector<std::vector<In>> in(static_cast<std::size_t>(nv));
  std::vector<std::vector<Out>> spec_ref(in.size(), std::vector<Out>(static_cast<std::size_t>(ref.out_count())));
  std::vector<void*> din, dout;
  for (int v = 0; v < nv; ++v) {
    in[static_cast<std::size_t>(v)] = field<In>(ref, n, v);
    ref.forward(in[static_cast<std::size_t>(v)], spec_ref[static_cast<std::size_t>(v)]);
    din.push_back(mem.put(in[static_cast<std::size_t>(v)]));
    dout.push_back(mem.alloc(dev.out_bytes()));
  }
  // One field through transform_bytes, several through transform_many_bytes.
  auto run = [&](Direction d, std::vector<void*>& i, std::vector<void*>& o) {
    const bool fwd = d == Direction::Forward;
    const std::size_t ib = fwd ? dev.in_bytes() : dev.out_bytes(), ob = fwd ? dev.out_bytes() : dev.in_bytes();
    std::vector<const void*> ci(i.begin(), i.end());
    if (nv == 1)
      dev.transform_bytes(d, ci[0], ib, o[0], ob);
    else
      dev.transform_many_bytes(d, static_cast<std::size_t>(nv), ci.data(), ib, o.data(), ob);
  };
  run(Direction::Forward, din, dout);
  for (int v = 0; v < nv; ++v) {
    const auto got = mem.get<Out>(dout[static_cast<std::size_t>(v)], static_cast<std::size_t>(ref.out_count()));
    EXPECT_LE(rel_diff(got, spec_ref[static_cast<std::size_t>(v)]), tol) << what << ": forward, field " << v;
  }
  // Backward from the reference spectrum, into fresh arrays.
  std::vector<void*> bin, bout;
  for (int v = 0; v < nv; ++v) {
    bin.push_back(mem.put(spec_ref[static_cast<std::size_t>(v)]));
    bout.push_back(mem.alloc(dev.in_bytes()));
  }
  run(Direction::Backward, bin, bout);
  for (int v = 0; v < nv; ++v) {
    std::vector<In> back_ref(in[static_cast<std::size_t>(v)].size());
    ref.backward(spec_ref[static_cast<std::size_t>(v)], back_ref);
    const auto got = mem.get<In>(bout[static_cast<std::size_t>(v)], back_ref.size());
    EXPECT_LE(rel_diff(got, back_ref), tol) << what << ": backward, field " << v;
    const auto kept = mem.get<Out>(bin[static_cast<std::size_t>(v)], spec_ref[static_cast<std::size_t>(v)].size());
    EXPECT_EQ(rel_diff(kept, spec_ref[static_cast<std::size_t>(v)]), 0.0) << what << ": backward changed its input";
  }
}

// On a GPU also a grid of several 32 x 32 tiles per plane (the transposing kernel's).
// compare with the element types of o's transform and precision; 1e-12 in double, 2e-5 in single.
void compare(const Grid& n, const Options& o, int nv) {
  const bool r2c = o.transform == TransformKind::R2C;
  if (o.precision == Precision::Double && r2c)
    compare<double, std::complex<double>>(n, o, nv, 1e-12);
  else if (o.precision == Precision::Double)
    compare<std::complex<double>, std::complex<double>>(n, o, nv, 1e-12);
  else if (r2c)
    compare<float, std::complex<float>>(n, o, nv, 2e-5);
  else
    compare<std::complex<float>, std::complex<float>>(n, o, nv, 2e-5);
}

std::vector<Grid> grids() {
  if (test_device() == Device::Cuda) return {{17, 13, 11}, {16, 12, 10}, {5, 3, 2}, {66, 48, 40}};
  return {{17, 13, 11}, {16, 12, 10}, {5, 3, 2}};
}

// Every process grid x grid x kind x precision x output order, the transports, chunks and
// fields in flight rotating over the cases so that each meets every grid.
TEST(DevicePlan, MatchesCpuPlan) {
  NBFFT_NEED_DEVICE();
  const std::vector<std::string> transports = {"blocking", "caller", "pairwise:2@caller", "thread"};
  int c = 0;
  for (const auto& f : factorizations(world_size()))
    for (const Grid& n : grids())
      for (TransformKind tk : {TransformKind::R2C, TransformKind::C2C})
        for (Precision p : {Precision::Double, Precision::Single})
          for (OutputOrder order : {OutputOrder::Natural, OutputOrder::Transposed}) {
            Options o = test_options(f[0], f[1], tk, p);
            o.output_order = order;
            o.row_transport = o.col_transport = coll::Transport::parse(transports[static_cast<std::size_t>(c) % 4]);
            o.col_chunk_planes = c % 3;  // 0: about four chunks; 1, 2 planes a chunk
            o.fields_in_flight = 1 + c % 2;
            const int nv = 1 + (c / 2) % 3;
            ++c;
            compare(n, o, nv);
          }
}

TEST(DevicePlan, EveryNorm) {
  NBFFT_NEED_DEVICE();
  const auto fs = factorizations(world_size());
  int c = 0;
  for (Norm norm : {Norm::None, Norm::Backward, Norm::Forward, Norm::Ortho}) {
    const auto& f = fs[static_cast<std::size_t>(c++) % fs.size()];
    Options o = test_options(f[0], f[1], TransformKind::R2C, Precision::Double);
    o.norm = norm;
    compare<double, std::complex<double>>({12, 9, 7}, o, 1, 1e-12);
  }
}

// One array in and out (in place): sized for the larger of the input and output.
TEST(DevicePlan, InPlace) {
  NBFFT_NEED_DEVICE();
  for (const auto& f : factorizations(world_size())) {
    const Grid n{10, 7, 6};
    Options o = test_options(f[0], f[1], TransformKind::R2C, Precision::Double);
    for (OutputOrder order : {OutputOrder::Natural, OutputOrder::Transposed}) {
      o.output_order = order;
      Options h = o, d = o;
      d.device = test_device();
      const Plan ref(MPI_COMM_WORLD, n, h), dev(MPI_COMM_WORLD, n, d);
      Mem mem;
      const auto in = field<double>(ref, n, 7);
      std::vector<std::complex<double>> spec(static_cast<std::size_t>(ref.out_count()));
      ref.forward(in, spec);
      void* a = mem.put(in, dev.inplace_bytes());
      dev.forward_bytes(a, dev.inplace_bytes(), a, dev.inplace_bytes());
      EXPECT_LE(rel_diff(mem.get<std::complex<double>>(a, spec.size()), spec), 1e-12) << str(n, d) << " in place";
      dev.backward_bytes(a, dev.inplace_bytes(), a, dev.inplace_bytes());
      EXPECT_LE(rel_diff(mem.get<double>(a, in.size()), in), 1e-12) << str(n, d) << " in place round trip";
    }
  }
}

// What the device plan does not do is an Unavailable error naming it, on every rank.
TEST(DevicePlan, RefusesWhatItCannotDo) {
  NBFFT_NEED_DEVICE();
  auto refused = [](Options o, const char* words) {
    o.device = test_device();
    try {
      const Plan p(MPI_COMM_WORLD, {8, 8, 8}, o);
      ADD_FAILURE() << "no error; expected one naming '" << words << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unavailable) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
  Options pad = o;
  pad.padding = {1.5, 1.5, 1.5};
  refused(pad, "padding");
  Options r2r = o;
  r2r.kinds = {AxisKind::Periodic, AxisKind::Periodic, parse_axis_kind("dct2")};
  refused(r2r, "real-to-real");
  Options lean = o;
  lean.lean_workspace = true;
  refused(lean, "lean_workspace");
  if (test_device() == Device::Emulated) {
    Options ipc = o;
    ipc.device_exchange = DeviceExchange::Ipc;
    refused(ipc, "needs device=cuda");
  }
}

// Split phase on the device: transforms started on the plan's pool and on workspaces of
// make_workspace, a plain call and a timed one while they are in flight, waits in another
// order than the starts, progress() and test() in between; every result as the CPU plan's.
template <typename In, typename Out>
void split_phase(const Grid& n, Options o, double tol) {
  Options h = o;
  h.device = Device::Host;
  o.device = test_device();
  const std::string what = str(n, o) + " exchange " + name(o.device_exchange);
  const Plan ref(MPI_COMM_WORLD, n, h), dev(MPI_COMM_WORLD, n, o);
  Mem mem;
  constexpr int kFields = 4;
  std::vector<std::vector<In>> in;
  std::vector<std::vector<Out>> spec;
  std::vector<void*> din, dout, dback;
  for (int f = 0; f < kFields; ++f) {
    in.push_back(field<In>(ref, n, 40 + f));
    spec.emplace_back(static_cast<std::size_t>(ref.out_count()));
    ref.forward(in.back(), spec.back());
    din.push_back(mem.put(in.back()));
    dout.push_back(mem.alloc(dev.out_bytes()));
    dback.push_back(mem.alloc(dev.in_bytes()));
  }
  Plan::Workspace ws = dev.make_workspace();
  unsigned long held = ws.bytes(), most = 0;  // (a rank with an empty box may hold nothing)
  MPI_Allreduce(&held, &most, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_GT(most, 0u) << what;
  auto check_spec = [&](int f, const char* how) {
    EXPECT_LE(rel_diff(mem.get<Out>(dout[static_cast<std::size_t>(f)], spec[static_cast<std::size_t>(f)].size()),
                       spec[static_cast<std::size_t>(f)]),
              tol)
        << what << " " << how;
  };
  double busy = 0;  // the caller's own work between start and wait
  auto compute = [&busy] {
    for (int k = 0; k < 20000; ++k) busy += 1e-9 * k;
  };
  {
    Plan::Pending a = dev.start_bytes(Direction::Forward, din[0], dev.in_bytes(), dout[0], dev.out_bytes());
    Plan::Pending b = dev.start_bytes(Direction::Forward, din[1], dev.in_bytes(), dout[1], dev.out_bytes(), ws);
    compute();
    a.progress();
    (void)b.test();
    dev.forward_bytes(din[2], dev.in_bytes(), dout[2], dev.out_bytes());  // a plain call meanwhile
    Timings t;
    dev.forward_bytes(din[3], dev.in_bytes(), dout[3], dev.out_bytes(), &t);  // and a timed one
    compute();
    b.wait();  // (waits are collective on device plans: the same order on every rank)
    a.wait();
    EXPECT_FALSE(a.active());
  }
  for (int f = 0; f < kFields; ++f) check_spec(f, "forward, split phase");
  // Backward: two in flight on the pool, then one on the workspace by a plain call.
  {
    Plan::Pending a = dev.start_bytes(Direction::Backward, dout[0], dev.out_bytes(), dback[0], dev.in_bytes());
    Plan::Pending b = dev.start_bytes(Direction::Backward, dout[1], dev.out_bytes(), dback[1], dev.in_bytes());
    compute();
    dev.backward_bytes(dout[2], dev.out_bytes(), dback[2], dev.in_bytes(), ws);
    a.wait();
    b.wait();
  }
  for (int f = 0; f < 3; ++f) {
    const auto got = mem.get<In>(dback[static_cast<std::size_t>(f)], in[static_cast<std::size_t>(f)].size());
    EXPECT_LE(rel_diff(got, in[static_cast<std::size_t>(f)]), tol) << what << " backward, split phase " << f;
  }
  // A split-phase start keeps no timings: refused on every rank, the workspace free after.
  Timings t;
  try {
    (void)dev.start_bytes(Direction::Forward, din[0], dev.in_bytes(), dout[0], dev.out_bytes(), ws, &t);
    ADD_FAILURE() << what << ": a device start took Timings";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
  Plan::Pending again = dev.start_bytes(Direction::Forward, din[3], dev.in_bytes(), dout[3], dev.out_bytes(), ws);
  again.wait();
  check_spec(3, "forward on a workspace freed by a refused start");
  EXPECT_GE(busy, 0);
  // A workspace may outlive its plan: its device memory goes with it (ASan checks this).
  auto brief = std::make_unique<Plan>(MPI_COMM_WORLD, n, o);
  Plan::Workspace outlives = brief->make_workspace();
  brief.reset();
}

TEST(DevicePlan, SplitPhaseMatchesCpuPlan) {
  NBFFT_NEED_DEVICE();
  const std::vector<std::string> transports = {"caller", "thread", "blocking", "pairwise:2@caller"};
  int c = 0;
  for (const auto& f : factorizations(world_size()))
    for (const Grid& n : std::vector<Grid>{{17, 13, 11}, {5, 3, 2}}) {
      Options o = test_options(f[0], f[1], TransformKind::R2C, Precision::Double);
      o.row_transport = o.col_transport = coll::Transport::parse(transports[static_cast<std::size_t>(c) % 4]);
      o.col_chunk_planes = c % 3;
      o.fields_in_flight = 1 + c % 2;
      o.norm = Norm::Backward;  // backward undoes forward
      if (test_device() == Device::Cuda) o.device_exchange = c % 2 ? DeviceExchange::Ipc : DeviceExchange::Staged;
      else if (c % 3 == 2) o.device_exchange = DeviceExchange::Mpi;
      if (o.device_exchange == DeviceExchange::Mpi && !gpu::hands_buffers_to_mpi(o.col_transport))
        o.row_transport = o.col_transport = coll::Transport::parse("native");
      ++c;
      split_phase<double, std::complex<double>>(n, o, 1e-12);
      Options s = o;
      s.transform = TransformKind::C2C;
      s.precision = Precision::Single;
      s.output_order = OutputOrder::Natural;
      split_phase<std::complex<float>, std::complex<float>>(n, s, 2e-5);
    }
}

// Exchange e against the CPU plan: every process grid, a small and a tiny grid, r2c and c2c,
// double and single, both output orders, chunks, fields in flight, the transports in turn.
void exchange_matrix(DeviceExchange e, const std::vector<std::string>& transports) {
  int c = 0;
  for (const auto& f : factorizations(world_size()))
    for (const Grid& n : std::vector<Grid>{{17, 13, 11}, {5, 3, 2}})
      for (TransformKind tk : {TransformKind::R2C, TransformKind::C2C}) {
        Options o = test_options(f[0], f[1], tk, c % 4 == 3 ? Precision::Single : Precision::Double);
        o.device_exchange = e;
        const std::string& t = transports[static_cast<std::size_t>(c) % transports.size()];
        o.row_transport = o.col_transport = coll::Transport::parse(t);
        o.output_order = c % 2 ? OutputOrder::Natural : OutputOrder::Transposed;
        o.col_chunk_planes = c % 3;
        o.fields_in_flight = 1 + c % 2;
        const int nv = 1 + c % 3;
        ++c;
        compare(n, o, nv);
      }
}

// device_exchange=ipc: the ranks read each other's GPU memory (all ranks here share a GPU).
TEST(DevicePlan, IpcExchangeMatchesCpuPlan) {
  if (test_device() != Device::Cuda) GTEST_SKIP() << "ipc maps GPU memory between processes: device=cuda only";
  NBFFT_NEED_DEVICE();
  int c = 0;
  for (const auto& f : factorizations(world_size()))
    for (const Grid& n : std::vector<Grid>{{17, 13, 11}, {66, 48, 40}, {5, 3, 2}})
      for (TransformKind tk : {TransformKind::R2C, TransformKind::C2C}) {
        Options o = test_options(f[0], f[1], tk, Precision::Double);
        o.device_exchange = DeviceExchange::Ipc;
        o.output_order = c % 2 ? OutputOrder::Natural : OutputOrder::Transposed;
        o.col_chunk_planes = c % 3;
        const int nv = 1 + c % 3;
        ++c;
        compare(n, o, nv);
      }
}

// device_exchange=mpi: the exchanges hand device buffers to MPI. On the emulated device (host
// memory) any MPI takes them; on a GPU only a CUDA-aware one, and otherwise the plan is
// refused naming why. Transports whose algorithm copies blocks on the host are refused.
TEST(DevicePlan, MpiExchangeMatchesCpuPlan) {
  NBFFT_NEED_DEVICE();
  const std::string why = gpu::mpi_cuda_support();
  if (test_device() == Device::Cuda && !why.empty()) {
    Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
    o.device = Device::Cuda;
    o.device_exchange = DeviceExchange::Mpi;
    if (world_size() > 1) {
      try {
        const Plan p(MPI_COMM_WORLD, {8, 8, 8}, o);
        ADD_FAILURE() << "device_exchange=mpi accepted on an MPI that says " << why;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::Unavailable) << e.what();
      }
    }
    GTEST_SKIP() << "this MPI is not CUDA-aware (" << why << "); the refusal was checked";
  }
  exchange_matrix(DeviceExchange::Mpi, {"blocking", "caller", "pairwise:2@caller", "native"});
  Options bad = test_options(0, 0, TransformKind::R2C, Precision::Double);
  bad.device = test_device();
  bad.device_exchange = DeviceExchange::Mpi;
  bad.transport("bruck@caller");
  try {
    const Plan p(MPI_COMM_WORLD, {8, 8, 8}, bad);
    ADD_FAILURE() << "device_exchange=mpi took the bruck algorithm, which copies blocks on the host";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bruck"), std::string::npos) << e.what();
  }
}

// Plan-time tuning of a device plan: its trials run on device arrays and time the device
// exchanges too (those the machine cannot run are refused and skipped: ipc off a GPU); the
// chosen plan gives the CPU plan's results.
TEST(DevicePlan, TuningTriesTheDeviceExchanges) {
  NBFFT_NEED_DEVICE();
  Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
  o.device = test_device();
  o.tune = TuneEffort::Quick;
  o.tune_budget = 30;
  const Grid n{17, 13, 11};
  const Plan p(MPI_COMM_WORLD, n, o);
  ASSERT_NE(p.tune_report(), nullptr);
  std::set<std::string> timed;
  for (const TuneTrial& t : p.tune_report()->trials)
    if (t.seconds >= 0) timed.insert(name(t.options.device_exchange));
  if (world_size() > 1) {
    EXPECT_TRUE(timed.count("staged")) << p.tune_report()->trials.size() << " trials";
    if (test_device() == Device::Emulated) {
      EXPECT_TRUE(timed.count("nccl") && timed.count("mpi")) << "emulated: MPI stands in for both";
      EXPECT_FALSE(timed.count("ipc")) << "ipc needs device=cuda";
    }
  }
  Options chosen = p.options();
  chosen.tune = TuneEffort::None;
  compare(n, chosen, 2);
}

// device_exchange=nccl: packs, grouped sends and receives and unpacks queued on the field's
// stream. On the emulated device its stand-in is MPI_Alltoallv when queued (the plan's
// queue-ordered exchange path, fields in flight and split phase, on every machine); on a GPU
// it needs NCCL and one GPU per rank, and otherwise the plan is refused naming why.
TEST(DevicePlan, NcclExchangeMatchesCpuPlan) {
  NBFFT_NEED_DEVICE();
  if (test_device() == Device::Cuda) {
    Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
    o.device = Device::Cuda;
    o.device_exchange = DeviceExchange::Nccl;
    try {
      const Plan p(MPI_COMM_WORLD, {8, 8, 8}, o);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Unavailable) << e.what();
      EXPECT_NE(std::string(e.what()).find("NCCL"), std::string::npos) << e.what();
      GTEST_SKIP() << "device_exchange=nccl refused here, as it must be: " << e.what();
    }
  }
  exchange_matrix(DeviceExchange::Nccl, {"blocking"});  // (nccl reads no transport)
  Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
  o.device_exchange = DeviceExchange::Nccl;
  split_phase<double, std::complex<double>>({17, 13, 11}, o, 1e-12);
}

// A host array handed to a GPU plan is an error naming it on every rank, not a crash.
TEST(DevicePlan, HostArrayIsAnError) {
  if (test_device() != Device::Cuda) GTEST_SKIP() << "the emulated device takes host arrays";
  NBFFT_NEED_DEVICE();
  Options o = test_options(0, 0, TransformKind::R2C, Precision::Double);
  o.device = Device::Cuda;
  const Plan p(MPI_COMM_WORLD, {8, 8, 8}, o);
  std::vector<double> in(static_cast<std::size_t>(p.in_count()));
  std::vector<std::complex<double>> out(static_cast<std::size_t>(p.out_count()));
  try {
    p.forward(in, out);
    ADD_FAILURE() << "forward took host arrays";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not device memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nbfft::fft::test
