// One field through an nd::Plan's steps (Flight), and a call's fields pipelined over the
// lanes of a workspace (nd/run.hpp).
//
// Copies: a field's stages alternate between its lane's two work arrays; the step that
// writes the last stage (the last exchange, the r2c, or the input copy when nothing else
// writes) writes the caller's output itself when it is one contiguous, suitably aligned
// run that does not overlap the input, and the FFTs after it run there in place: no copy
// out (an r2c plan at one rank reads the caller's input and writes the caller's spectrum).
// A first exchange reads the caller's input itself (it only reads).
#include "nd/run.hpp"

#include "fft/padding.hpp"
#include "local/move.hpp"

#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"

#include <unistd.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nbfft::nd::detail {

namespace {

using Byte = unsigned char;

// body(a, b) over ranges that together cover [0, n) once: on the plan's threads when it has
// them (ranges of at most `grain`), else on this thread at once.
template <typename F>
void share(const Plan::Impl& m, std::int64_t n, std::int64_t grain, F&& body) {
  if (n <= 0) return;
  if (!m.pool) return body(std::int64_t{0}, n);
  m.pool->for_units(0, n, grain, [&](int, std::int64_t a, std::int64_t b) { body(a, b); });
}

// Units of a copy of `bytes` for the plan's threads (fft::copy_grain).
std::int64_t copy_grain(const Plan::Impl& m, std::int64_t units, std::size_t bytes) {
  if (!m.pool || units <= 1) return units;
  return fft::copy_grain(m.threads, units, bytes / static_cast<std::size_t>(units));
}

// [A][S][B][R] -> [A][B][S][R] (R contiguous bytes): moves the axes between the two of an
// exchange out of the way of the pencil transpose.
void swap_blocks(const Plan::Impl& m, Byte* dst, const Byte* src, std::int64_t A, std::int64_t S, std::int64_t B,
                 std::int64_t R) {
  const auto bytes = static_cast<std::size_t>(R);
  const std::int64_t units = A * S;  // unit u: a = u / S, s = u % S
  share(m, units, copy_grain(m, units, static_cast<std::size_t>(units * B * R)), [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) {
      const std::int64_t a = u / S, s = u % S;
      for (std::int64_t b = 0; b < B; ++b) local::copy_bytes(dst + ((a * B + b) * S + s) * R, src + ((a * S + s) * B + b) * R, bytes);
    }
  });
}

// Whether a transpose writing `bytes` streams its writes past the caches (non-temporal
// stores): when the array is larger than a quarter of the last-level cache, it will not be
// in cache for the next step anyway, and ordinary stores first read every destination line
// (read for ownership): a third more memory traffic. 8192^2 r2c's transposes at one rank
// (537 MB each): forward 128 -> see docs/performance.md "N-D plans". Smaller arrays keep
// ordinary stores, which leave the result in cache for the FFT after the transpose. The
// environment variable NBFFT_ND_STREAM_BYTES sets the size from which they stream.
bool stream_writes(std::size_t bytes) {
#if defined(__SSE2__)
  static const std::size_t threshold = [] {
    if (const char* v = std::getenv("NBFFT_ND_STREAM_BYTES"))  // tests: 0 streams every transpose
      return static_cast<std::size_t>(std::strtoull(v, nullptr, 10));
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return std::max<std::size_t>(std::size_t{32} << 20, l3 > 0 ? static_cast<std::size_t>(l3) / 4 : 0);
  }();
  return bytes >= threshold;
#else
  (void)bytes;
  return false;
#endif
}

// `count` transposes of [rows][cols] (rows sld elements apart) into [cols][rows] (dld apart),
// the j-th from src + soff(j) to dst + doff(j) (bytes): shared among the plan's threads by
// blocks of 64 source rows, each writing whole cache lines of its destination columns.
template <typename DOff, typename SOff>
void transposes(const Plan::Impl& m, std::int64_t count, DOff doff, SOff soff, Byte* dst, std::int64_t dld,
                const Byte* src, std::int64_t sld, std::int64_t rows, std::int64_t cols, std::size_t elem,
                bool stream) {
  constexpr std::int64_t kRows = 64;
  const std::int64_t blocks = m.pool ? (rows + kRows - 1) / kRows : 1;
  const std::int64_t per = m.pool ? kRows : rows;
  const std::int64_t units = count * blocks;
  const auto bytes = static_cast<std::size_t>(count * rows * cols) * elem;
  share(m, units, copy_grain(m, units, bytes), [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) {
      const std::int64_t j = u / blocks, r0 = (u % blocks) * per, r = std::min(per, rows - r0);
      local::transpose(dst + doff(j) + static_cast<std::size_t>(r0) * elem, dld,
                       src + soff(j) + static_cast<std::size_t>(r0 * sld) * elem, sld, r, cols, elem, stream);
    }
  });
}

