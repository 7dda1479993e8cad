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

std::vector<Box> boxes(const std::vector<Box3>& v) {
  std::vector<Box> r;
  for (const Box3& b : v) r.push_back(to_box(b));
  return r;
}

const char* kind_word(UserLayout::Reshape::Kind k) {
  using Reshape = UserLayout::Reshape;
  return k == Reshape::Identity ? "the internal pencil (no copy)" : k == Reshape::Local ? "local copy" : "exchange";
}

}  // namespace

UserLayout::UserLayout(const Decomposition& d, std::vector<Box3> in_boxes, std::vector<Box3> out_boxes,
                       std::size_t in_elem, std::size_t out_elem, MPI_Comm comm, const coll::Transport& t,
                       bool lean, std::array<int, 3> z_order, LanePool* lanes)
    : in_boxes_(std::move(in_boxes)), out_boxes_(std::move(out_boxes)), me_(static_cast<std::size_t>(d.rank)),
      lean_(lean), transport_(t) {
  std::vector<Box3> zs3 = internal_boxes(d, false);
  for (Box3& b : zs3) b.order = z_order;
  const std::vector<Box> xs = boxes(internal_boxes(d, true)), zs = boxes(zs3), ins = boxes(in_boxes_),
                         outs = boxes(out_boxes_);
  in_fwd_ = Reshape(ins, xs, d.rank, in_elem);
  in_bwd_ = Reshape(xs, ins, d.rank, in_elem);
  out_fwd_ = Reshape(zs, outs, d.rank, out_elem);
  out_bwd_ = Reshape(outs, zs, d.rank, out_elem);
  for (Reshape* r : {&in_fwd_, &in_bwd_, &out_fwd_, &out_bwd_}) r->share_copies(copy_share(lanes));
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

// Adds the seconds since its start to a phase and, unless the caller's own clock covers
// them, to the total of the call.
struct ReshapeClock {
  Timings* t;
  double Timings::*phase;
  bool in_total;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  ~ReshapeClock() {
    if (!t) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    t->*phase += s;
    if (in_total) t->total += s;
  }
};

void UserLayout::arrays(Dir d, const void* in, void* out, Buffers& b, int k, const void** tin, void** tout) const {
  void* B = passes() ? nullptr : b.b[static_cast<std::size_t>(k)].get();
  *tin = first_runs(d) ? B : in;
  *tout = last_runs(d) ? B : out;
}

void UserLayout::post_in(Dir d, const void* in, Buffers& b, int k, Timings* t, bool in_total) const {
  if (!first_runs(d)) return;
  ReshapeClock clock{t, &Timings::pack, in_total};
  first(d).post(in, b.b[static_cast<std::size_t>(k)].get(), first_staging(d, b));  // identity (lean): one memcpy
}

void UserLayout::finish_in(Dir d, Buffers& b, Timings* t, bool in_total) const {
  if (!first_runs(d)) return;
  ReshapeClock clock{t, &Timings::pack, in_total};
  first(d).finish(first_staging(d, b));
}

void UserLayout::post_out(Dir d, void* out, Buffers& b, int k, Timings* t, bool in_total) const {
  if (!last_runs(d)) return;
  ReshapeClock clock{t, &Timings::unpack, in_total};
  last(d).post(b.b[static_cast<std::size_t>(k)].get(), out, last_staging(d, b));
}

void UserLayout::finish_out(Dir d, Buffers& b, Timings* t, bool in_total) const {
  if (!last_runs(d)) return;
  ReshapeClock clock{t, &Timings::unpack, in_total};
  last(d).finish(last_staging(d, b));
}

bool UserLayout::arrived(Dir d, Buffers& b) const {
  if (passes()) return true;
  const bool in = first(d).arrived(first_staging(d, b));  // both: each unpacks what has come
  return last(d).arrived(last_staging(d, b)) && in;
}

void UserLayout::before(Dir d, const void* in, void* out, Buffers& b, int k, const void** tin, void** tout,
                        Timings* t) const {
  arrays(d, in, out, b, k, tin, tout);
  post_in(d, in, b, k, t);
  finish_in(d, b, t);
}

void UserLayout::after(Dir d, void* out, Buffers& b, int k, Timings* t) const {
  post_out(d, out, b, k, t);
  finish_out(d, b, t);
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
