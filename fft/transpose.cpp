// Pencils (nbfft/fft/transpose.hpp): the user-facing pencil transposes on the plan's
// exchange path. Each (pair of pencils, element size) gets one fft::Exchange built from the
// boxes of its communicator's ranks, with x measured in bytes (x is contiguous in every
// pencil, so an element of E bytes is E byte-points of x and the same box arithmetic serves
// every element size). A transpose packs the user's z planes into the send blocks
// (Exchange::scatter), runs the exchange's collectives and unpacks the receive blocks into
// the user's z planes (Exchange::gather): 2DECOMP&FFT's pack / alltoallv / unpack, with the
// alltoallv one of nbfft's transports.
#include "nbfft/fft/transpose.hpp"

#include "fft/exchange.hpp"
#include "fft/threads.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/decomposition.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>

namespace nbfft::fft {

const char* name(Pencil p) {
  switch (p) {
    case Pencil::X: return "X";
    case Pencil::Y: return "Y";
    case Pencil::Z: return "Z";
  }
  return "?";
}

PencilOptions& PencilOptions::transport(std::string_view name) {
  row_transport = col_transport = coll::Transport::parse(name);
  return *this;
}

namespace {

using Byte = unsigned char;

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string(what) + " failed", ErrorCode::Mpi);
}

// The most transposes in flight per pool (pair of pencils, element size).
constexpr int kMaxSlots = 64;

// Buffers and collectives of one transpose in flight.
struct Slot {
  std::vector<Byte> buf[2];
  std::vector<coll::Collective> coll[2];  // [Dir]
  bool busy = false;
};

// One exchange (pair, element size) and its pool of slots.
struct Pool {
  std::shared_ptr<const Exchange> ex;
  std::vector<std::shared_ptr<Slot>> slots;
};

std::string str3(const std::array<std::int64_t, 3>& a) {
  std::ostringstream os;
  os << a[0] << "x" << a[1] << "x" << a[2];
  return os.str();
}

}  // namespace

struct Pencils::Impl {
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate: agreements
  Decomposition d;
  Box3 box[3];
  Options opt;
  coll::Comm row, col;
  std::map<std::pair<int, std::size_t>, Pool> pools;  // (pair: 0 XY, 1 YZ, 2 XZ, elem)
  LanePool* lanes = nullptr;                           // share_copies

