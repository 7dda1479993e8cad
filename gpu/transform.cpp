// The device plan (gpu/transform.hpp): its geometry, stages and driver.
#include "gpu/transform.hpp"

#include "nbfft/coll/alltoall.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/coll/request.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/r2r_kinds.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <exception>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace nbfft::gpu {

using fft::Box3;
using fft::Decomposition;
using fft::Direction;
using fft::Options;
using fft::Range;

namespace {

Box3 intersect(const Box3& a, const Box3& b) {
  Box3 r;
  for (int k = 0; k < 3; ++k) {
    const Index lo = std::max(a.lo[k], b.lo[k]), hi = std::min(a.lo[k] + a.n[k], b.lo[k] + b.n[k]);
    r.lo[k] = lo;
    r.n[k] = std::max<Index>(0, hi - lo);
  }
  return r;
}

Strides tight(const Box3& b) { return {1, b.n[0], b.n[0] * b.n[1]}; }

// Whether a box stored with strides s lies as the wire lays it out (x, then y, then z, tight).
bool contiguous(const Box3& b, const Strides& s) {
  const Strides t = tight(b);
  for (int k = 0; k < 3; ++k)
    if (b.n[k] > 1 && s[k] != t[k]) return false;
  return true;
}

// The buffers of a workspace that exchanges read and write.
enum Buf { kA = 0, kY = 1, kZ = 2, kBufs = 3 };

// How a buffer stores this rank's box of one pencil.
struct Layout {
  Buf buf = kA;
  Box3 box;
  Strides stride{1, 0, 0};
  Index offset(const Box3& b) const {  // element offset of b's first point
    return (b.lo[0] - box.lo[0]) * stride[0] + (b.lo[1] - box.lo[1]) * stride[1] + (b.lo[2] - box.lo[2]) * stride[2];
  }
  Index elems() const { return box.count(); }
};

// A block between this rank and one peer in one chunk of one direction.
struct Piece {
  Box3 box;
  Index local = 0;  // offset in this rank's side buffer
  Index wire = 0;   // offset in the pinned host buffers
  bool direct = false;  // stored as the wire lays it out: copied as is, no pack / unpack
  Index stage = 0;  // not direct: offset of its packed copy in the device staging buffer
  int peer = 0;     // the rank it goes to or comes from (in the exchange's communicator)
};

struct Chunk {
  std::vector<Piece> send, recv;  // peers' blocks (own excluded)
  Piece own_send, own_recv;       // the rank's own block on both sides
  std::vector<std::int64_t> sc, sd, rc, rd;  // the alltoallv's counts and displacements
};

// One exchange between side 0 and side 1 (fft/exchange.hpp's ROW or COL), in chunks of
// side 0's z planes, for both directions.
struct Exchange {
  std::string name;
  coll::Comm comm;
  coll::Transport transport;
  int me = 0, ranks = 1;
  Layout side[2];
  std::vector<Chunk> chunks[2];  // [direction]
  Index send_elems[2] = {0, 0}, recv_elems[2] = {0, 0};  // pinned host buffers, per direction
  Index stage_elems[2] = {0, 0};  // device staging for packs and unpacks, per direction
  Index planes = 0;  // chunk planes (0: one chunk)
  fft::DeviceExchange how = fft::DeviceExchange::Staged;  // Options::device_exchange (describe only)

  Exchange(std::string nm, coll::Comm c, coll::Transport t, int rank, int nranks, const std::vector<Box3>& b0,
           const std::vector<Box3>& b1, Layout l0, Layout l1, Index chunk_planes)
      : name(std::move(nm)), comm(std::move(c)), transport(std::move(t)), me(rank), ranks(nranks) {
    side[0] = l0;
    side[1] = l1;
    Index most = 0;
    for (const auto& b : b0) most = std::max(most, b.n[2]);
    planes = chunk_planes > 0 && chunk_planes < most ? chunk_planes : 0;
    const Index K = planes > 0 ? (most + planes - 1) / planes : 1;
    // block(a, b, k): side-0 rank a's points in side-1 rank b's box, in a's planes of chunk k
    auto block = [&](int a, int b, Index k) {
      Box3 r = intersect(b0[static_cast<std::size_t>(a)], b1[static_cast<std::size_t>(b)]);
      if (planes > 0) {
        Box3 zs = b0[static_cast<std::size_t>(a)];
        zs.lo[2] += k * planes;
        zs.n[2] = std::max<Index>(0, std::min(planes, b0[static_cast<std::size_t>(a)].n[2] - k * planes));
        r = intersect(r, zs);
      }
      return r;
    };
    for (int dir = 0; dir < 2; ++dir) {
      const int ss = dir == 0 ? 0 : 1;  // the side this rank sends from
      Index swire = 0, rwire = 0;
      for (Index k = 0; k < K; ++k) {
        Chunk c;
        c.sc.assign(static_cast<std::size_t>(ranks), 0);
        c.sd = c.rc = c.rd = c.sc;
        for (int p = 0; p < ranks; ++p) {
          // forward: send block(me, p), receive block(p, me); backward the other way.
          const Box3 s = dir == 0 ? block(me, p, k) : block(p, me, k);
          const Box3 r = dir == 0 ? block(p, me, k) : block(me, p, k);
          Piece ps{s, side[ss].offset(s), swire, contiguous(s, side[ss].stride), 0, p};
          Piece pr{r, side[1 - ss].offset(r), rwire, contiguous(r, side[1 - ss].stride), 0, p};
          if (p == me) {
            c.own_send = ps;
            c.own_recv = pr;
            continue;
          }
          c.sc[static_cast<std::size_t>(p)] = s.count();
          c.sd[static_cast<std::size_t>(p)] = swire;
          c.rc[static_cast<std::size_t>(p)] = r.count();
          c.rd[static_cast<std::size_t>(p)] = rwire;
          if (!s.empty()) c.send.push_back(ps);
          if (!r.empty()) c.recv.push_back(pr);
          swire += s.count();
          rwire += r.count();
        }
        chunks[dir].push_back(std::move(c));
      }
      send_elems[dir] = swire;
      recv_elems[dir] = rwire;
      // Only the pieces that need a pack or unpack take room on the device. Receives reuse
      // the sends' room: every send of an exchange is queued (packed and copied to the host)
      // before its first receive, on the same queue.
      Index packed = 0, unpacked = 0;
      for (Chunk& c : chunks[dir])
        for (Piece& p : c.send)
          if (!p.direct) p.stage = (packed += p.box.count()) - p.box.count();
      for (Chunk& c : chunks[dir])
        for (Piece& p : c.recv)
          if (!p.direct) p.stage = (unpacked += p.box.count()) - p.box.count();
      stage_elems[dir] = std::max(packed, unpacked);
    }
  }
  int send_side(int dir) const { return dir == 0 ? 0 : 1; }
  std::string str() const {
    std::ostringstream os;
    os << name << ": " << ranks << (ranks == 1 ? " rank (device move)" : " ranks, ")
       << (ranks == 1                               ? std::string()
           : how == fft::DeviceExchange::Ipc  ? std::string("CUDA IPC")
           : how == fft::DeviceExchange::Mpi  ? "GPU memory to MPI, " + transport.str()
           : how == fft::DeviceExchange::Nccl ? std::string("NCCL on the field's stream")
                                              : "staged through pinned host memory, " + transport.str());
    if (ranks > 1)
      os << ", " << chunks[0].size() << " chunk" << (chunks[0].size() == 1 ? "" : "s")
         << (planes ? " of " + std::to_string(planes) + " z planes" : std::string());
    return os.str();
  }
};

// A local FFT stage: in place or out of place, per direction.
struct Stage {
  std::unique_ptr<Fft> fft;
  std::string what;
};

template <typename T>
class Plan3d final : public DeviceTransform {
  using C = std::complex<T>;