// [A][rows][cols] -> [A][cols][rows] (elements of `elem` bytes).
void transpose_each(const Plan::Impl& m, Byte* dst, const Byte* src, std::int64_t A, std::int64_t rows,
                    std::int64_t cols, std::size_t elem) {
  const std::size_t block = static_cast<std::size_t>(rows * cols) * elem;
  const bool stream = stream_writes(block * static_cast<std::size_t>(A));
  const auto off = [block](std::int64_t a) { return static_cast<std::size_t>(a) * block; };
  transposes(m, A, off, off, dst, rows, src, cols, rows, cols, elem, stream);
}

// o = src * scale (a plain copy when the scale is 1; in place when o == src), shared among
// the plan's threads.
template <typename T>
void scale_copy(const Plan::Impl& m, T* o, const T* src, std::size_t n, double scale) {
  if (o == src && scale == 1) return;
  const auto len = static_cast<std::int64_t>(n);
  share(m, len, copy_grain(m, len, n * sizeof(T)), [&](std::int64_t a, std::int64_t b) {
    if (o == src) return local::scale_rows(o + a, 1, 0, b - a, static_cast<T>(scale));
    local::copy_rows_scaled(o + a, 0, src + a, 0, 1, b - a, static_cast<T>(scale));
  });
}

// `bytes` bytes, shared among the plan's threads.
void copy_shared(const Plan::Impl& m, Byte* dst, const Byte* src, std::size_t bytes) {
  const auto len = static_cast<std::int64_t>(bytes);
  share(m, len, copy_grain(m, len, bytes), [&](std::int64_t a, std::int64_t b) {
    local::copy_bytes(dst + a, src + a, static_cast<std::size_t>(b - a));
  });
}

bool overlap(const View& a, const View& b) { return a.base < b.end() && b.base < a.end(); }

// A box's extents in its memory order, slowest first.
std::vector<std::int64_t> memory_extents(const Box& b) {
  std::vector<std::int64_t> e;
  for (int a : b.order) e.push_back(b.n[static_cast<std::size_t>(a)]);
  return e;
}

// A padded plan's resize between a stage's block `src` (extents se in memory order) and the
// next one's `dst` (extents de, the same order): every element whose index is inside both
// to its place; with zero_rest, dst's elements past se are zeroed (backward: the spectrum
// spread out before the zero padding moves its negative modes; forward: the truncated
// spectrum compacted, zero_rest false). Shared among the plan's threads by rows.
void copy_block(const Plan::Impl& m, Byte* dst, const std::vector<std::int64_t>& de, const Byte* src,
                const std::vector<std::int64_t>& se, std::size_t elem, bool zero_rest) {
  const std::size_t D = de.size();
  std::vector<std::int64_t> ds(D, 1), ss(D, 1), walk(D);  // strides in elements; the rows walked
  for (std::size_t i = D - 1; i-- > 0;) {
    ds[i] = ds[i + 1] * de[i + 1];
    ss[i] = ss[i + 1] * se[i + 1];
  }
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < D; ++i) rows *= walk[i] = zero_rest ? de[i] : std::min(de[i], se[i]);
  const std::int64_t row = std::min(de[D - 1], se[D - 1]);
  const std::size_t keep = static_cast<std::size_t>(row) * elem;
  const std::size_t tail = zero_rest ? static_cast<std::size_t>(de[D - 1] - row) * elem : 0;
  const std::int64_t grain = copy_grain(m, rows, static_cast<std::size_t>(rows) * (keep + tail));
  share(m, rows, grain, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      std::int64_t left = r, doff = 0, soff = 0;
      bool inside = true;
      for (std::size_t i = D - 1; i-- > 0;) {
        const std::int64_t x = left % walk[i];
        left /= walk[i];
        doff += x * ds[i];
        soff += x * ss[i];
        inside = inside && x < se[i];
      }
      Byte* d = dst + static_cast<std::size_t>(doff) * elem;
      if (!inside) {
        std::memset(d, 0, keep + tail);
        continue;
      }
      local::copy_bytes(d, src + static_cast<std::size_t>(soff) * elem, keep);
      if (tail) std::memset(d + keep, 0, tail);
    }
  });
}