  ~Impl() {
    pools.clear();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  static Box3 pencil_of(const Decomposition& dd, Pencil p) {
    Box3 b = p == Pencil::X ? dd.x_pencil : p == Pencil::Y ? dd.y_pencil : dd.z_pencil;
    b.order = {0, 1, 2};
    return b;
  }

  bool can(Pencil a, Pencil b) const {
    if (a == b) return false;
    if ((a == Pencil::X && b == Pencil::Z) || (a == Pencil::Z && b == Pencil::X)) return d.m1 == 1 || d.m2 == 1;
    return true;
  }

  // The exchange of `pair` for elements of `elem` bytes, built on first use (local: every
  // rank reaches it in the same agreed call).
  Pool& pool(int pair, std::size_t elem) {
    auto key = std::make_pair(pair, elem);
    auto it = pools.find(key);
    if (it != pools.end()) return it->second;
    // pair 2 (X<->Z) runs on the communicator that spans the slab: COL when M1 = 1.
    const bool on_row = pair == 0 || (pair == 2 && d.m1 > 1);
    const Pencil lo = pair == 1 ? Pencil::Y : Pencil::X;
    const Pencil hi = pair == 0 ? Pencil::Y : Pencil::Z;
    ExchangeSide s0, s1;
    const int peers = on_row ? d.m1 : d.m2;
    const auto scaled = [&](Box3 b) {
      b.lo[0] *= static_cast<std::int64_t>(elem);
      b.n[0] *= static_cast<std::int64_t>(elem);
      return b;
    };
    for (int p = 0; p < peers; ++p) {
      const int r = on_row ? p + d.j * d.m1 : d.i + p * d.m1;
      const Decomposition o = d.of_rank(r);
      s0.box.push_back(scaled(pencil_of(o, lo)));
      s1.box.push_back(scaled(pencil_of(o, hi)));
    }
    static const char* names[3] = {"X<->Y", "Y<->Z", "X<->Z"};
    Pool p;
    p.ex = std::make_shared<const Exchange>(names[pair], on_row ? d.i : d.j, std::move(s0), std::move(s1),
                                            /*slow=*/2, 0, 0, 0, on_row ? row : col,
                                            on_row ? opt.row_transport : opt.col_transport);
    return pools.emplace(key, std::move(p)).first->second;
  }

  // Which slots of the pool of (pair, elem) are free on this rank: 1 free, 0 busy or not
  // made (kMaxSlots entries; none before the pool's first call).
  std::vector<std::uint64_t> free_slots(int pair, std::size_t elem) const {
    std::vector<std::uint64_t> f(kMaxSlots, 0);
    const auto it = pools.find(std::make_pair(pair, elem));
    if (it != pools.end())
      for (std::size_t k = 0; k < it->second.slots.size(); ++k) f[k] = it->second.slots[k]->busy ? 0 : 1;
    return f;
  }

  // `sets` slots of the pool for one call, the same ones on every rank: `common` (agreed
  // with the call: free_slots' minimum over the ranks) says which are free everywhere; the
  // rest are made here, on every rank alike. A rank's own free slot will not do: ranks hold
  // different transposes in flight (waits are local), and a slot's collectives are its own
  // (`replace` runs on a communicator per slot), so ranks in different slots would wait on
  // each other for ever; and making a slot binds collectives, collective itself for some
  // algorithms (`replace` duplicates a communicator, `persistent` is MPI-4's
  // Alltoallv_init). The new slots' buffers are allocated first and the ranks agree that
  // every allocation succeeded (OutOfMemory on every rank otherwise) before any is bound.
  // Collective over agree_on (this object's ranks, or a communicator holding them whose
  // every rank makes as many here: nbfft's N-D plan).
  std::vector<std::shared_ptr<Slot>> slots_for(Pool& p, const std::vector<std::uint64_t>& common, int sets,
                                               MPI_Comm agree_on) {
    std::vector<std::shared_ptr<Slot>> out;
    for (std::size_t k = 0; k < p.slots.size() && static_cast<int>(out.size()) < sets; ++k)
      if (common[k]) out.push_back(p.slots[k]);
    const std::size_t more = static_cast<std::size_t>(sets) - out.size();
    if (more == 0) return out;
    if (p.slots.size() + more > static_cast<std::size_t>(kMaxSlots))  // the same count on every rank: agreed
      throw Error("Pencils: " + std::to_string(kMaxSlots) + " transposes of these pencils are in flight, the most "
                  "at once; wait for some first", ErrorCode::InvalidState);
    const std::size_t bytes[2] = {static_cast<std::size_t>(p.ex->buffer_elems(0)),
                                  static_cast<std::size_t>(p.ex->buffer_elems(1))};
    std::vector<std::shared_ptr<Slot>> fresh;
    agree(agree_on, [&] {
      try {
        for (std::size_t k = 0; k < more; ++k) {
          fresh.push_back(std::make_shared<Slot>());
          for (int side = 0; side < 2; ++side) fresh.back()->buf[side].resize(bytes[side]);
        }
      } catch (const std::bad_alloc&) {
        throw Error("Pencils: cannot allocate " + std::to_string(bytes[0] + bytes[1]) + " bytes of " + p.ex->name() +
                        " transpose buffers (" + std::to_string(p.slots.size() + fresh.size()) + " sets held)",
                    ErrorCode::OutOfMemory);
      }
    });
    for (auto& f : fresh) {
      for (Dir d : {kForward, kBackward}) f->coll[d] = p.ex->bind(d, f->buf[0].data(), f->buf[1].data(), 1);
      p.slots.push_back(f);
      out.push_back(std::move(f));
    }
    return out;
  }


  // "" or what is wrong with a transpose `call` of elem-byte elements from `from` to `to`
  // here: the pencils, the element size, and whether its byte sizes can be addressed (the
  // pencils of this rank, x measured in bytes: a huge element size would wrap them).
  std::string pair_error(const std::string& call, Pencil from, Pencil to, std::size_t elem) const {
    for (Pencil p : {from, to})
      if (static_cast<int>(p) < 0 || static_cast<int>(p) > 2)
        return call + ": pencil " + std::to_string(static_cast<int>(p)) + " is not X (0), Y (1) or Z (2)";
    if (elem == 0) return call + ": element size is 0 bytes";
    if (!can(from, to))
      return call + ": " + (from == to ? std::string("the same pencil on both sides")
                                       : "X<->Z is one transpose only on a slab grid (M1 = 1 or M2 = 1), this grid is " +
                                             std::to_string(d.m1) + "x" + std::to_string(d.m2) + ": transpose through Y");
    std::int64_t bytes = 0;
    const auto fits = [&](std::int64_t points) {
      return elem <= static_cast<std::size_t>(PTRDIFF_MAX) &&
             !__builtin_mul_overflow(points, static_cast<std::int64_t>(elem), &bytes);
    };
    for (Pencil p : {from, to})
      if (!fits(box[static_cast<int>(p)].count()))
        return call + ": element size " + std::to_string(elem) + " bytes: this rank's " + name(p) + "-pencil of " +
               std::to_string(box[static_cast<int>(p)].count()) + " points cannot be addressed (more than " +
               std::to_string(PTRDIFF_MAX) + " bytes)";
    if (!fits(d.n[0]))
      return call + ": element size " + std::to_string(elem) + " bytes: a row of " + std::to_string(d.n[0]) +
             " x-points cannot be addressed (more than " + std::to_string(PTRDIFF_MAX) + " bytes)";
    return "";
  }
};

// The bytes from which a transpose's pack or unpack is shared among a plan's threads: 512 KiB
// (below that, handing out the blocks costs more than the copy); NBFFT_SHARE_PACK_BYTES sets
// it (tests: 0 shares every one).
std::size_t share_pack_bytes() {
  static const std::size_t bytes = [] {
    const char* v = std::getenv("NBFFT_SHARE_PACK_BYTES");
    return v ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : std::size_t{512} << 10;
  }();
  return bytes;
}

// planes(u0, u1) over [0, n) planes of `bytes` each: on the lanes in ranges of fft::copy_grain
// when they are set and the copy is large enough to pay for handing it out, else here.
template <typename F>
void by_planes(LanePool* lanes, std::int64_t n, std::size_t bytes, F&& planes) {
  const std::size_t total = static_cast<std::size_t>(n) * bytes;
  if (!lanes || lanes->lanes() == 1 || n <= 1 || total < share_pack_bytes()) return planes(std::int64_t{0}, n);
  lanes->for_units(0, n, copy_grain(lanes->lanes(), n, bytes),
                   [&](int, std::int64_t a, std::int64_t b) { planes(a, b); });
}

// One transpose between start and wait (Pencils::Pending's operation); its wait is local.
struct TransposeRequest final : Request::Impl {
  std::shared_ptr<const Exchange> ex;
  std::shared_ptr<Slot> slot;
  LanePool* lanes = nullptr;
  Dir dir = kForward;
  Byte* out = nullptr;
  std::int64_t out_ld = 0, out_plane = 0;
  std::vector<coll::Request> reqs;
  bool finished = false;