 public:
  Plan3d(std::shared_ptr<Device> dev, const Decomposition& d, const Options& o, const coll::Comm& row,
         const coll::Comm& col)
      : dev_(std::move(dev)), d_(d), r2c_(d.r2c), natural_(o.output_order == fft::OutputOrder::Natural),
        ipc_(o.device_exchange == fft::DeviceExchange::Ipc), mpi_(o.device_exchange == fft::DeviceExchange::Mpi),
        nccl_(o.device_exchange == fft::DeviceExchange::Nccl) {
    const bool single = std::is_same_v<T, float>;
    const Index nx = d.n[0], ny = d.n[1], nz = d.n[2], xc = d.xc;
    const Range xi = d.row_x(d.i), yi = d.row_y(d.i), zj = d.col_z(d.j), yj = d.col_y(d.j);
    one_rank_ = d.m1 == 1 && d.m2 == 1;
    // Buffers: A holds the X-pencil after its FFT ([z][y][xc]); Y the Y-pencil with y
    // contiguous ([z][x][y]); Z the Z-pencil in numpy's order ([z][y][x]).
    A_.buf = kA;
    A_.box = Box3::from({0, xc}, yi, zj);
    A_.stride = {1, xc, xc * yi.n};
    Y_.buf = kY;
    Y_.box = Box3::from(xi, {0, ny}, zj);
    Y_.stride = {ny, 1, ny * xi.n};
    Z_.buf = kZ;
    Z_.box = Box3::from(xi, yj, {0, nz});
    Z_.stride = {1, xi.n, xi.n * yj.n};
    // Z shares A's memory where A is dead by the time Z is written (and the other way in
    // backward): on one rank (the same box and layout) and on pencils (A -> ROW -> Y -> COL
    // -> Z). Slabs exchange A into Z directly: both are live then.
    z_in_a_ = one_rank_ || d.m1 > 1;
    elems_[kA] = z_in_a_ ? std::max(A_.elems(), Z_.elems()) : A_.elems();
    elems_[kY] = d.m1 > 1 ? Y_.elems() : 0;
    elems_[kZ] = z_in_a_ ? 0 : Z_.elems();
    out_elems_ = Z_.elems();

    // Scaling as the CPU plan's (fft/transform.cpp), without padding.
    const double N = static_cast<double>(nx) * ny * nz;
    if (o.norm == fft::Norm::Forward) fwd_scale_ = 1.0 / N;
    if (o.norm == fft::Norm::Backward) bwd_scale_ = 1.0 / N;
    if (o.norm == fft::Norm::Ortho) fwd_scale_ = bwd_scale_ = 1.0 / std::sqrt(N);

    // The exchanges: chunks of Options::col_chunk_planes side-0 planes, else about four.
    auto chunk_planes = [&](Index planes) -> Index {
      if (o.col_chunk_planes > 0) return o.col_chunk_planes;
      return std::max<Index>(1, (planes + 3) / 4);
    };
    if (d.m1 > 1) {
      std::vector<Box3> b0, b1;
      for (int p = 0; p < d.m1; ++p) {
        b0.push_back(Box3::from({0, xc}, d.row_y(p), zj));
        b1.push_back(Box3::from(d.row_x(p), {0, ny}, zj));
      }
      row_ = std::make_unique<Exchange>("ROW", row, o.row_transport, d.i, d.m1, b0, b1, A_, Y_, chunk_planes(zj.n));
      row_->how = o.device_exchange;
    }
    if (!one_rank_) {
      std::vector<Box3> b0, b1;
      const Layout& from = d.m1 > 1 ? Y_ : A_;
      for (int q = 0; q < d.m2; ++q) {
        b0.push_back(Box3::from(xi, {0, ny}, d.col_z(q)));
        b1.push_back(Box3::from(xi, d.col_y(q), {0, nz}));
      }
      Index most = 0;
      for (const auto& b : b0) most = std::max(most, b.n[2]);
      col_ = std::make_unique<Exchange>("COL", col, o.col_transport, d.j, d.m2, b0, b1, from, Z_, chunk_planes(most));
      col_->how = o.device_exchange;
    }

    // The FFT stages (local::Problem strides: real elements for r2c input / c2r output).
    using local::Dim;
    using local::Kind;
    auto problem = [&](Kind k, std::vector<Dim> dims, std::vector<Dim> loops) {
      local::Problem p;
      p.kind = k;
      p.dims = std::move(dims);
      p.loops = std::move(loops);
      return p;
    };
    const Index xin = r2c_ ? nx : xc;  // input row length (real for r2c)
    const Kind fa = r2c_ ? Kind::R2C : Kind::Forward, ba = r2c_ ? Kind::C2R : Kind::Backward;
    auto plan = [&](Stage& s, const local::Problem& p, bool in_place) {
      s.what = local::describe(p);
      s.fft = dev_->plan(p, single, in_place);
    };
    for (int dir = 0; dir < 2; ++dir) {
      const Kind k = dir == 0 ? fa : ba;
      // in/out strides of stage A: forward reads the input (xin rows), writes A (xc rows).
      auto dim = [&](Index n, Index s_in, Index s_out) { return dir == 0 ? Dim{n, s_in, s_out} : Dim{n, s_out, s_in}; };
      local::Problem p;
      if (one_rank_)
        p = problem(k, {dim(nz, xin * ny, xc * ny), dim(ny, xin, xc), dim(nx, 1, 1)}, {});
      else if (d.m1 == 1)
        p = problem(k, {dim(ny, xin, xc), dim(nx, 1, 1)}, {dim(zj.n, xin * ny, xc * ny)});
      else
        p = problem(k, {dim(nx, 1, 1)}, {dim(yi.n * zj.n, xin, xc)});
      plan(a_[dir], p, false);
      if (d.m1 > 1)
        plan(y_[dir], problem(dir == 0 ? Kind::Forward : Kind::Backward, {Dim{ny, 1, 1}}, {Dim{xi.n * zj.n, ny, ny}}),
             true);
      if (!one_rank_) {
        const Index s = xi.n * yj.n;
        const local::Problem pz =
            problem(dir == 0 ? Kind::Forward : Kind::Backward, {Dim{nz, s, s}}, {Dim{s, 1, 1}});
        plan(z_[dir], pz, true);
        if (dir == 0 && natural_) plan(z_out_, pz, false);
      }
    }
    if (one_rank_ && natural_)
      plan(a_out_, problem(fa, {Dim{nz, xin * ny, xc * ny}, Dim{ny, xin, xc}, Dim{nx, 1, 1}}, {}), false);
    for (const Stage* s : {&a_[0], &a_[1], &y_[0], &y_[1], &z_[0], &z_[1], &z_out_, &a_out_})
      if (s->fft) work_ = std::max(work_, s->fft->work_bytes());

    // One workspace per field in flight (Options::fields_in_flight), each with its queue,
    // where an exchange moves data between ranks: without one nothing waits to be hidden.
    const bool moves = (row_ && row_->ranks > 1) || (col_ && col_->ranks > 1);
    // (ipc exchanges complete where they start: nothing to pipeline either.)
    const int W = moves && !ipc_ ? std::max(1, o.fields_in_flight) : 1;
    moves_ = moves;
    for (int w = 0; w < W; ++w) ws_.push_back(std::make_unique<Work>(*this));
    for (int dir = 0; dir < 2; ++dir) paths_[dir] = path(dir);
  }