// f(lines, step, len) over every line along memory position p of a block of extents e:
// `lines` starts, slot i of a line `step` elements past slot i-1, each `len` contiguous
// elements (fft/padding.hpp's slots), shared among the plan's threads in pieces of lines
// or, when there are few, of their slots' columns.
template <typename C, typename F>
void along(const Plan::Impl& m, C* base, const std::vector<std::int64_t>& e, std::size_t p, F&& f) {
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i < p) outer *= e[i];
    if (i > p) inner *= e[i];
  }
  const std::int64_t cols = m.pool && outer < 4 * m.threads ? std::min<std::int64_t>(inner, 4 * m.threads) : 1;
  const std::int64_t width = (inner + cols - 1) / cols;
  share(m, outer * cols, 1, [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) {
      const std::int64_t o = u / cols, c0 = (u % cols) * width, c1 = std::min(inner, c0 + width);
      if (c0 < c1) f(base + o * e[p] * inner + c0, inner, c1 - c0);
    }
  });
}

// One field of a call on one lane, forward or backward.
template <typename T>
class Flight {
 public:
  Flight(const Plan::Impl& m, bool fwd, const View& in, const View& out)
      : m_(m), fwd_(fwd), in_(in), out_(out), lane_(m.lane), left_(m.sch.step.size()) {}

  // Runs until an exchange is in flight (false) or the field is done (true). others: fields
  // of this call with exchanges in flight, given a progress pass between the steps here.
  bool run(bool others) {
    others_ = others;
    if (!started_) begin();
    if (exchanging()) {
      finish_exchange();
      --left_;
    }
    while (left_ > 0) {
      const std::size_t k = next();
      if (!m_.sch.step[k].fft) {
        start_exchange(k);
        return false;
      }
      if (left_ > 1) {  // the step after this one a pipelined exchange: this one feeds it chunk by chunk
        const std::size_t x = fwd_ ? k + 1 : k - 1;
        if (!m_.sch.step[x].fft && m_.xs[x].chunks > 0) {
          feed(k, x);
          --left_;
          return false;
        }
      }
      fwd_ ? fft_forward(k) : fft_backward(k);
      --left_;
      progress();
    }
    finish();
    return true;
  }
  bool test() {
    if (!exchanging()) return true;
    if (pend_.active()) return pend_.test();
    bool done = true;  // a pipelined exchange: every chunk still in flight (each tested: a progress pass)
    for (std::size_t j = chunks_done_; j < chunk_pend_.size(); ++j) done = chunk_pend_[j].test() && done;
    return done;
  }

 private:
  std::size_t steps() const { return m_.sch.step.size(); }
  // An exchange in flight: one bulk one, or a pipelined one's chunks (until finish_exchange).
  bool exchanging() const { return pend_.active() || !chunk_pend_.empty(); }
  std::size_t next() const { return fwd_ ? steps() - left_ : left_ - 1; }
  bool writes(std::size_t k) const {
    const Step& s = m_.sch.step[k];
    return !s.fft || s.r2c || s.swap || !s.resize.empty();
  }
  bool lane_array(const Byte* p) const { return p == lane_.work[0].get() || (!m_.lean && p == lane_.work[1].get()); }
  // The array a step writes when it reads p: the lane's other one; lean: the caller's array
  // (the call is in place) and the lane's one in turn.
  Byte* other(const Byte* p) const {
    if (m_.lean) return p == lane_.work[0].get() ? out_.base : lane_.work[0].get();
    return p == lane_.work[0].get() ? lane_.work[1].get() : lane_.work[0].get();
  }
  std::size_t bytes_of(const Byte* p) const {
    if (p == out_.base && p == in_.base)  // in place: both fit; lean: every stage (Impl::lean_array_bytes)
      return m_.lean ? m_.lean_array_bytes : std::max(in_.chunk, out_.chunk);
    if (p == out_.base) return out_.chunk;
    if (p == in_.base) return in_.chunk;
    return m_.work_bytes;
  }
  void progress() const {
    if (others_) coll::progress_all();
  }
  // Where the plans run fastest: on arrays aligned as those they were planned on.
  static int align(const void* p) { return local::misalignment<T>(local::default_backend(), p); }

