#include "fft/user_layout.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace nbfft::fft {

namespace {

std::vector<Box3> internal_boxes(const Decomposition& d, bool in) {
  std::vector<Box3> v;
  for (int r = 0; r < d.m1 * d.m2; ++r) {
    const Decomposition o = d.of_rank(r);
    v.push_back(in ? o.x_pencil : o.z_pencil);
  }
  return v;
}

const char* kind_word(Reshape::Kind k) {
  return k == Reshape::Identity ? "the internal pencil (no copy)" : k == Reshape::Local ? "local copy" : "exchange";
}

}  // namespace

UserLayout::UserLayout(const Decomposition& d, std::vector<Box3> in_boxes, std::vector<Box3> out_boxes,
                       std::size_t in_elem, std::size_t out_elem, MPI_Comm comm, const coll::Transport& t,
                       bool lean, std::array<int, 3> z_order)
    : lean_(lean), transport_(t) {
  const std::vector<Box3> xs = internal_boxes(d, true);
  std::vector<Box3> zs = internal_boxes(d, false);
  for (Box3& b : zs) b.order = z_order;
  in_fwd_ = Reshape(in_boxes, xs, d.rank, in_elem);
  in_bwd_ = Reshape(xs, in_boxes, d.rank, in_elem);
  out_fwd_ = Reshape(zs, out_boxes, d.rank, out_elem);
  out_bwd_ = Reshape(out_boxes, zs, d.rank, out_elem);
  b_bytes_ = std::max(static_cast<std::size_t>(d.x_pencil.count()) * in_elem,
                      static_cast<std::size_t>(d.z_pencil.count()) * out_elem);
  if (in_fwd_.kind() == Reshape::Exchange || out_fwd_.kind() == Reshape::Exchange) comm_ = coll::Comm(comm, t.engine);
}

std::size_t UserLayout::Buffers::bytes() const {
  std::size_t n = 0;
  for (const auto& s : staging) n += s ? s->bytes() : 0;
  for (const auto& x : b) n += x.bytes();
  return n;
}

std::unique_ptr<UserLayout::Buffers> UserLayout::make_buffers(int fields) const {
  auto b = std::make_unique<Buffers>();
  const Reshape* r[4] = {&in_fwd_, &in_bwd_, &out_fwd_, &out_bwd_};
  for (int k = 0; k < 4; ++k) b->staging[k] = r[k]->staging(comm_, transport_);
  ensure_fields(*b, fields);
  return b;
}

void UserLayout::ensure_fields(Buffers& b, int fields) const {
  if (passes()) return;
  while (static_cast<int>(b.b.size()) < fields) b.b.emplace_back(b_bytes_);
}

// Adds the seconds since its start to a phase and to the total of the call.
struct ReshapeClock {
  Timings* t;
  double Timings::*phase;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~ReshapeClock() {
    if (!t) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t->*phase += s;
    t->total += s;
  }
};

void UserLayout::before(Dir d, const void* in, void* out, Buffers& b, int k, const void** tin, void** tout,
                        Timings* t) const {
  const bool fwd = d == kForward;
  const Reshape& first = fwd ? in_fwd_ : out_bwd_;
  const Reshape& last = fwd ? out_fwd_ : in_bwd_;
  if (passes()) {
    *tin = in;
    *tout = out;
    return;
  }
  void* B = b.b[static_cast<std::size_t>(k)].get();
  ReshapeClock clock{t, &Timings::pack};
  if (first.identity() && !lean_) {
    *tin = in;
  } else {
    first.run(in, B, *b.staging[fwd ? 0 : 3]);  // identity (lean): one memcpy
    *tin = B;
  }
  *tout = last.identity() && !lean_ ? out : B;
}

void UserLayout::after(Dir d, void* out, Buffers& b, int k, Timings* t) const {
  const bool fwd = d == kForward;
  const Reshape& last = fwd ? out_fwd_ : in_bwd_;
  if (passes() || (last.identity() && !lean_)) return;
  ReshapeClock clock{t, &Timings::unpack};
  last.run(b.b[static_cast<std::size_t>(k)].get(), out, *b.staging[fwd ? 2 : 1]);
}

void UserLayout::describe(std::ostream& os) const {
  os << "user boxes: in " << in_box() << " (" << kind_word(in_fwd_.kind());
  if (in_fwd_.kind() == Reshape::Exchange)
    os << ", sends " << in_fwd_.sent() << " receives " << in_fwd_.received() << " points";
  os << "), out " << out_box() << " (" << kind_word(out_fwd_.kind());
  if (out_fwd_.kind() == Reshape::Exchange)
    os << ", sends " << out_fwd_.sent() << " receives " << out_fwd_.received() << " points";
  os << ")";
  if (in_fwd_.kind() == Reshape::Exchange || out_fwd_.kind() == Reshape::Exchange) os << " on " << transport_.str();
}

}  // namespace nbfft::fft