  ~Plan3d() override = default;

  void run(Direction dir, int nv, const void* const* in, void* const* out, fft::Timings* t) const override;
  void run_timed(int dir, int nv, const void* const* in, void* const* out, fft::Timings& t) const;
  std::string describe() const override;
  std::size_t workspace_bytes() const override {
    std::size_t b = 0;
    for (const auto& w : ws_) b += w->held;
    return b;
  }
  Device& device() const override { return *dev_; }
  void connect() override {
    if (nccl_) connect_nccl();
    for (auto& w : ws_) connect_work(*w);
  }
  // Binding a workspace's collectives may duplicate a communicator after settling what is in
  // flight (coll's native algorithm): every chunk of the transforms in flight starts first,
  // so that no rank settles while waiting on a chunk another rank has not started.
  std::unique_ptr<DeviceWork> make_work() const override {
    drain();
    return std::make_unique<Work>(*this);
  }
  void connect(DeviceWork& w) const override { connect_work(static_cast<Work&>(w)); }
  std::unique_ptr<DeviceRun> start(Direction dir, const void* in, void* out, DeviceWork& w) const override;

 private:
  // The buffers, queue and bound collectives of one field in flight.
  struct Work final : DeviceWork {
    const Plan3d& p;  // (read while constructing only: a workspace may outlive its plan)
    std::shared_ptr<Device> keep;  // the device, alive as long as its memory is
    Device& dev;
    bool z_in_a = false;
    void* buf[kBufs] = {};
    void* dstage = nullptr;
    // ipc: every send piece packed here at its wire offset, read by its receiver; the peers'
    // (opened) by [exchange][peer], and where each peer put the pieces for this rank:
    // [exchange][dir][chunk][peer].
    void* dsend = nullptr;
    void* drecv = nullptr;  // mpi: what arrives, at its wire offsets
    std::vector<void*> peer[2];
    std::vector<std::vector<Index>> peer_off[2][2];
    void* hsend = nullptr;
    void* hrecv = nullptr;
    void* work = nullptr;
    std::size_t held = 0;  // device bytes
    std::unique_ptr<Queue> q;
    // [exchange][dir][chunk]: the collective and the event that says its send copies are done
    std::vector<coll::Collective> coll[2][2];
    std::vector<std::unique_ptr<Event>> sent[2][2];
    explicit Work(const Plan3d& plan) : p(plan), keep(plan.dev_), dev(*keep), z_in_a(plan.z_in_a_) {
      try {
        for (int b = 0; b < kBufs; ++b)
          if (p.elems_[b]) buf[b] = alloc(static_cast<std::size_t>(p.elems_[b]) * sizeof(C), "device FFT buffer");
        if (p.z_in_a_) buf[kZ] = buf[kA];
        Index s = 0, r = 0, st = 0;
        for (const Exchange* x : {p.row_.get(), p.col_.get()})
          if (x && x->ranks > 1)
            for (int dir = 0; dir < 2; ++dir) {
              s = std::max(s, x->send_elems[dir]);
              r = std::max(r, x->recv_elems[dir]);
              st = std::max(st, x->stage_elems[dir]);
            }
        // (ipc packs into its send buffer and unpacks from the peers'; mpi into dsend / drecv.)
        if (st && !p.mpi_ && !p.ipc_ && !p.nccl_)
          dstage = alloc(static_cast<std::size_t>(st) * sizeof(C), "device staging buffer");
        // (Every rank of an ipc exchange exports one, also a rank that sends nothing.)
        if (p.ipc_ && (p.d_.m1 > 1 || p.d_.m2 > 1))
          dsend = alloc(static_cast<std::size_t>(std::max<Index>(s, 1)) * sizeof(C), "device send buffer (ipc)");
        // mpi and nccl: the wire on the device, handed to MPI or NCCL as it is.
        if (p.wire_on_device() && s) dsend = alloc(static_cast<std::size_t>(s) * sizeof(C), "device send buffer");
        if (p.wire_on_device() && r) drecv = alloc(static_cast<std::size_t>(r) * sizeof(C), "device receive buffer");
        if (p.ipc_ || p.wire_on_device()) s = r = 0;  // no host staging
        if (s) hsend = dev.alloc_host(static_cast<std::size_t>(s) * sizeof(C), "pinned host send buffer");
        if (r) hrecv = dev.alloc_host(static_cast<std::size_t>(r) * sizeof(C), "pinned host receive buffer");
        if (p.work_) work = alloc(p.work_, "cuFFT work area");
        q = dev.make_queue();
        const Exchange* xs[2] = {p.row_.get(), p.col_.get()};
        for (int e = 0; e < 2 && !p.ipc_ && !p.nccl_; ++e)
          if (xs[e] && xs[e]->ranks > 1)
            for (int dir = 0; dir < 2; ++dir)
              for (const Chunk& c : xs[e]->chunks[dir]) {
                coll[e][dir].push_back(coll::alltoallv_agreed_counts(xs[e]->comm, p.mpi_ ? dsend : hsend, c.sc, c.sd,
                                                                     p.mpi_ ? drecv : hrecv, c.rc, c.rd, sizeof(C),
                                                                     xs[e]->transport.algorithm));
                sent[e][dir].push_back(dev.make_event());
              }
      } catch (...) {
        release();
        throw;
      }
    }
    ~Work() override {
      if (q) q->sync();
      release();
    }
    std::size_t bytes() const override { return held; }
    void* alloc(std::size_t b, const char* what) {
      held += b;
      return dev.alloc(b, what);
    }
    void release() {
      for (int b = 0; b < kBufs; ++b)
        if (!(z_in_a && b == kZ)) dev.free(buf[b]);
      dev.free(dstage);
      dev.free(dsend);
      dev.free(drecv);
      for (auto& v : peer)
        for (void* x : v) dev.ipc_close(x);
      dev.free(work);
      if (hsend) dev.free_host(hsend);
      if (hrecv) dev.free_host(hrecv);
    }
    C* at(Buf b) const { return static_cast<C*>(buf[b]); }
  };