  // Whether step k moves the stage between the two arrays of a lean call (an exchange:
  // the copy before it, its receive and the copy after it, each one move).
  bool moves(std::size_t k) const {
    const Step& s = m_.sch.step[k];
    if (s.fft) return s.r2c || s.swap || !s.resize.empty();
    const Xchg& x = m_.xs[k];
    const bool pre = (x.swap && !fwd_) || x.B > 1, post = (x.swap && fwd_) || x.B > 1;
    return (1 + pre + post) % 2 == 1;
  }

  // A lean call (in place, two arrays: the caller's and the lane's one): every step that
  // writes goes to the array the stage is not in, so the stage starts in the caller's array
  // when an even number of steps move it and in the lane's otherwise (one copy), and ends
  // in the caller's array.
  void begin_lean() {
    std::size_t n = 0;
    for (std::size_t k = 0; k < steps(); ++k) n += moves(k);
    at_ = n % 2 == 0 ? in_.base : copy_in(lane_.work[0].get());
    progress();
  }

  // Decides where the stages live and copies the input in when a step must run in place on it.
  void begin() {
    started_ = true;
    if (m_.lean) return begin_lean();
    const std::size_t S = steps();
    // The step that writes the last stage; S: none (the input copy does). Nothing but FFTs
    // in place follows it, so the last stage has its size (the output's).
    std::size_t last = S, first_write = S;
    for (std::size_t i = 0; i < S; ++i) {
      const std::size_t k = fwd_ ? i : S - 1 - i;
      if (!writes(k)) continue;
      last = k;
      if (first_write == S) first_write = k;
    }
    // An in-place call (one array in and out) has read its input once a step has written the
    // stage elsewhere: a later step may write the caller's array, and the FFTs before that
    // first write may run in it (as FFTW-MPI's in-place transforms do, with no copy in or out).
    const bool same = in_.contiguous() && out_.contiguous() && in_.base == out_.base;
    const bool writable = !overlap(in_, out_) || (same && (last != first_write || last == S));
    const Byte* ref = !fwd_ && m_.halving() ? lane_.real.get() : lane_.work[0].get();
    if (out_.contiguous() && writable && align(out_.base) == align(ref) && rows_only_after(last))
      out_step_ = last;
    const std::size_t first = fwd_ ? 0 : S - 1;
    if (fwd_ && m_.halving()) {
      // The r2c reads the caller's array itself when nothing runs in place before it (FFTW's
      // out-of-place r2c preserves its input), the alignment allows, and its first pass (the
      // halved axis) reads rows.
      const bool direct = in_.contiguous() && !m_.ffts<T>()[0].real_r2r_fwd &&
                          align(in_.base) == align(lane_.real.get()) &&
                          m_.half_axis == static_cast<int>(m_.shape.size()) - 1;
      at_ = direct ? in_.base : copy_in(lane_.real.get());
    } else if (S > 0 && !m_.sch.step[first].ffts() && in_.contiguous()) {
      at_ = in_.base;  // the exchange, the swap or a backward resize (out of place) only reads it
    } else if (same && first_write < S && align(in_.base) == align(lane_.work[0].get()) && rows_only_before(first_write)) {
      at_ = in_.base;  // in place: the FFTs before the first write run on the caller's rows
    } else {
      at_ = copy_in(out_step_ == S ? out_.base : lane_.work[0].get());  // nothing else writes: the input copy does
    }
    progress();
  }