  void finish() {
    finished = true;
    struct Release {
      Slot& s;
      ~Release() { s.busy = false; }
    } release{*slot};
    coll::Request::wait_all(reqs);
    Byte* const buf[2] = {slot->buf[0].data(), slot->buf[1].data()};
    const std::int64_t planes = ex->planes(dir == kForward ? 1 : 0);
    by_planes(lanes, planes, static_cast<std::size_t>(out_plane), [&](std::int64_t u0, std::int64_t u1) {
      for (std::int64_t u = u0; u < u1; ++u) ex->gather(dir, out + u * out_plane, out_ld, u, buf);
    });
  }
  void need_active(const char* call) const {
    if (finished)
      throw Error(std::string("Pencils::Pending::") + call +
                      ": the transpose is not active (never started, moved from, or already waited for)",
                  ErrorCode::InvalidState);
  }

  bool active() const override { return !finished; }
  void progress() override {
    need_active("progress");
    coll::progress_all();
  }
  bool test() override {
    progress();
    reqs.erase(std::remove_if(reqs.begin(), reqs.end(), [](coll::Request& r) { return r.test(); }), reqs.end());
    return reqs.empty();
  }
  void wait() override {
    need_active("wait");
    finish();
  }
};

namespace {

// The pool index of a pair of pencils: 0 X<->Y, 1 Y<->Z, 2 X<->Z.
int pair_of(Pencil from, Pencil to) {
  const int lo = std::min(static_cast<int>(from), static_cast<int>(to));
  const int hi = std::max(static_cast<int>(from), static_cast<int>(to));
  return lo == 0 && hi == 1 ? 0 : lo == 1 ? 1 : 2;
}

// Packs `in` (this rank's send-side pencil, z planes) into the slot and starts the exchange.
std::shared_ptr<TransposeRequest> begin(const std::shared_ptr<const Exchange>& ex, std::shared_ptr<Slot> slot,
                                              Dir dir, const Byte* in, Byte* out, LanePool* lanes) {
  auto p = std::make_shared<TransposeRequest>();
  p->ex = ex;
  p->lanes = lanes;
  p->slot = std::move(slot);
  p->dir = dir;
  p->out = out;
  const Box3& src = ex->mine(dir == kForward ? 0 : 1);
  const Box3& dst = ex->mine(dir == kForward ? 1 : 0);
  p->out_ld = dst.n[0];
  p->out_plane = dst.n[0] * dst.n[1];
  p->slot->busy = true;
  Byte* const buf[2] = {p->slot->buf[0].data(), p->slot->buf[1].data()};
  const std::int64_t src_plane = src.n[0] * src.n[1];
  by_planes(lanes, src.n[2], static_cast<std::size_t>(src_plane), [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) ex->scatter(dir, in + u * src_plane, src.n[0], u, buf);
  });
  for (auto& c : p->slot->coll[dir]) p->reqs.push_back(c.start());
  return p;
}

}  // namespace