  // One field's progress through its direction's path: a field of run() or a split-phase
  // transform (Run), both in flight_ while they run.
  struct Field {
    std::uint64_t seq = 0;  // its place in the order the plan's exchanges start in (turn_)
    int dir = 0;
    const void* in = nullptr;
    void* out = nullptr;
    Work* w = nullptr;
    int step = 0;
    // The exchange step in progress: chunks queued for sending, started, landed.
    bool queued = false;
    int started = 0, landed = 0;
    std::vector<coll::Request> req;
    std::vector<bool> done;
  };
  class Run;

  // The path of a direction: local work (queued at once) and exchanges, in order.
  struct Step {
    int exchange = -1;  // 0 ROW, 1 COL; -1: local work
    std::function<void(Work&, const void*, void*)> local;
  };
  std::vector<Step> path(int dir) const;
  std::vector<Step> paths_[2];  // path(dir), made once

  static std::size_t bytes(const Piece& p) { return static_cast<std::size_t>(p.box.count()) * sizeof(C); }
  // p's block between a buffer of strides s and the wire's tight layout (a copy where the
  // buffer already lays it out so), and the rank's own block of a chunk from side to side.
  static void to_wire(Queue& q, C* wire, const C* src, const Strides& s, const Piece& p) {
    if (p.direct) q.copy(wire, src, bytes(p));
    else q.move(wire, tight(p.box), src, s, p.box.n, sizeof(C), 1.0);
  }
  static void from_wire(Queue& q, C* dst, const Strides& s, const C* wire, const Piece& p) {
    if (p.direct) q.copy(dst, wire, bytes(p));
    else q.move(dst, s, wire, tight(p.box), p.box.n, sizeof(C), 1.0);
  }
  static void move_own(Queue& q, const Chunk& c, C* dst, const Strides& ds, const C* src, const Strides& ss) {
    if (!c.own_send.box.empty())
      q.move(dst + c.own_recv.local, ds, src + c.own_send.local, ss, c.own_send.box.n, sizeof(C), 1.0);
  }
  // The layouts an exchange of direction dir sends from and receives into, and their buffers.
  struct Sides {
    const Layout& from;
    const Layout& to;
    C* src;
    C* dst;
  };
  static Sides sides(const Work& w, const Exchange& x, int dir) {
    const Layout& from = x.side[x.send_side(dir)];
    const Layout& to = x.side[1 - x.send_side(dir)];
    return {from, to, w.at(from.buf), w.at(to.buf)};
  }
  void queue_send(Work& w, int e, int dir) const;
  void exchange_ipc(Work& w, int e, int dir) const;
  void exchange_nccl(Work& w, int e, int dir) const;
  // ipc and nccl: the whole exchange where it is issued (ipc: done; nccl: queued).
  void exchange_at_once(Work& w, int e, int dir) const {
    if (ipc_) exchange_ipc(w, e, dir);
    else exchange_nccl(w, e, dir);
  }
  void connect_work(Work& w) const;
  void connect_nccl();
  bool wire_on_device() const { return mpi_ || nccl_; }
  // The driver (run() and start()): fields enter the plan's flight with the next sequence
  // numbers, every pass advances all of them, and an exchange's chunks start only on the
  // field whose turn it is, so collectives start in one order on every rank (their tags are
  // taken at the start; readiness differs between ranks).
  bool queued_all(const Field& f) const { return f.step >= static_cast<int>(paths_[f.dir].size()); }
  bool exchanges_after(int dir, int step) const;
  bool advance(Field& f) const;  // one pass over one field (flight_mutex_ held): anything moved?
  bool advance_all() const;      // one pass over every field in flight: anything moved?
  void enter(Field& f) const;
  void leave(const Field& f) const;
  void drain() const;  // until every field in flight has started all of its exchanges
  // One pass over the flight, else (nothing moved) a host progress pass and a yield.
  void pass() const {
    if (!advance_all()) {
      coll::progress_all();
      std::this_thread::yield();
    }
  }
  // The next n sequence numbers (refused once a failed transform left the order broken).
  std::uint64_t reserve(int n) const {
    std::lock_guard<std::mutex> lock(flight_mutex_);
    if (broken_)
      throw Error("device plan: an earlier transform of this plan failed midway, so its ranks no longer agree on "
                  "the order of its exchanges; make a new plan",
                  ErrorCode::InvalidState);
    const std::uint64_t first = seq_;
    seq_ += static_cast<std::uint64_t>(n);
    return first;
  }
  void queue_recv(Work& w, int e, int dir, int k) const;
  const Exchange* exchange(int e) const { return e == 0 ? row_.get() : col_.get(); }

