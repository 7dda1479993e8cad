// nd::Plan's transform calls: one field, several, split phase. Each checks its arrays on
// every rank, agrees on the call (ranks in different calls fail together), makes one view
// per field (a batch plan: one per slice of each array) and hands them to nd/run.cpp.
#include "nbfft/agree.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"
#include "nd/run.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace nbfft::nd {

namespace {

std::size_t bytes_of(fft::Element e) { return (e.real ? 1 : 2) * (e.precision == fft::Precision::Single ? 4 : 8); }

bool overlap(const void* a, std::size_t an, const void* b, std::size_t bn) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  return an > 0 && bn > 0 && x < y + bn && y < x + an;
}

// A call on a plan that runs on the 3-D plan (Plan::Impl::p3): its one-field, many-field
// and split-phase calls, out of place. The nd calls allow what the 3-D plan refuses (an
// output overlapping an input, fields sharing an input): such an input is copied first,
// on this rank only (the copies are local; the calls stay collective alike on every rank).
class Run3d final : public detail::Run {
 public:
  Run3d(const fft::Plan& p, bool fwd, bool split, std::vector<const void*> in, std::size_t in_b,
        std::vector<void*> out, std::size_t out_b)
      : p_(p), dir_(fwd ? fft::Direction::Forward : fft::Direction::Backward), split_(split), in_(std::move(in)),
        out_(std::move(out)), in_b_(in_b), out_b_(out_b) {
    const std::size_t need_in = fwd ? p.in_bytes() : p.out_bytes(), need_out = fwd ? p.out_bytes() : p.in_bytes();
    for (std::size_t k = 0; k < in_.size(); ++k) {
      if (p.lean_workspace() && in_[k] == out_[k]) continue;  // in place, as the lean 3-D plan needs
      bool shared = false;
      for (std::size_t l = 0; l < out_.size() && !shared; ++l) shared = overlap(in_[k], need_in, out_[l], need_out);
      for (std::size_t l = 0; l < in_.size() && !shared; ++l) shared = l != k && overlap(in_[k], need_in, in_[l], need_in);
      if (!shared) continue;
      copies_.emplace_back(need_in);
      if (need_in > 0) std::memcpy(copies_.back().data(), in_[k], need_in);
      in_[k] = copies_.back().data();
    }
    if (!copies_.empty()) in_b_ = std::min(in_b_, need_in);
  }

  void pump(bool to_end) override {
    if (!split_) {
      if (in_.size() == 1)
        p_.transform_bytes(dir_, in_[0], in_b_, out_[0], out_b_);
      else
        p_.transform_many_bytes(dir_, in_.size(), in_.data(), in_b_, out_.data(), out_b_);
      return;
    }
    if (!started_) {
      started_ = true;
      ws_ = p_.make_workspace();
      pending_ = p_.start_bytes(dir_, in_[0], in_b_, out_[0], out_b_, ws_);
    }
    if (to_end && pending_.active()) pending_.wait();
  }

  bool test() override { return !pending_.active() || pending_.test(); }

 private:
  const fft::Plan& p_;
  fft::Direction dir_;
  bool split_, started_ = false;
  std::vector<const void*> in_;
  std::vector<void*> out_;
  std::size_t in_b_, out_b_;
  std::vector<std::vector<unsigned char>> copies_;
  fft::Plan::Workspace ws_;        // a split-phase call's own (declared before pending_: it outlives it)
  fft::Plan::Pending pending_;
};

// A run with copies of inputs that another field's output overlaps (they must outlive it).
class WithCopies final : public detail::Run {
 public:
  WithCopies(std::vector<detail::Bytes> copies, std::unique_ptr<detail::Run> inner)
      : copies_(std::move(copies)), inner_(std::move(inner)) {}
  void pump(bool to_end) override { inner_->pump(to_end); }
  bool test() override { return inner_->test(); }

 private:
  std::vector<detail::Bytes> copies_;
  std::unique_ptr<detail::Run> inner_;
};