Pencils::Pencils(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options) {
  if (comm == MPI_COMM_NULL) throw Error("Pencils: the communicator is MPI_COMM_NULL");
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag) throw Error("Pencils: MPI is not initialized", ErrorCode::InvalidState);
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_same(comm, "pencils",
             {{"grid", str3(n)},
              {"process grid", std::to_string(options.m1) + "x" + std::to_string(options.m2)},
              {"row_transport", options.row_transport.str()},
              {"col_transport", options.col_transport.str()},
              {"fields_in_flight", std::to_string(options.fields_in_flight)}});
  auto impl = std::make_unique<Impl>();
  check_mpi(MPI_Comm_dup(comm, &impl->comm), "MPI_Comm_dup");
  agree(impl->comm, [&] {
    if (options.fields_in_flight < 1 || options.fields_in_flight > 64)
      throw Error("Pencils: fields_in_flight = " + std::to_string(options.fields_in_flight) + " must be in [1, 64]");
    impl->d = Decomposition::make(n, /*r2c=*/false, options.m1, options.m2, size, rank, /*allow_empty=*/true);
  });
  impl->opt = options;
  impl->opt.m1 = impl->d.m1;
  impl->opt.m2 = impl->d.m2;
  for (Pencil p : {Pencil::X, Pencil::Y, Pencil::Z}) impl->box[static_cast<int>(p)] = Impl::pencil_of(impl->d, p);
  MPI_Comm row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(comm, impl->d.j, impl->d.i, &row), "MPI_Comm_split");
  check_mpi(MPI_Comm_split(comm, impl->d.i, impl->d.j, &col), "MPI_Comm_split");
  std::exception_ptr failure;
  try {  // coll::Comm keeps its own duplicates
    if (impl->d.m1 > 1) impl->row = coll::Comm(row, options.row_transport.engine);
    if (impl->d.m2 > 1) impl->col = coll::Comm(col, options.col_transport.engine);
  } catch (...) {
    failure = std::current_exception();
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  agree_outcome(impl->comm, failure);
  impl_ = std::move(impl);
}

// Out of line: a `= {}` default argument made GCC 12 warn (maybe-uninitialized) at call sites.
Pencils::Pencils(MPI_Comm comm, std::array<std::int64_t, 3> n) : Pencils(comm, n, PencilOptions()) {}
Pencils::~Pencils() = default;
Pencils::Pencils(Pencils&&) noexcept = default;
Pencils& Pencils::operator=(Pencils&&) noexcept = default;

Pencils::Impl& Pencils::impl() const {
  if (!impl_) throw Error("Pencils: used after being moved from", ErrorCode::InvalidState);
  return *impl_;
}