  std::shared_ptr<Device> dev_;
  Decomposition d_;
  bool r2c_ = true, natural_ = false, one_rank_ = false, z_in_a_ = false;
  bool ipc_ = false;  // Options::device_exchange = ipc
  bool mpi_ = false;  // Options::device_exchange = mpi
  bool nccl_ = false;  // Options::device_exchange = nccl
  std::unique_ptr<QueueComm> qcomm_[2];  // nccl: the exchanges' communicators
  Layout A_, Y_, Z_;
  Index elems_[kBufs] = {0, 0, 0};
  Index out_elems_ = 0;
  double fwd_scale_ = 1, bwd_scale_ = 1;
  std::unique_ptr<Exchange> row_, col_;
  Stage a_[2], y_[2], z_[2], z_out_, a_out_;
  std::size_t work_ = 0;
  std::vector<std::unique_ptr<Work>> ws_;
  bool moves_ = false;  // some exchange moves data between ranks
  mutable std::mutex flight_mutex_;
  mutable std::vector<Field*> flight_;  // in sequence order
  mutable std::uint64_t seq_ = 0, turn_ = 0;
  // A field left before all of it was queued (a failed transform): the order of the
  // exchanges is lost, so later transforms refuse instead of hanging.
  mutable bool broken_ = false;
};

// A split-phase transform: one field in the plan's flight until finished.
template <typename T>
class Plan3d<T>::Run final : public DeviceRun {
 public:
  explicit Run(const Plan3d& p) : p_(p) {}
  ~Run() override {
    if (entered_) p_.leave(field);
  }
  bool advance() override {
    p_.advance_all();
    return p_.queued_all(field);
  }
  void finish() override {
    while (!p_.queued_all(field)) p_.pass();
    field.w->q->sync();
    if (entered_) p_.leave(field);
    entered_ = false;
  }
  Field field;
  bool entered_ = false;

 private:
  const Plan3d& p_;
};

template <typename T>
std::vector<typename Plan3d<T>::Step> Plan3d<T>::path(int dir) const {
  std::vector<Step> s;
  const Strides zs = Z_.stride;
  // The user's spectrum: numpy's order [z][y][x] (Z's) or the transposed [y][z][x].
  const Strides user = natural_ ? zs : Strides{1, Z_.box.n[2] * Z_.box.n[0], Z_.box.n[0]};
  const std::array<Index, 3> zn = Z_.box.n;
  const bool to_row = d_.m1 > 1;
  if (dir == 0) {
    if (one_rank_ && natural_) {  // one cuFFT call into the output, unless it is the input
      s.push_back({-1, [this, zn](Work& w, const void* in, void* out) {
                     if (in == out) {
                       w.q->fft(*a_[0].fft, out, w.at(kA), w.work);
                       w.q->move(out, Z_.stride, w.at(kA), Z_.stride, zn, sizeof(C), fwd_scale_);
                       return;
                     }
                     w.q->fft(*a_out_.fft, const_cast<void*>(in), out, w.work);
                     w.q->scale(out, 2 * out_elems_, sizeof(T), fwd_scale_);
                   }});
      return s;
    }
    s.push_back({-1, [this](Work& w, const void* in, void*) {
                   w.q->fft(*a_[0].fft, const_cast<void*>(in), w.at(kA), w.work);
                 }});
    if (to_row) {
      s.push_back({0, nullptr});
      s.push_back({-1, [this](Work& w, const void*, void*) { w.q->fft(*y_[0].fft, w.at(kY), w.at(kY), w.work); }});
    }
    if (!one_rank_) s.push_back({1, nullptr});
    s.push_back({-1, [this, user, zn](Work& w, const void*, void* out) {
                   if (natural_ && !one_rank_) {
                     w.q->fft(*z_out_.fft, w.at(kZ), out, w.work);
                     w.q->scale(out, 2 * out_elems_, sizeof(T), fwd_scale_);
                     return;
                   }
                   if (!one_rank_) w.q->fft(*z_[0].fft, w.at(kZ), w.at(kZ), w.work);
                   w.q->move(out, user, w.at(kZ), Z_.stride, zn, sizeof(C), fwd_scale_);
                 }});
    return s;
  }
  // Backward: the spectrum into Z, scaled (the input stays untouched), then the path back.
  s.push_back({-1, [this, user, zn](Work& w, const void* in, void*) {
                 w.q->move(w.at(kZ), Z_.stride, in, user, zn, sizeof(C), bwd_scale_);
                 if (!one_rank_) w.q->fft(*z_[1].fft, w.at(kZ), w.at(kZ), w.work);
               }});
  if (!one_rank_) s.push_back({1, nullptr});
  if (to_row) {
    s.push_back({-1, [this](Work& w, const void*, void*) { w.q->fft(*y_[1].fft, w.at(kY), w.at(kY), w.work); }});
    s.push_back({0, nullptr});
  }
  s.push_back({-1, [this](Work& w, const void*, void* out) { w.q->fft(*a_[1].fft, w.at(kA), out, w.work); }});
  return s;
}

// Queues the pack and device->host copies of every chunk of exchange e (and moves the own
// block), recording each chunk's event.
template <typename T>
void Plan3d<T>::queue_send(Work& w, int e, int dir) const {
  const Exchange& x = *exchange(e);
  const auto [from, to, src, dst] = sides(w, x, dir);
  C* stage = static_cast<C*>(w.dstage);
  C* hsend = static_cast<C*>(w.hsend);
  const auto& chunks = x.chunks[dir];
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const Chunk& c = chunks[k];
    for (const Piece& p : c.send) {
      if (wire_on_device()) {
        to_wire(*w.q, static_cast<C*>(w.dsend) + p.wire, src + p.local, from.stride, p);
      } else if (p.direct) {
        w.q->copy(hsend + p.wire, src + p.local, bytes(p));
      } else {
        to_wire(*w.q, stage + p.stage, src + p.local, from.stride, p);
        w.q->copy(hsend + p.wire, stage + p.stage, bytes(p));
      }
    }
    if (!w.sent[e][dir].empty()) w.q->record(*w.sent[e][dir][k]);
    move_own(*w.q, c, dst, to.stride, src, from.stride);
  }
}