// The run of a checked call on arrays in the plan's own boxes (in_b, out_b: bytes each).
// An input that an output overlaps other than as its own field in place (one array, one
// field: the steps read it before writing) is copied first: a field would otherwise write
// over another's input before it is read (a batch in place: each field's spectrum lies at
// another offset than its input).
std::unique_ptr<detail::Run> run_on(const Plan::Impl& m, bool fwd, bool split, std::vector<const void*> in,
                                    std::size_t in_b, std::vector<void*> out, std::size_t out_b) {
  if (m.p3) return std::make_unique<Run3d>(*m.p3, fwd, split, std::move(in), in_b, std::move(out), out_b);
  const std::size_t S = m.box.size() - 1;
  const std::size_t need_in = m.stage_bytes(fwd ? 0 : S) * static_cast<std::size_t>(m.nbatch);
  const std::size_t need_out = m.stage_bytes(fwd ? S : 0) * static_cast<std::size_t>(m.nbatch);
  std::vector<detail::Bytes> copies;
  for (std::size_t k = 0; k < in.size(); ++k) {
    bool shared = false;
    for (std::size_t l = 0; l < out.size() && !shared; ++l)
      shared = overlap(in[k], need_in, out[l], need_out) && !(l == k && in[k] == out[k] && m.nbatch == 1);
    if (!shared) continue;
    copies.push_back(detail::allocate_or_throw(need_in));
    std::memcpy(copies.back().get(), in[k], need_in);
    in[k] = copies.back().get();
  }
  if (!copies.empty()) {
    auto inner = run_on(m, fwd, split, std::move(in), need_in, std::move(out), out_b);
    return std::make_unique<WithCopies>(std::move(copies), std::move(inner));
  }
  std::vector<detail::View> vi, vo;
  for (std::size_t k = 0; k < in.size(); ++k)
    for (std::int64_t j = 0; j < m.nbatch; ++j) {
      vi.push_back(m.view(in[k], fwd ? 0 : S, j));
      vo.push_back(m.view(out[k], fwd ? S : 0, j));
    }
  return detail::make_run(m, fwd, std::move(vi), std::move(vo));
}

// A call on a plan with user boxes (Plan::Impl::boxes): each field's input goes from the
// caller's box to the plan's by one all-to-all, the transform runs there, and its result goes
// to the caller's box by another (in wait() for a split-phase call). A side whose box the
// caller did not set is the plan's own and is used in place. A lean plan (Plan::Impl::
// lean_plan) runs in place in one array of the plan's in-place size per field, which the
// reshapes fill and empty (or plain copies, for a side in the plan's own box).
// Everything is allocated here, before the call agrees; the first pump moves the inputs.
class RunOnUserBoxes final : public detail::Run {
 public:
  RunOnUserBoxes(const Plan::Impl& m, bool fwd, bool split, std::vector<const void*> in, std::vector<void*> out)
      : in_(std::move(in)), out_(std::move(out)) {
    const detail::UserBoxes& b = m.boxes;
    // The forward's input is the array (in_box), its output the spectrum (out_box); backward
    // the other way round.
    to_plan_ = fwd ? b.in_to_plan.get() : b.out_to_plan.get();
    back_ = fwd ? b.plan_to_out.get() : b.plan_to_in.get();
    const std::size_t S = m.box.size() - 1, in_elem = m.esize(fwd ? 0 : S), out_elem = m.esize(fwd ? S : 0);
    const auto me = static_cast<std::size_t>(m.rank);
    in_b_ = static_cast<std::size_t>((fwd ? b.plan_in : b.plan_out)[me].count()) * in_elem;
    out_b_ = static_cast<std::size_t>((fwd ? b.plan_out : b.plan_in)[me].count()) * out_elem;
    // The reshapes' send and receive blocks now; their collectives are bound in the first
    // pump, after the ranks have agreed on the call.
    if (to_plan_) to_stage_ = to_plan_->buffers();
    if (back_) back_stage_ = back_->buffers();
    boxes_ = &b;
    const bool lean = m.lean_plan();
    std::vector<const void*> vi(in_.begin(), in_.end());
    std::vector<void*> vo = out_;
    for (std::size_t k = 0; k < in_.size(); ++k) {
      if (lean || to_plan_) {
        staged_.push_back(detail::allocate_or_throw(lean ? m.lean_array_bytes : in_b_));
        vi[k] = staged_.back().get();
      }
      if (lean) {
        vo[k] = staged_.back().get();
      } else if (back_) {
        results_.push_back(detail::allocate_or_throw(out_b_));
        vo[k] = results_.back().get();
      }
    }
    const std::size_t in_have = lean ? m.lean_array_bytes : in_b_, out_have = lean ? in_have : out_b_;
    plan_in_ = vi;
    plan_out_ = vo;
    inner_ = run_on(m, fwd, split, std::move(vi), in_have, std::move(vo), out_have);
  }