std::array<std::int64_t, 3> Pencils::global_size() const { return impl().d.n; }
int Pencils::m1() const { return impl().d.m1; }
int Pencils::m2() const { return impl().d.m2; }
int Pencils::row() const { return impl().d.i; }
int Pencils::col() const { return impl().d.j; }
const Box3& Pencils::box(Pencil p) const { return impl().box[static_cast<int>(p)]; }
Box3 Pencils::box_of_rank(Pencil p, int rank) const {
  const Impl& m = impl();
  if (rank < 0 || rank >= m.d.m1 * m.d.m2)
    throw Error("Pencils::box_of_rank: rank " + std::to_string(rank) + " is not in [0, " +
                std::to_string(m.d.m1 * m.d.m2) + ")");
  return Impl::pencil_of(m.d.of_rank(rank), p);
}
std::array<std::int64_t, 3> Pencils::end(Pencil p) const {
  const Box3& b = box(p);
  return {b.lo[0] + b.n[0], b.lo[1] + b.n[1], b.lo[2] + b.n[2]};
}
bool Pencils::can_transpose(Pencil from, Pencil to) const { return impl().can(from, to); }
MPI_Comm Pencils::comm() const { return impl().comm; }

namespace {

// What is wrong with one field's arrays on this rank ("" if nothing).
std::string field_error(const std::string& what, const void* in, std::size_t in_have, std::size_t in_need,
                        const void* out, std::size_t out_have, std::size_t out_need) {
  const char* i = static_cast<const char*>(in);
  const char* o = static_cast<const char*>(out);
  if ((i == nullptr && in_need > 0) || (o == nullptr && out_need > 0)) return what + ": null array for a non-empty pencil";
  if (i == o) {
    const std::size_t need = std::max(in_need, out_need), have = std::min(in_have, out_have);
    if (have < need)
      return what + ": in-place array has " + std::to_string(have) + " bytes but needs " + std::to_string(need) +
             " (the larger of the two pencils)";
    return "";
  }
  if (in_have < in_need)
    return what + ": input array has " + std::to_string(in_have) + " bytes but this rank's pencil needs " +
           std::to_string(in_need);
  if (out_have < out_need)
    return what + ": output array has " + std::to_string(out_have) + " bytes but this rank's pencil needs " +
           std::to_string(out_need);
  if (i && o && in_need && out_need && i < o + out_need && o < i + in_need)
    return what + ": input and output arrays overlap without being the same array";
  return "";
}

}  // namespace

void Pencils::transpose_bytes(Pencil from, Pencil to, const void* in, std::size_t in_bytes, void* out,
                              std::size_t out_bytes, std::size_t elem) const {
  start_bytes(from, to, in, in_bytes, out, out_bytes, elem).wait();
}

void Pencils::many_bytes(Pencil from, Pencil to, std::size_t nv_in, const void* const* in, std::size_t in_bytes,
                         std::size_t nv_out, void* const* out, std::size_t out_bytes, std::size_t elem) const {
  Impl& m = impl();
  const std::string call = std::string("transpose_many ") + name(from) + "->" + name(to);
  std::string err = m.pair_error(call, from, to, elem);
  const auto need = [&](Pencil p) { return static_cast<std::size_t>(m.box[static_cast<int>(p)].count()) * elem; };
  if (err.empty() && nv_in != nv_out)
    err = call + ": " + std::to_string(nv_in) + " input fields but " + std::to_string(nv_out) + " output fields";
  if (err.empty() && nv_in > 0 && (in == nullptr || out == nullptr)) err = call + ": null list of fields";
  for (std::size_t k = 0; err.empty() && k < nv_in; ++k) {
    err = field_error(call + " field " + std::to_string(k), in[k], in_bytes, need(from), out[k], out_bytes, need(to));
    for (std::size_t l = 0; err.empty() && l < k; ++l)
      if (out[l] == out[k] && need(to) > 0) err = call + ": fields " + std::to_string(l) + " and " + std::to_string(k) + " write the same array";
  }
  // Up to F fields in flight: field k is packed and started while fields k-F+1..k-1 travel.
  const std::size_t F = static_cast<std::size_t>(m.opt.fields_in_flight);
  const int pair = pair_of(from, to);
  std::vector<std::uint64_t> common = m.free_slots(pair, elem);
  agree_call_min(m.comm, "pencils", {{"the collective call", call}, {"element bytes", std::to_string(elem)},
                                     {"the number of fields", std::to_string(nv_in)}}, err, common);
  if (nv_in == 0) return;
  const Dir dir = static_cast<int>(from) < static_cast<int>(to) ? kForward : kBackward;
  Pool& pool = m.pool(pair, elem);
  // Field k runs in slot k mod F, free again by then: field k-F finished before it starts.
  const auto slots = m.slots_for(pool, common, static_cast<int>(std::min(nv_in, F)), m.comm);
  std::vector<std::shared_ptr<TransposeRequest>> flight(nv_in);
  for (std::size_t k = 0; k < nv_in; ++k) {
    flight[k] = begin(pool.ex, slots[k % slots.size()], dir, static_cast<const Byte*>(in[k]),
                      static_cast<Byte*>(out[k]), m.lanes);
    if (k + 1 >= F) flight[k + 1 - F]->finish();
  }
  for (std::size_t k = nv_in >= F ? nv_in + 1 - F : 0; k < nv_in; ++k) flight[k]->finish();
}