// Queues chunk k's host->device copies and unpacks.
template <typename T>
void Plan3d<T>::queue_recv(Work& w, int e, int dir, int k) const {
  const Exchange& x = *exchange(e);
  const Layout& to = x.side[1 - x.send_side(dir)];
  C* dst = w.at(to.buf);
  C* stage = static_cast<C*>(w.dstage);
  C* hrecv = static_cast<C*>(w.hrecv);
  for (const Piece& p : x.chunks[dir][static_cast<std::size_t>(k)].recv) {
    if (wire_on_device()) {
      from_wire(*w.q, dst + p.local, to.stride, static_cast<const C*>(w.drecv) + p.wire, p);
    } else if (p.direct) {
      w.q->copy(dst + p.local, hrecv + p.wire, bytes(p));
    } else {
      w.q->copy(stage + p.stage, hrecv + p.wire, bytes(p));
      from_wire(*w.q, dst + p.local, to.stride, stage + p.stage, p);
    }
  }
}

// device_exchange=ipc: each rank packs every block it sends into its own send buffer; after
// a barrier every rank reads the blocks for it from its peers' buffers (mapped through CUDA
// IPC) straight into place, and a second barrier keeps the senders from overwriting their
// buffers before every reader is done.
template <typename T>
void Plan3d<T>::exchange_ipc(Work& w, int e, int dir) const {
  const Exchange& x = *exchange(e);
  const auto [from, to, src, dst] = sides(w, x, dir);
  C* send = static_cast<C*>(w.dsend);
  for (const Chunk& c : x.chunks[dir]) {
    for (const Piece& p : c.send) to_wire(*w.q, send + p.wire, src + p.local, from.stride, p);
    move_own(*w.q, c, dst, to.stride, src, from.stride);
  }
  w.q->sync();
  MPI_Comm comm = x.comm.mpi();
  MPI_Barrier(comm);
  for (std::size_t k = 0; k < x.chunks[dir].size(); ++k)
    for (const Piece& p : x.chunks[dir][k].recv) {
      const C* remote = static_cast<const C*>(w.peer[e][static_cast<std::size_t>(p.peer)]) +
                        w.peer_off[e][dir][k][static_cast<std::size_t>(p.peer)];
      from_wire(*w.q, dst + p.local, to.stride, remote, p);
    }
  w.q->sync();
  MPI_Barrier(comm);
}

// device_exchange=nccl: packs, one grouped send / receive per chunk and the unpacks, all
// queued on the field's queue in the order every rank queues them; the host moves on at once
// and the GPU runs the exchange when the stages before it are done.
template <typename T>
void Plan3d<T>::exchange_nccl(Work& w, int e, int dir) const {
  const Exchange& x = *exchange(e);
  queue_send(w, e, dir);
  for (const Chunk& c : x.chunks[dir]) qcomm_[e]->alltoallv(*w.q, w.dsend, c.sc, c.sd, w.drecv, c.rc, c.rd, sizeof(C));
  for (std::size_t k = 0; k < x.chunks[dir].size(); ++k) queue_recv(w, e, dir, static_cast<int>(k));
}

// Collective: each exchange's NCCL communicator, once every rank of it can make one (a rank
// without the library says so before anyone enters NCCL's collective set-up).
template <typename T>
void Plan3d<T>::connect_nccl() {
  for (int e = 0; e < 2; ++e) {
    const Exchange* x = exchange(e);
    if (!x || x->ranks == 1) continue;
    MPI_Comm comm = x->comm.mpi();
    const std::string mine = dev_->queue_comm_problem();
    int bad = mine.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
      const std::string why = mine.empty() ? "another rank of the exchange cannot load NCCL" : mine;
      throw Error("device_exchange=nccl: " + why, ErrorCode::Unavailable);
    }
    qcomm_[e] = dev_->make_queue_comm(comm);
  }
}

template <typename T>
void Plan3d<T>::connect_work(Work& w) const {
  if (!ipc_) return;
  for (int e = 0; e < 2; ++e) {
    const Exchange* x = exchange(e);
    if (!x || x->ranks == 1) continue;
    MPI_Comm comm = x->comm.mpi();
    const int P = x->ranks;
    // The send buffers' handles (a failure to make one is every rank's: the same call on
    // the same kind of buffer), gathered before anything is opened, so that a rank whose
    // open fails has taken part in every collective here.
    constexpr std::size_t kHandle = 64;  // cudaIpcMemHandle_t
    std::string mine(kHandle, '\0');
    std::exception_ptr failed;  // kept until every collective here has run
    try {
      mine = dev_->ipc_handle(w.dsend);
      mine.resize(kHandle);
    } catch (...) {
      failed = std::current_exception();
    }
    std::vector<char> all(kHandle * static_cast<std::size_t>(P));
    MPI_Allgather(mine.data(), static_cast<int>(kHandle), MPI_BYTE, all.data(), static_cast<int>(kHandle), MPI_BYTE,
                  comm);
    // Where each peer packs the block for this rank: its send displacement to me.
    for (int dir = 0; dir < 2; ++dir) {
      const auto& chunks = x->chunks[dir];
      w.peer_off[e][dir].assign(chunks.size(), std::vector<Index>(static_cast<std::size_t>(P), 0));
      for (std::size_t k = 0; k < chunks.size(); ++k) {
        std::vector<Index> got(static_cast<std::size_t>(P) * static_cast<std::size_t>(P));
        MPI_Allgather(chunks[k].sd.data(), P, MPI_INT64_T, got.data(), P, MPI_INT64_T, comm);
        for (int q = 0; q < P; ++q)
          w.peer_off[e][dir][k][static_cast<std::size_t>(q)] =
              got[static_cast<std::size_t>(q) * static_cast<std::size_t>(P) + static_cast<std::size_t>(x->me)];
      }
    }
    if (failed) std::rethrow_exception(failed);
    w.peer[e].assign(static_cast<std::size_t>(P), nullptr);
    for (int q = 0; q < P; ++q)
      if (q != x->me)
        w.peer[e][static_cast<std::size_t>(q)] =
            dev_->ipc_open(std::string(all.data() + kHandle * static_cast<std::size_t>(q), kHandle));
  }
}