  void pump(bool to_end) override {
    if (!started_) {
      started_ = true;
      if (to_plan_) to_plan_->bind(*to_stage_, boxes_->comm, boxes_->transport);
      if (back_) back_->bind(*back_stage_, boxes_->comm, boxes_->transport);
      for (std::size_t k = 0; k < in_.size(); ++k) {
        if (to_plan_)
          to_plan_->run(in_[k], const_cast<void*>(plan_in_[k]), *to_stage_);
        else if (plan_in_[k] != in_[k] && in_b_ > 0)
          std::memcpy(const_cast<void*>(plan_in_[k]), in_[k], in_b_);
      }
    }
    inner_->pump(to_end);
    if (!to_end || done_) return;
    done_ = true;
    for (std::size_t k = 0; k < out_.size(); ++k) {
      if (back_)
        back_->run(plan_out_[k], out_[k], *back_stage_);
      else if (plan_out_[k] != out_[k] && out_b_ > 0)
        std::memcpy(out_[k], plan_out_[k], out_b_);
    }
  }
  bool test() override { return inner_->test(); }

 private:
  std::vector<const void*> in_, plan_in_;  // the caller's inputs; the transform's (the plan's boxes)
  std::vector<void*> out_, plan_out_;
  using Reshape = geometry::Reshape;
  const Reshape *to_plan_ = nullptr, *back_ = nullptr;  // null: that side in the plan's box
  std::unique_ptr<Reshape::Staging> to_stage_, back_stage_;  // their send and receive blocks
  const detail::UserBoxes* boxes_ = nullptr;                 // the reshapes' engine and transport
  std::size_t in_b_ = 0, out_b_ = 0;  // one field in the plan's boxes
  std::vector<detail::Bytes> staged_, results_;                  // the fields in the plan's boxes
  std::unique_ptr<detail::Run> inner_;
  bool started_ = false, done_ = false;
};

std::string short_array(const std::string& which, std::size_t have, std::size_t need) {
  if (have >= need) return "";
  return "nd plan: the " + which + " array has " + std::to_string(have) + " elements, this rank's box needs " +
         std::to_string(need);
}

// The call's element types against the plan's: kind (r2c/c2c), precision, and whether the
// spectrum is real. "" or what is wrong (the same on every rank: it depends only on the plan
// and the call).
std::string type_error(const Plan& p, bool fwd, fft::Element in, fft::Element out, const std::string& call) {
  const fft::Element data = fwd ? in : out, spectrum = fwd ? out : in;
  std::string what;
  if (!data.real && spectrum.real)
    what = std::string(fwd ? "complex input and a real spectrum" : "a real spectrum and complex output") +
           " (no plan takes that pair)";
  else if (data.precision != spectrum.precision)
    what = "arrays of two precisions";
  else if (p.kind() != (data.real ? Kind::R2C : Kind::C2C))
    what = std::string(name(data.real ? Kind::R2C : Kind::C2C)) + " arrays on a " + name(p.kind()) + " plan";
  else if (p.precision() != data.precision)
    what = std::string(fft::name(data.precision)) + " arrays on a " + fft::name(p.precision()) + " precision plan";
  else if (p.real_spectrum() != spectrum.real)
    what = p.real_spectrum() ? std::string("a complex spectrum on a plan whose spectrum is real (every axis r2r)")
                             : std::string("a real spectrum on a plan whose spectrum is complex");
  return what.empty() ? "" : "nd plan: " + call + " with " + what;
}