  // Whether every FFT that runs on the last stage's array once step `last` has written it
  // (S: the input copy) runs along the axis fastest in that stage's memory only: rows, cheap
  // on the caller's array. An FFT along a strided axis stays on the lane's arrays (huge
  // pages) and the last stage is copied out: on 4 KiB pages FFTW's column passes cost far
  // more than the copy.
  bool rows_only_after(std::size_t last) const {
    const std::size_t S = steps();
    const int row = (fwd_ ? m_.box.back() : m_.box.front()).order.back();
    const auto rows = [&](std::size_t k, bool periodic, bool r2r) {
      for (int a : m_.sch.step[k].axes)
        if (a != row && (fft::is_r2r(m_.axis_kind[a]) ? r2r : periodic)) return false;
      return true;
    };
    for (std::size_t k = 0; k < S; ++k) {
      if (!m_.sch.step[k].fft || (last < S && (fwd_ ? k < last : k > last))) continue;
      if (k != last) {
        if (!rows(k, true, true)) return false;
      } else if (!m_.sch.step[k].r2c) {
        continue;  // the swap step: no FFT
      } else if (fwd_) {
        if (!rows(k, true, false)) return false;  // the r2c's passes; its r2r axes ran on the input
      } else if (m_.half_axis != row || !rows(k, false, true)) {
        return false;  // the c2r writes its last (halved) axis; its r2r axes run after it
      }
    }
    return true;
  }

  // Whether the FFTs before step w (in run order) run along the input's rows only: cheap in
  // the caller's array (see rows_only_after).
  bool rows_only_before(std::size_t w) const {
    const int row = (fwd_ ? m_.box.front() : m_.box.back()).order.back();
    for (std::size_t i = 0; i < steps(); ++i) {
      const std::size_t k = fwd_ ? i : steps() - 1 - i;
      if (k == w) break;
      for (int a : m_.sch.step[k].axes)
        if (a != row) return false;
    }
    return true;
  }

  Byte* copy_in(Byte* dst) const {
    if (dst == in_.base && in_.contiguous()) return dst;  // in place: already there
    for (std::int64_t c = 0; c < in_.chunks; ++c)
      copy_shared(m_, dst + static_cast<std::size_t>(c) * in_.chunk, in_.base + static_cast<std::size_t>(c) * in_.stride,
                  in_.chunk);
    return dst;
  }

  void finish() {
    const double s = fwd_ ? m_.scale_fwd : m_.scale_bwd;
    const std::size_t n = out_.chunk / sizeof(T);
    for (std::int64_t c = 0; c < out_.chunks; ++c)
      scale_copy(m_, reinterpret_cast<T*>(out_.base + static_cast<std::size_t>(c) * out_.stride),
                 reinterpret_cast<const T*>(at_ + static_cast<std::size_t>(c) * out_.chunk), n, s);
  }

  // The swap step: stage k [A][P][B][Q][C] (natural) <-> stage k + 1 [A][Q][B][P][C].
  void swap(std::size_t k) {
    const Box& b = m_.box[k];
    const auto p = static_cast<std::size_t>(m_.swapped[0]), q = static_cast<std::size_t>(m_.swapped[1]);
    std::int64_t A = 1, B = 1, C = 1;
    for (std::size_t a = 0; a < b.n.size(); ++a)
      if (a != p && a != q) (a < p ? A : a > q ? C : B) *= b.n[a];
    const std::size_t e = static_cast<std::size_t>(C) * m_.esize(k);
    Byte* dst = k == out_step_ ? out_.base : lane_array(at_) ? other(at_) : lane_.work[0].get();
    // The source is [A][rows][B][cols]: [A][P][B][Q] forward, [A][Q][B][P] backward.
    const std::int64_t rows = fwd_ ? b.n[p] : b.n[q], cols = fwd_ ? b.n[q] : b.n[p];
    const bool stream = stream_writes(static_cast<std::size_t>(A * B * rows * cols) * e);
    // Transpose u = a * B + j: block (a, j) of the source to its place in the destination.
    const auto soff = [&](std::int64_t u) { return static_cast<std::size_t>(((u / B) * rows * B + u % B) * cols) * e; };
    const auto doff = [&](std::int64_t u) { return static_cast<std::size_t>(((u / B) * cols * B + u % B) * rows) * e; };
    transposes(m_, A * B, doff, soff, dst, B * rows, at_, B * cols, rows, cols, e, stream);
    at_ = dst;
  }