// Timed: field by field, step by step, each waited for (gpu/transform.hpp).
template <typename T>
void Plan3d<T>::run_timed(int dir, int nv, const void* const* in, void* const* out, fft::Timings& t) const {
  using clock = std::chrono::steady_clock;
  const std::vector<Step>& steps = paths_[dir];
  Work& w = *ws_[0];
  for (int f = 0; f < nv; ++f) {
    int local = 0;
    for (const Step& st : steps) {
      const auto t0 = clock::now();
      double* phase = nullptr;
      if (st.exchange < 0) {
        st.local(w, in[f], out[f]);
        const bool first = local == 0, last = &st == &steps.back();
        phase = first ? (dir == 0 ? &t.fft_x : &t.fft_z) : last ? (dir == 0 ? &t.fft_z : &t.fft_x) : &t.fft_y;
        ++local;
      } else {
        // pack: packs and copies to the host; row / col: MPI; unpack: copies back, unpacks.
        const Exchange& x = *exchange(st.exchange);
        if ((ipc_ || nccl_) && x.ranks > 1) {  // all of it in row / col
          exchange_at_once(w, st.exchange, dir);
          w.q->sync();
          (st.exchange == 0 ? t.row : t.col) += std::chrono::duration<double>(clock::now() - t0).count();
          continue;
        }
        queue_send(w, st.exchange, dir);
        w.q->sync();
        const auto t1 = clock::now();
        t.pack += std::chrono::duration<double>(t1 - t0).count();
        for (std::size_t k = 0; x.ranks > 1 && k < x.chunks[dir].size(); ++k) {
          coll::Request r = w.coll[st.exchange][dir][k].start();
          r.wait();
        }
        const auto t2 = clock::now();
        (st.exchange == 0 ? t.row : t.col) += std::chrono::duration<double>(t2 - t1).count();
        for (std::size_t k = 0; x.ranks > 1 && k < x.chunks[dir].size(); ++k)
          queue_recv(w, st.exchange, dir, static_cast<int>(k));
        w.q->sync();
        t.unpack += std::chrono::duration<double>(clock::now() - t2).count();
        continue;
      }
      w.q->sync();
      *phase += std::chrono::duration<double>(clock::now() - t0).count();
    }
  }
}

template <typename T>
bool Plan3d<T>::exchanges_after(int dir, int step) const {
  const std::vector<Step>& steps = paths_[dir];
  for (int s = step; s < static_cast<int>(steps.size()); ++s) {
    const int e = steps[static_cast<std::size_t>(s)].exchange;
    if (e >= 0 && exchange(e)->ranks > 1) return true;  // (a one-rank exchange starts nothing)
  }
  return false;
}

template <typename T>
bool Plan3d<T>::advance(Field& fl) const {
  const int dir = fl.dir;
  const std::vector<Step>& steps = paths_[dir];
  bool moved = false;
  while (!queued_all(fl)) {
    const Step& st = steps[static_cast<std::size_t>(fl.step)];
    if (st.exchange < 0) {
      st.local(*fl.w, fl.in, fl.out);
      ++fl.step;
      moved = true;
      continue;
    }
    const Exchange& x = *exchange(st.exchange);
    const int K = static_cast<int>(x.chunks[dir].size());
    if (x.ranks == 1) {  // the rank's own block, moved on the device
      queue_send(*fl.w, st.exchange, dir);
      ++fl.step;
      moved = true;
      continue;
    }
    if (ipc_ || nccl_) {  // synchronous (ipc: barriers) or queued (nccl): on the field whose turn it is
      if (fl.seq != turn_) return moved;
      exchange_at_once(*fl.w, st.exchange, dir);
      ++fl.step;
      if (!exchanges_after(dir, fl.step)) turn_ = fl.seq + 1;
      moved = true;
      continue;
    }
    if (!fl.queued) {
      queue_send(*fl.w, st.exchange, dir);
      fl.queued = true;
      fl.started = fl.landed = 0;
      fl.req.clear();
      fl.req.resize(static_cast<std::size_t>(K));
      fl.done.assign(static_cast<std::size_t>(K), false);
      moved = true;
    }
    // Queues the host->device copies of every chunk that has arrived.
    auto land = [&] {
      for (int k = 0; k < fl.started; ++k)
        if (!fl.done[static_cast<std::size_t>(k)] && fl.req[static_cast<std::size_t>(k)].test()) {
          fl.done[static_cast<std::size_t>(k)] = true;
          queue_recv(*fl.w, st.exchange, dir, k);
          ++fl.landed;
          moved = true;
        }
    };
    // Start chunks in order once their copies are on the host and it is this field's turn;
    // after each, land what has arrived, so that chunk k's copy back to the device runs
    // while chunk k+1 is on the wire (a blocking transport completes chunks in start()).
    auto& sent = fl.w->sent[st.exchange][dir];
    auto& colls = fl.w->coll[st.exchange][dir];
    while (fl.seq == turn_ && fl.started < K && sent[static_cast<std::size_t>(fl.started)]->ready()) {
      fl.req[static_cast<std::size_t>(fl.started)] = colls[static_cast<std::size_t>(fl.started)].start();
      ++fl.started;
      moved = true;
      land();
    }
    // Every chunk of this field's last exchange started: the next field takes the turn.
    if (fl.seq == turn_ && fl.started == K && !exchanges_after(dir, fl.step + 1)) turn_ = fl.seq + 1;
    land();
    if (fl.landed < K) return moved;
    fl.queued = false;
    ++fl.step;
  }
  return moved;
}