// A lean plan's call (Plan::Impl::lean_plan) runs in place: the same array in and out, of
// at least inplace_bytes(). Without user boxes nd's own steps run FFTW in that array, so each
// field's part must be aligned as the lane's work array (the 3-D plan checks its own); with
// user boxes the plan stages each field in an array of its own, aligned.
std::string lean_error(const Plan::Impl& m, const std::string& call, bool fwd, const void* in, const void* out,
                       std::size_t have) {
  if (in != out)
    return "nd plan: " + call + ": the plan has a lean workspace (Options::lean_workspace), which uses the caller's "
           "array as its second work array, so it transforms in place only: pass the same array as input and output";
  if (have < m.inplace_bytes)
    return "nd plan: " + call + ": the in-place array has " + std::to_string(have) + " bytes, the lean plan needs " +
           std::to_string(m.inplace_bytes) + " (Plan::inplace_bytes(): its stages live there in turn)";
  if (m.p3 || m.boxes.any()) return "";
  const std::size_t S = m.box.size() - 1;
  const std::vector<local::Backend> backends = m.backends_used();
  for (std::int64_t j = 0; j < m.nbatch; ++j)
    for (const detail::View& v : {m.view(in, fwd ? 0 : S, j), m.view(out, fwd ? S : 0, j)}) {
      int a = 0;  // off the alignment of any backend the plan's steps run on
      for (local::Backend b : backends)
        a = std::max(a, m.single() ? local::misalignment<float>(b, v.base) : local::misalignment<double>(b, v.base));
      if (a != 0)
        return "nd plan: " + call + ": the plan has a lean workspace, which runs the local FFTs in the caller's array" +
               (m.nbatch > 1 ? " (field " + std::to_string(j) + " of the batch)" : std::string()) + ", and it starts " +
               std::to_string(a) + " bytes off the SIMD alignment of the local FFT backend (allocate it 64-byte aligned, e.g. with aligned_alloc or nbfft.aligned_empty)";
    }
  return "";
}

