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

#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"

#include <cstring>
#include <deque>

namespace nbfft::nd::detail {

namespace {

using Byte = unsigned char;

// [A][S][B][R] -> [A][B][S][R] (R contiguous bytes): moves the axes between the two of an
// exchange out of the way of the pencil transpose.
void swap_blocks(Byte* dst, const Byte* src, std::int64_t A, std::int64_t S, std::int64_t B, std::int64_t R) {
  const auto bytes = static_cast<std::size_t>(R);
  for (std::int64_t a = 0; a < A; ++a)
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t b = 0; b < B; ++b) std::memcpy(dst + ((a * B + b) * S + s) * R, src + ((a * S + s) * B + b) * R, bytes);
}

// o = src * scale (a plain copy when the scale is 1; in place when o == src).
template <typename T>
void scale_copy(T* o, const T* src, std::size_t n, double scale) {
  if (scale == 1) {
    if (o != src) std::memcpy(o, src, n * sizeof(T));
    return;
  }
  const auto s = static_cast<T>(scale);
  for (std::size_t i = 0; i < n; ++i) o[i] = src[i] * s;
}

bool overlap(const View& a, const View& b) { return a.base < b.end() && b.base < a.end(); }

// One field of a call on one lane, forward or backward.
template <typename T>
class Flight {
 public:
  using Api = fft::FftwApi<T>;
  using cplx = typename Api::cplx;

  Flight(const Plan::Impl& m, bool fwd, const View& in, const View& out)
      : m_(m), fwd_(fwd), in_(in), out_(out), lane_(m.lane), left_(m.sch.step.size()) {}

  // Runs until an exchange is in flight (false) or the field is done (true). others: fields
  // of this call with exchanges in flight, given a progress pass between the steps here.
  bool run(bool others) {
    others_ = others;
    if (!started_) begin();
    if (pend_.active()) {
      finish_exchange();
      --left_;
    }
    while (left_ > 0) {
      const std::size_t k = next();
      if (!m_.sch.step[k].fft) {
        start_exchange(k);
        return false;
      }
      fwd_ ? fft_forward(k) : fft_backward(k);
      --left_;
      progress();
    }
    finish();
    return true;
  }
  bool test() { return !pend_.active() || pend_.test(); }

 private:
  std::size_t steps() const { return m_.sch.step.size(); }
  std::size_t next() const { return fwd_ ? steps() - left_ : left_ - 1; }
  bool writes(std::size_t k) const { return !m_.sch.step[k].fft || m_.sch.step[k].r2c; }
  bool lane_array(const Byte* p) const { return p == lane_.work[0].get() || p == lane_.work[1].get(); }
  Byte* other(const Byte* p) const { return p == lane_.work[0].get() ? lane_.work[1].get() : lane_.work[0].get(); }
  std::size_t bytes_of(const Byte* p) const {
    if (p == out_.base) return out_.chunk;
    if (p == in_.base) return in_.chunk;
    return m_.work_bytes;
  }
  void progress() const {
    if (others_) coll::progress_all();
  }
  static int align(const void* p) { return Api::alignment_of(static_cast<T*>(const_cast<void*>(p))); }

  // Decides where the stages live and copies the input in when a step must run in place on it.
  void begin() {
    started_ = true;
    const std::size_t S = steps();
    // The step that writes the last stage; S: none (the input copy does). Nothing but FFTs
    // in place follows it, so the last stage has its size (the output's).
    std::size_t last = S;
    for (std::size_t i = 0; i < S; ++i) {
      const std::size_t k = fwd_ ? i : S - 1 - i;
      if (writes(k)) last = k;
    }
    const Byte* ref = !fwd_ && m_.halving() ? lane_.real.get() : lane_.work[0].get();
    if (out_.contiguous() && !overlap(in_, out_) && align(out_.base) == align(ref) && rows_only_after(last))
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
    } else if (S > 0 && !m_.sch.step[first].fft && in_.contiguous()) {
      at_ = in_.base;  // the exchange only reads it
    } else {
      at_ = copy_in(out_step_ == S ? out_.base : lane_.work[0].get());  // nothing else writes: the input copy does
    }
    progress();
  }

  // Whether every FFT that runs on the last stage's array once step `last` has written it
  // (S: the input copy) runs along the field's last axis only: rows, cheap on the caller's
  // array. An FFT along a strided axis stays on the lane's arrays (huge pages) and the last
  // stage is copied out: on 4 KiB pages FFTW's column passes cost far more than the copy.
  bool rows_only_after(std::size_t last) const {
    const std::size_t S = steps();
    const int row = static_cast<int>(m_.shape.size()) - 1;
    const auto rows = [&](std::size_t k, bool periodic, bool r2r) {
      for (int a : m_.sch.step[k].axes)
        if (a != row && (fft::is_r2r(m_.axis_kind[a]) ? r2r : periodic)) return false;
      return true;
    };
    for (std::size_t k = 0; k < S; ++k) {
      if (!m_.sch.step[k].fft || (last < S && (fwd_ ? k < last : k > last))) continue;
      if (k != last) {
        if (!rows(k, true, true)) return false;
      } else if (fwd_) {
        if (!rows(k, true, false)) return false;  // the r2c's passes; its r2r axes ran on the input
      } else if (m_.half_axis != row || !rows(k, false, true)) {
        return false;  // the c2r writes its last (halved) axis; its r2r axes run after it
      }
    }
    return true;
  }