  // A padded plan's resize step k: forward truncates the spectrum along each axis listed, in
  // place on stage k's block, and compacts it into stage k + 1's; backward spreads stage k + 1's
  // block out into stage k's and zero-pads it along each axis there (fft/padding.hpp).
  void resize(std::size_t k) {
    using C = std::complex<T>;
    const Box& big = m_.box[k];
    const Box& small = m_.box[k + 1];
    const std::vector<std::int64_t> eb = memory_extents(big), es = memory_extents(small);
    Byte* dst = k == out_step_ ? out_.base : lane_array(at_) ? other(at_) : lane_.work[0].get();
    const auto pad_of = [&](int a) {
      const auto i = static_cast<std::size_t>(a);
      return fft::AxisPad{m_.spectrum[i], m_.shape[i], a == m_.half_axis};
    };
    const auto position = [&](int a) {
      return static_cast<std::size_t>(std::find(big.order.begin(), big.order.end(), a) - big.order.begin());
    };
    if (fwd_) {
      for (int a : m_.sch.step[k].resize) {
        const fft::AxisPad pad = pad_of(a);
        along(m_, reinterpret_cast<C*>(at_), eb, position(a),
              [&](C* p, std::int64_t step, std::int64_t len) { fft::truncate_slots(p, step, len, pad); });
      }
      copy_block(m_, dst, es, at_, eb, sizeof(C), false);
    } else {
      copy_block(m_, dst, eb, at_, es, sizeof(C), true);
      for (int a : m_.sch.step[k].resize) {
        const fft::AxisPad pad = pad_of(a);
        along(m_, reinterpret_cast<C*>(dst), eb, position(a),
              [&](C* p, std::int64_t step, std::int64_t len) { fft::pad_slots(p, step, len, pad); });
      }
    }
    at_ = dst;
  }

  void fft_forward(std::size_t k) {
    if (!m_.sch.step[k].resize.empty()) return resize(k);
    if (m_.sch.step[k].swap) return swap(k);
    const Fft<T>& f = m_.ffts<T>()[k];
    Byte* dst = !f.r2c ? at_ : k == out_step_ ? out_.base : m_.lean ? other(at_) : lane_.work[0].get();
    in_chunks(f, at_, dst, true);
    at_ = dst;
  }

  void fft_backward(std::size_t k) {
    if (!m_.sch.step[k].resize.empty()) return resize(k);
    if (m_.sch.step[k].swap) return swap(k);
    const Fft<T>& f = m_.ffts<T>()[k];
    Byte* dst = !f.c2r ? at_ : k == out_step_ ? out_.base : m_.lean ? other(at_) : lane_.real.get();
    in_chunks(f, dst, at_, false);  // backward reads the step's output side and writes its input side
    at_ = dst;
  }

  // A step's transforms, whole or chunk by chunk (Fft::piece) with a progress pass between
  // chunks. in: the step's input side (forward: real input of an r2c), out: its output side.
  // With threads the chunks are shared among them: all at once, or with progress passes
  // (the caller's engine) a thread's worth at a time, a pass after each.
  void in_chunks(const Fft<T>& f, Byte* in, Byte* out, bool forward) {
    if (!f.piece) return forward ? run_forward(f, in, out) : run_backward(f, in, out);
    const std::int64_t n = f.count + (f.tail ? 1 : 0);
    const auto chunk = [&](std::int64_t j) {
      const Fft<T>& p = j < f.count ? *f.piece : *f.tail;
      Byte* i = in + static_cast<std::size_t>(j) * f.in_step;
      Byte* o = out + static_cast<std::size_t>(j) * f.out_step;
      forward ? run_forward(p, i, o) : run_backward(p, i, o);
    };
    const std::int64_t group = !m_.pool ? 1 : m_.chunks > 1 ? m_.threads : n;
    for (std::int64_t g = 0; g < n; g += group) {
      share(m_, std::min(group, n - g), 1, [&](std::int64_t a, std::int64_t b) {
        for (std::int64_t j = a; j < b; ++j) chunk(g + j);
      });
      if (m_.chunks > 1) progress();
    }
  }

  // in: the step's input side, out: its output side (the same array unless an r2c / c2r).
  // A plan the step does not have is empty and does nothing.
  static void run_forward(const Fft<T>& f, Byte* in, Byte* out) {
    f.real_r2r_fwd.execute(in, in);
    f.r2c.execute(in, out);
    f.fwd.execute(out, out);
    f.r2r_fwd.execute(out, out);
  }
  static void run_backward(const Fft<T>& f, Byte* in, Byte* out) {
    f.r2r_bwd.execute(out, out);
    f.bwd.execute(out, out);
    f.c2r.execute(out, in);  // destroys its input
    f.real_r2r_bwd.execute(in, in);
  }