// Checks a call of nv fields on every rank together and makes its run.
std::unique_ptr<detail::Run> make_call(const Plan& plan, const Plan::Impl& m, const std::string& call, bool fwd,
                                       fft::Element in_type, fft::Element out_type, std::size_t nv_in,
                                       const void* const* in, std::size_t in_n, std::size_t nv_out,
                                       void* const* out, std::size_t out_n) {
  const std::size_t need_in = fwd ? plan.in_count() : plan.out_count();
  const std::size_t need_out = fwd ? plan.out_count() : plan.in_count();
  const bool one = nv_in == 1 && call.find("many") == std::string::npos;
  std::string e = type_error(plan, fwd, in_type, out_type, call);
  if (e.empty() && nv_in != nv_out)
    e = "nd plan: " + call + " with " + std::to_string(nv_in) + " input fields but " + std::to_string(nv_out) +
        " output fields";
  if (e.empty() && nv_in > 0 && (!in || !out)) e = "nd plan: " + call + " with a null list of fields";
  for (std::size_t k = 0; e.empty() && k < nv_in; ++k) {
    const std::string which = one ? "" : " of field " + std::to_string(k);
    if ((!in[k] && need_in > 0) || (!out[k] && need_out > 0)) e = "nd plan: " + call + ": a null array" + which;
    if (e.empty()) e = short_array(std::string("input") + (one ? "" : " (field " + std::to_string(k) + ")"), in_n, need_in);
    if (e.empty()) e = short_array(std::string("output") + (one ? "" : " (field " + std::to_string(k) + ")"), out_n, need_out);
    for (std::size_t l = 0; e.empty() && l < k; ++l)
      if (out[l] == out[k] && need_out > 0)
        e = "nd plan: " + call + ": fields " + std::to_string(l) + " and " + std::to_string(k) + " write the same array";
  }
  for (std::size_t k = 0; e.empty() && m.lean_plan() && k < nv_in; ++k)
    e = lean_error(m, call, fwd, in[k], out[k], std::min(in_n * bytes_of(in_type), out_n * bytes_of(out_type)));
  // The run and everything it allocates (copies, staged fields, the exchanges' buffers) are
  // made before the agreement, so that a failed allocation fails every rank.
  ErrorCode code = ErrorCode::InvalidArgument;
  std::unique_ptr<detail::Run> run;
  try_local(e, code, "nd plan: " + call, [&] {
    const bool split = call.find("start") != std::string::npos;
    if (m.boxes.any())
      run = std::make_unique<RunOnUserBoxes>(m, fwd, split, std::vector<const void*>(in, in + nv_in),
                                             std::vector<void*>(out, out + nv_in));
    else
      run = run_on(m, fwd, split, std::vector<const void*>(in, in + nv_in), in_n * bytes_of(in_type),
                   std::vector<void*>(out, out + nv_in), out_n * bytes_of(out_type));
  });
  // The exchanges' buffers for the fields in flight at once: where some rank has too few, every
  // rank makes them after the agreement, exchange by exchange in the same order, agreed over
  // the plan's ranks (an exchange runs over one grid dimension's ranks only: a buffer that
  // failed there alone would leave the others waiting in the next exchange).
  const std::size_t in_flight = std::min(static_cast<std::size_t>(m.depth), nv_in * static_cast<std::size_t>(m.nbatch));
  bool lacking = false;
  try_local(e, code, "nd plan: " + call, [&] {
    for (const detail::Xchg& x : m.xs)
      lacking = lacking || (x.pen && x.pen->free_buffers(x.side_before, x.side_after, x.elem) < in_flight);
  });
  const bool grow = agree_call_any(
      m.comm, "nd plan", {{"the collective call", call}, {"the number of fields", std::to_string(nv_in)}}, e, lacking, code);
  if (grow)
    for (const detail::Xchg& x : m.xs)
      if (x.pen) x.pen->reserve_bytes(x.side_before, x.side_after, x.elem, in_flight, m.comm);
  return run;
}

}  // namespace

void Plan::call(bool fwd, fft::Element in_type, fft::Element out_type, const void* in, std::size_t in_n, void* out,
                std::size_t out_n) const {
  make_call(*this, impl(), fwd ? "forward" : "backward", fwd, in_type, out_type, 1, &in, in_n, 1, &out, out_n)
      ->pump(true);
}

void Plan::many(bool fwd, fft::Element in_type, fft::Element out_type, std::size_t nv_in, const void* const* in,
                std::size_t in_n, std::size_t nv_out, void* const* out, std::size_t out_n) const {
  make_call(*this, impl(), fwd ? "forward_many" : "backward_many", fwd, in_type, out_type, nv_in, in, in_n, nv_out,
            out, out_n)
      ->pump(true);
}

namespace {

void need_active(bool active, const char* what) {
  if (!active)
    throw Error(std::string("nd plan: Pending::") + what + " on a transform that is not active (never started, moved "
                "from, or already waited for)", ErrorCode::InvalidState);
}

// A split-phase transform in flight (Plan::Pending's operation). Dropping it while active
// completes its transform here, without the wait's agreement.
struct NdRequest final : Request::Impl {
  std::unique_ptr<detail::Run> run;
  // A wait that runs collectives (later exchanges, fields not yet started, the reshape to
  // the caller's boxes) agrees first on its call and on which transform it finishes (the
  // plan's starts are numbered alike on every rank): ranks that wait out of step fail
  // together instead of waiting in different collectives or exchanging the wrong fields.
  MPI_Comm comm = MPI_COMM_NULL;
  bool collective_wait = false;
  ConfigFields wait_call;