template <typename T>
bool Plan3d<T>::advance_all() const {
  std::lock_guard<std::mutex> lock(flight_mutex_);
  bool moved = false;
  for (Field* f : flight_) moved = advance(*f) || moved;
  return moved;
}

template <typename T>
void Plan3d<T>::enter(Field& f) const {
  std::lock_guard<std::mutex> lock(flight_mutex_);
  flight_.push_back(&f);
}

template <typename T>
void Plan3d<T>::leave(const Field& f) const {
  std::lock_guard<std::mutex> lock(flight_mutex_);
  const auto it = std::find(flight_.begin(), flight_.end(), &f);
  if (it == flight_.end()) return;
  flight_.erase(it);
  if (!queued_all(f) && moves_) broken_ = true;
}

template <typename T>
void Plan3d<T>::drain() const {
  if (!moves_) return;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(flight_mutex_);
      if (turn_ >= seq_) return;
    }
    pass();
  }
}

// Field f runs on workspace f % W, entering the flight once field f - W, the workspace's
// previous user, has queued all of its work (the workspace's queue orders the rest).
template <typename T>
void Plan3d<T>::run(Direction direction, int nv, const void* const* in, void* const* out, fft::Timings* t) const {
  const int dir = direction == Direction::Forward ? 0 : 1;
  // The plan's queues do not wait for the caller's streams: let what wrote the input finish.
  dev_->synchronize();
  if (t) {
    drain();  // split-phase transforms in flight start their exchanges first
    const std::uint64_t first = reserve(nv);
    run_timed(dir, nv, in, out, *t);
    std::lock_guard<std::mutex> lock(flight_mutex_);
    turn_ = first + static_cast<std::uint64_t>(nv);
    return;
  }
  const int W = static_cast<int>(ws_.size());
  std::vector<Field> fields(static_cast<std::size_t>(nv));  // never reallocated: flight_ points in
  const std::uint64_t first = reserve(nv);
  int next = 0;
  struct Leave {
    const Plan3d& p;
    std::vector<Field>& f;
    const int& entered;
    ~Leave() {
      for (int k = 0; k < entered; ++k) p.leave(f[static_cast<std::size_t>(k)]);
    }
  } leave{*this, fields, next};
  for (;;) {
    while (next < nv && (next < W || queued_all(fields[static_cast<std::size_t>(next - W)]))) {
      Field& fl = fields[static_cast<std::size_t>(next)];
      fl.seq = first + static_cast<std::uint64_t>(next);
      fl.dir = dir;
      fl.in = in[next];
      fl.out = out[next];
      fl.w = ws_[static_cast<std::size_t>(next % W)].get();
      enter(fl);
      ++next;
    }
    if (next == nv && std::all_of(fields.begin(), fields.end(), [&](const Field& f) { return queued_all(f); })) break;
    pass();
  }
  for (const auto& w : ws_) w->q->sync();
}

template <typename T>
std::unique_ptr<DeviceRun> Plan3d<T>::start(Direction direction, const void* in, void* out, DeviceWork& w) const {
  dev_->synchronize();
  auto r = std::make_unique<Run>(*this);
  Field& f = r->field;
  f.dir = direction == Direction::Forward ? 0 : 1;
  f.in = in;
  f.out = out;
  f.w = &static_cast<Work&>(w);
  f.seq = reserve(1);
  enter(f);
  r->entered_ = true;
  advance_all();
  return r;
}

template <typename T>
std::string Plan3d<T>::describe() const {
  std::ostringstream os;
  os << "device: " << dev_->name() << "\n";
  os << "forward: " << (one_rank_ && natural_ ? a_out_.what : a_[0].what) << "\n";
  if (row_) os << "  " << row_->str() << "; then " << y_[0].what << "\n";
  if (col_) os << "  " << col_->str() << (one_rank_ ? "" : "; then " + z_[0].what) << "\n";
  os << "output: " << (natural_ ? "natural [z][y][x]" : "transposed [y][z][x]") << "\n";
  os << "fields in flight: " << ws_.size() << ", device workspace " << workspace_bytes() << " bytes";
  return os.str();
}

}  // namespace

bool hands_buffers_to_mpi(const coll::Transport& t) {
  const std::string& a = t.algorithm.name;
  return a == "blocking" || a == "native" || a == "pairwise" || a == "linear" || a == "persistent";
}

std::string device_limits(const Decomposition& d, const Options& o) {
  std::string why;
  auto add = [&](const std::string& s) { why += (why.empty() ? "" : "; ") + s; };
  if (d.padded()) add("padding (the spectrum on a smaller grid) is not on the device yet");
  for (int a = 0; a < 3; ++a)
    if (fft::is_r2r(o.kinds[a])) {
      add("the real-to-real kinds are not on the device yet (kinds must be periodic)");
      break;
    }
  if (o.lean_workspace) add("lean_workspace is a CPU layout (device plans hold their own buffers)");
  if (o.device_exchange == fft::DeviceExchange::Ipc && o.device != fft::Device::Cuda)
    add("device_exchange=ipc maps other processes' GPU memory: it needs device=cuda");
  if (o.device_exchange == fft::DeviceExchange::Mpi) {
    for (const coll::Transport* t : {&o.row_transport, &o.col_transport})
      if (!hands_buffers_to_mpi(*t)) {
        add("device_exchange=mpi hands GPU memory to MPI: the alltoall algorithm '" + t->algorithm.name +
            "' copies blocks on the host (use blocking, native, persistent, pairwise or linear)");
        break;
      }
    // Asked of the library on every rank alike (the same library everywhere).
    if (o.device == fft::Device::Cuda) {
      const std::string why = mpi_cuda_support();
      if (!why.empty()) add("device_exchange=mpi: " + why + "; use device_exchange=staged or ipc");
    }
  }
  return why;
}

std::unique_ptr<DeviceTransform> make_device_transform(std::shared_ptr<Device> dev, const Decomposition& d,
                                                       const Options& o, const coll::Comm& row, const coll::Comm& col) {
  if (o.precision == fft::Precision::Single) return std::make_unique<Plan3d<float>>(std::move(dev), d, o, row, col);
  return std::make_unique<Plan3d<double>>(std::move(dev), d, o, row, col);
}

}  // namespace nbfft::gpu