  // Packs the stage and starts the exchange. [A][S][B][F][C] goes through the pencil
  // transpose as [A][B][S][F][C]: the axes between moved aside before and back after when
  // B > 1; a swapping exchange writes the stage after it as [A][F][B][S][C] instead
  // (transposing what arrives forward, and what leaves backward).
  // Where exchange k's stage goes: src_ (what it sends: the stage itself, or the copy before
  // it), recv_ (what it receives) and post_ (the copy after it; nullptr: none).
  void exchange_arrays(std::size_t k) {
    const Xchg& x = m_.xs[k];
    Byte* final_dst = k == out_step_ ? out_.base : nullptr;
    src_ = at_;
    if ((x.swap && !fwd_) || x.B > 1) src_ = lane_array(at_) ? other(at_) : lane_.work[0].get();
    // The exchange packs `src_` as it starts: a lane array it was in is free again.
    Byte* spare = lane_array(src_) ? other(src_) : lane_.work[0].get();
    if ((x.swap && fwd_) || x.B > 1) {
      recv_ = spare;
      post_ = final_dst ? final_dst : other(spare);
    } else {
      recv_ = final_dst ? final_dst : spare;
      post_ = nullptr;
    }
    xk_ = k;
  }

  void start_exchange(std::size_t k) {
    const Xchg& x = m_.xs[k];
    const int from = fwd_ ? 0 : 1;
    const fft::Pencil p_from = fwd_ ? x.side_before : x.side_after;
    const fft::Pencil p_to = fwd_ ? x.side_after : x.side_before;
    exchange_arrays(k);  // a pipelined exchange starts in feed(): its FFT step always runs before it
    if (x.swap && !fwd_)  // [A][F][B][S] -> [A][B][S][F] as the exchange sends it
      transpose_each(m_, src_, at_, x.A, x.F[1], x.B * x.S[1], x.elem);
    else if (x.B > 1)
      swap_blocks(m_, src_, at_, x.A, x.S[from], x.B, x.R[from]);
    pend_ = x.pen->start_bytes(p_from, p_to, src_, bytes_of(src_), recv_, bytes_of(recv_), x.elem);
  }

  // The plane pipeline (Xchg::chunks): FFT step k runs chunk by chunk of planes of axis 0, in
  // place, and each chunk's exchange (step x) starts as soon as its planes are done, at most
  // Xchg::depth in flight; the exchange completes when the field next runs.
  void feed(std::size_t k, std::size_t x) {
    const Fft<T>& f = m_.ffts<T>()[k];
    exchange_arrays(x);
    const std::int64_t n = f.count + (f.tail ? 1 : 0);
    for (std::int64_t j = 0; j < n; ++j) {
      Byte* p = at_ + static_cast<std::size_t>(j) * f.in_step;
      const Fft<T>& piece = j < f.count ? *f.piece : *f.tail;
      fwd_ ? run_forward(piece, p, p) : run_backward(piece, p, p);
      start_chunk(j);
      coll::progress_all();  // the chunks in flight move on a caller engine too
    }
  }

  // Chunk j of the pipelined exchange xk_: the copy before it on its planes, then its pencils.
  void start_chunk(std::int64_t j) {
    const Xchg& x = m_.xs[xk_];
    const int from = fwd_ ? 0 : 1;
    const std::int64_t planes = x.chunk_planes(j);
    const std::size_t first = static_cast<std::size_t>(j * x.planes);
    const std::size_t sent = first * x.plane_bytes[from], got = first * x.plane_bytes[1 - from];
    const std::size_t send_bytes = static_cast<std::size_t>(planes) * x.plane_bytes[from];
    const std::size_t recv_bytes = static_cast<std::size_t>(planes) * x.plane_bytes[1 - from];
    if (x.B > 1) swap_blocks(m_, src_ + sent, at_ + sent, x.plane_a * planes, x.S[from], x.B, x.R[from]);
    const fft::Pencils& pen = planes == x.planes ? *x.piece_pen : *x.tail_pen;
    chunk_pend_.push_back(pen.start_bytes(fwd_ ? x.side_before : x.side_after, fwd_ ? x.side_after : x.side_before,
                                          src_ + sent, send_bytes, recv_ + got, recv_bytes, x.elem));
    while (x.depth > 0 && chunk_pend_.size() - chunks_done_ > static_cast<std::size_t>(x.depth)) finish_chunk();
  }