Pencils::Pending Pencils::start_bytes(Pencil from, Pencil to, const void* in, std::size_t in_bytes, void* out,
                                      std::size_t out_bytes, std::size_t elem) const {
  Impl& m = impl();
  const std::string call = std::string("transpose ") + name(from) + "->" + name(to);
  std::string err = m.pair_error(call, from, to, elem);
  if (err.empty())
    err = field_error(call, in, in_bytes, static_cast<std::size_t>(m.box[static_cast<int>(from)].count()) * elem, out,
                      out_bytes, static_cast<std::size_t>(m.box[static_cast<int>(to)].count()) * elem);
  const int pair = pair_of(from, to);
  std::vector<std::uint64_t> common = m.free_slots(pair, elem);
  agree_call_min(m.comm, "pencils", {{"the collective call", call}, {"element bytes", std::to_string(elem)},
                                     {"the number of fields", "1"}}, err, common);
  const Dir dir = static_cast<int>(from) < static_cast<int>(to) ? kForward : kBackward;
  Pool& pool = m.pool(pair, elem);
  return Pending(begin(pool.ex, m.slots_for(pool, common, 1, m.comm).front(), dir, static_cast<const Byte*>(in),
                       static_cast<Byte*>(out), m.lanes));
}

void Pencils::share_copies(LanePool* lanes) { impl().lanes = lanes; }

std::size_t Pencils::free_buffers(Pencil from, Pencil to, std::size_t elem) const {
  Impl& m = impl();
  const std::string e = m.pair_error(std::string("Pencils::free_buffers ") + name(from) + "->" + name(to), from, to, elem);
  if (!e.empty()) throw Error(e, ErrorCode::InvalidArgument);
  const auto f = m.free_slots(pair_of(from, to), elem);
  return static_cast<std::size_t>(std::count(f.begin(), f.end(), std::uint64_t(1)));
}

// The slots a call takes are those free on every rank (slots_for), so the sets made now are
// as many as `transposes` lacks of those, the same count on every rank of agree_on.
void Pencils::reserve_bytes(Pencil from, Pencil to, std::size_t elem, std::size_t transposes, MPI_Comm agree_on) const {
  Impl& m = impl();
  const MPI_Comm c = agree_on == MPI_COMM_NULL ? m.comm : agree_on;
  std::string e = m.pair_error(std::string("Pencils::reserve_bytes ") + name(from) + "->" + name(to), from, to, elem);
  if (e.empty() && transposes > static_cast<std::size_t>(kMaxSlots))
    e = "Pencils::reserve_bytes: " + std::to_string(transposes) + " transposes in flight, more than the " +
        std::to_string(kMaxSlots) + " a pair of pencils takes";
  agree_message(c, e, ErrorCode::InvalidArgument);
  const int pair = pair_of(from, to);
  std::vector<std::uint64_t> common = m.free_slots(pair, elem);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, common.data(), static_cast<int>(common.size()), MPI_UINT64_T, MPI_MIN, c),
            "MPI_Allreduce");
  m.slots_for(m.pool(pair, elem), common, static_cast<int>(transposes), c);
}

std::ostream& operator<<(std::ostream& os, const Pencils& p) {
  const Pencils::Impl& m = p.impl();
  os << "pencils " << str3(m.d.n) << " on " << m.d.m1 << "x" << m.d.m2 << " ranks (row " << m.d.i << ", col "
     << m.d.j << ")\n";
  for (Pencil q : {Pencil::X, Pencil::Y, Pencil::Z}) os << "  " << name(q) << "-pencil " << p.box(q) << "\n";
  os << "  row transport " << m.opt.row_transport.str() << ", col transport " << m.opt.col_transport.str() << "\n";
  return os;
}

}  // namespace nbfft::fft