  Byte* copy_in(Byte* dst) const {
    for (std::int64_t c = 0; c < in_.chunks; ++c)
      std::memcpy(dst + static_cast<std::size_t>(c) * in_.chunk, in_.base + static_cast<std::size_t>(c) * in_.stride,
                  in_.chunk);
    return dst;
  }

  void finish() {
    const double s = fwd_ ? m_.scale_fwd : m_.scale_bwd;
    const std::size_t n = out_.chunk / sizeof(T);
    for (std::int64_t c = 0; c < out_.chunks; ++c)
      scale_copy(reinterpret_cast<T*>(out_.base + static_cast<std::size_t>(c) * out_.stride),
                 reinterpret_cast<const T*>(at_ + static_cast<std::size_t>(c) * out_.chunk), n, s);
  }

  void fft_forward(std::size_t k) {
    const Fft<T>& f = m_.ffts<T>()[k];
    if (f.real_r2r_fwd) Api::exec_r2r(f.real_r2r_fwd.get(), t(at_), t(at_));
    if (f.r2c) {
      Byte* dst = k == out_step_ ? out_.base : lane_.work[0].get();
      Api::exec_r2c(f.r2c.get(), t(at_), c(dst));
      at_ = dst;
    }
    if (f.fwd) Api::exec_dft(f.fwd.get(), c(at_), c(at_));
    if (f.r2r_fwd) Api::exec_r2r(f.r2r_fwd.get(), t(at_), t(at_));
  }

  void fft_backward(std::size_t k) {
    const Fft<T>& f = m_.ffts<T>()[k];
    if (f.r2r_bwd) Api::exec_r2r(f.r2r_bwd.get(), t(at_), t(at_));
    if (f.bwd) Api::exec_dft(f.bwd.get(), c(at_), c(at_));
    if (f.c2r) {  // destroys its input, the lane's
      Byte* dst = k == out_step_ ? out_.base : lane_.real.get();
      Api::exec_c2r(f.c2r.get(), c(at_), t(dst));
      at_ = dst;
    }
    if (f.real_r2r_bwd) Api::exec_r2r(f.real_r2r_bwd.get(), t(at_), t(at_));
  }

  // Packs the stage and starts the exchange (the axes between the two moved aside first).
  void start_exchange(std::size_t k) {
    const Xchg& x = m_.xs[k];
    const int from = fwd_ ? 0 : 1;
    const fft::Pencil p_from = fwd_ ? x.side_before : x.side_after;
    const fft::Pencil p_to = fwd_ ? x.side_after : x.side_before;
    Byte* final_dst = k == out_step_ ? out_.base : nullptr;
    if (x.B > 1) {
      Byte* moved = lane_array(at_) ? other(at_) : lane_.work[0].get();
      swap_blocks(moved, at_, x.A, x.S[from], x.B, x.R[from]);
      recv_ = lane_array(at_) ? at_ : lane_.work[1].get();
      post_ = final_dst ? final_dst : moved;
      pend_ = x.pen->start_bytes(p_from, p_to, moved, m_.work_bytes, recv_, m_.work_bytes, x.elem);
    } else {
      recv_ = final_dst ? final_dst : lane_array(at_) ? other(at_) : lane_.work[0].get();
      post_ = nullptr;
      pend_ = x.pen->start_bytes(p_from, p_to, at_, bytes_of(at_), recv_, bytes_of(recv_), x.elem);
    }
    xk_ = k;
  }

  void finish_exchange() {
    pend_.wait();
    const Xchg& x = m_.xs[xk_];
    if (post_) {
      const int to = fwd_ ? 1 : 0;
      swap_blocks(post_, recv_, x.A, x.B, x.S[to], x.R[to]);
      at_ = post_;
    } else {
      at_ = recv_;
    }
    progress();
  }

  static T* t(Byte* p) { return reinterpret_cast<T*>(p); }
  static cplx* c(Byte* p) { return reinterpret_cast<cplx*>(p); }

  const Plan::Impl& m_;
  bool fwd_;
  View in_, out_;
  const Lane& lane_;
  std::size_t left_;                     // steps still to run
  std::size_t out_step_ = ~std::size_t{0};  // the step that writes the caller's output (none: never)
  bool started_ = false, others_ = false;
  Byte* at_ = nullptr;  // where the current stage lives
  fft::Pencils::Pending pend_;
  std::size_t xk_ = 0;
  Byte *recv_ = nullptr, *post_ = nullptr;  // the exchange's destination; the copy back after it
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