  bool active() const override { return static_cast<bool>(run); }
  void progress() override {
    need_active(active(), "progress");
    coll::progress_all();
  }
  bool test() override {
    need_active(active(), "test");
    return run->test();
  }
  void wait() override {
    need_active(active(), "wait");
    // Refused (ranks out of step): the transform stays active, to be waited for in step.
    if (collective_wait) agree_call(comm, "nd plan", wait_call, "");
    auto r = std::move(run);  // a failing wait leaves nothing for a drop to finish
    r->pump(true);
  }
  void drop() noexcept override {
    try {
      auto r = std::move(run);
      if (r) r->pump(true);
    } catch (...) {
      // A destructor must not throw; a failed exchange reports through the next collective.
    }
  }
};

}  // namespace

Plan::Pending Plan::start(bool fwd, fft::Element in_type, fft::Element out_type, const void* in, std::size_t in_n,
                          void* out, std::size_t out_n) const {
  const Impl& m = impl();
  auto r = std::make_shared<NdRequest>();
  r->run = make_call(*this, m, fwd ? "forward_start" : "backward_start", fwd, in_type, out_type, 1, &in, in_n, 1,
                     &out, out_n);
  const bool reshapes_out = fwd ? m.boxes.out_set : m.boxes.in_set;
  r->comm = m.comm;
  r->collective_wait = reshapes_out || (!m.p3 && (m.sch.exchanges() > 1 || m.nbatch > 1));
  r->wait_call = {{"the collective call", fwd ? "forward wait" : "backward wait"},
                  {"the split-phase transform (in start order)", "number " + std::to_string(++m.starts)}};
  r->run->pump(false);
  return Pending(std::move(r));
}

using cplx = std::complex<double>;
using cplxf = std::complex<float>;

// The twelve typed one-field calls.
void Plan::forward(const double* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(true, fft::element_of<double>::type, fft::element_of<cplx>::type, in, in_n, out, out_n);
}
void Plan::forward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(true, fft::element_of<cplx>::type, fft::element_of<cplx>::type, in, in_n, out, out_n);
}
void Plan::backward(const cplx* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(false, fft::element_of<cplx>::type, fft::element_of<double>::type, in, in_n, out, out_n);
}
void Plan::backward(const cplx* in, std::size_t in_n, cplx* out, std::size_t out_n) const {
  call(false, fft::element_of<cplx>::type, fft::element_of<cplx>::type, in, in_n, out, out_n);
}
void Plan::forward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(true, fft::element_of<double>::type, fft::element_of<double>::type, in, in_n, out, out_n);
}
void Plan::backward(const double* in, std::size_t in_n, double* out, std::size_t out_n) const {
  call(false, fft::element_of<double>::type, fft::element_of<double>::type, in, in_n, out, out_n);
}
void Plan::forward(const float* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(true, fft::element_of<float>::type, fft::element_of<cplxf>::type, in, in_n, out, out_n);
}
void Plan::forward(const cplxf* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(true, fft::element_of<cplxf>::type, fft::element_of<cplxf>::type, in, in_n, out, out_n);
}
void Plan::backward(const cplxf* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(false, fft::element_of<cplxf>::type, fft::element_of<float>::type, in, in_n, out, out_n);
}
void Plan::backward(const cplxf* in, std::size_t in_n, cplxf* out, std::size_t out_n) const {
  call(false, fft::element_of<cplxf>::type, fft::element_of<cplxf>::type, in, in_n, out, out_n);
}
void Plan::forward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(true, fft::element_of<float>::type, fft::element_of<float>::type, in, in_n, out, out_n);
}
void Plan::backward(const float* in, std::size_t in_n, float* out, std::size_t out_n) const {
  call(false, fft::element_of<float>::type, fft::element_of<float>::type, in, in_n, out, out_n);
}

}  // namespace nbfft::nd