  // Completes the oldest chunk in flight of exchange xk_ and its copy after it.
  void finish_chunk() {
    const Xchg& x = m_.xs[xk_];
    const std::size_t j = chunks_done_++;
    chunk_pend_[j].wait();
    if (!post_) return;
    const int to = fwd_ ? 1 : 0;
    const std::int64_t planes = x.chunk_planes(static_cast<std::int64_t>(j));
    const std::size_t got = j * static_cast<std::size_t>(x.planes) * x.plane_bytes[to];
    swap_blocks(m_, post_ + got, recv_ + got, x.plane_a * planes, x.B, x.S[to], x.R[to]);
  }

  void finish_exchange() {
    const Xchg& x = m_.xs[xk_];
    if (!chunk_pend_.empty()) {
      while (chunks_done_ < chunk_pend_.size()) finish_chunk();
      chunk_pend_.clear();
      chunks_done_ = 0;
      at_ = post_ ? post_ : recv_;
      progress();
      return;
    }
    pend_.wait();
    if (post_) {
      if (x.swap && fwd_)  // [A][B][S][F] as received -> [A][F][B][S]
        transpose_each(m_, post_, recv_, x.A, x.B * x.S[1], x.F[1], x.elem);
      else
        swap_blocks(m_, post_, recv_, x.A, x.B, x.S[fwd_ ? 1 : 0], x.R[fwd_ ? 1 : 0]);
      at_ = post_;
    } else {
      at_ = recv_;
    }
    progress();
  }


  const Plan::Impl& m_;
  bool fwd_;
  View in_, out_;
  const Lane& lane_;
  std::size_t left_;                     // steps still to run
  std::size_t out_step_ = ~std::size_t{0};  // the step that writes the caller's output (none: never)
  bool started_ = false, others_ = false;
  Byte* at_ = nullptr;  // where the current stage lives
  fft::Pencils::Pending pend_;
  std::vector<fft::Pencils::Pending> chunk_pend_;  // a pipelined exchange's chunks, in order
  std::size_t chunks_done_ = 0;                    // of them completed (and copied back)
  std::size_t xk_ = 0;
  Byte *src_ = nullptr, *recv_ = nullptr, *post_ = nullptr;  // the exchange's source, destination, copy back
};

template <typename T>
class Pipeline final : public Run {
 public:
  Pipeline(const Plan::Impl& m, bool fwd, std::vector<View> in, std::vector<View> out)
      : m_(m), fwd_(fwd), in_(std::move(in)), out_(std::move(out)) {}

  void pump(bool to_end) override {
    const auto depth = static_cast<std::size_t>(m_.depth);
    while (true) {
      while (flight_.size() < depth && next_ < in_.size()) {
        auto f = std::make_unique<Flight<T>>(m_, fwd_, in_[next_], out_[next_]);
        ++next_;
        if (!f->run(!flight_.empty())) flight_.push_back(std::move(f));  // else done without an exchange
      }
      if (!to_end || flight_.empty()) return;
      auto f = std::move(flight_.front());  // the oldest goes on
      flight_.pop_front();
      if (!f->run(!flight_.empty())) flight_.push_back(std::move(f));
    }
  }

  bool test() override { return flight_.empty() || flight_.front()->test(); }

 private:
  const Plan::Impl& m_;
  bool fwd_;
  std::vector<View> in_, out_;
  std::deque<std::unique_ptr<Flight<T>>> flight_;  // fields whose exchange is in flight, oldest first
  std::size_t next_ = 0;                           // the next field to start
};

}  // namespace

std::unique_ptr<Run> make_run(const Plan::Impl& m, bool forward, std::vector<View> in, std::vector<View> out) {
  if (m.single()) return std::make_unique<Pipeline<float>>(m, forward, std::move(in), std::move(out));
  return std::make_unique<Pipeline<double>>(m, forward, std::move(in), std::move(out));
}

}  // namespace nbfft::nd::detail
