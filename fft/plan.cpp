#include "fft/plan.hpp"

#include "coll/comm.hpp"
#include "coll/error.hpp"
#include "fft/local_fft.hpp"
#include "fft/transform.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace nbfft::fft {

namespace {

// Turns a local failure into the same Error on every rank, so that a problem seen by one
// rank (a short buffer, an allocation) never leaves the others waiting in an exchange.
void agree(MPI_Comm comm, const std::string& local_error) {
  int bad = local_error.empty() ? 0 : 1, any = 0;
  check_mpi(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (!any) return;
  if (bad) throw Error(local_error);
  int me = 0;
  MPI_Comm_rank(comm, &me);
  throw Error("another rank failed (this is rank " + std::to_string(me) +
              "; see that rank's error)");
}

std::string strip(const std::string& what) {
  const std::string prefix = "nbfft: ";
  return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

}  // namespace

struct Plan::Impl {
  Options opt;
  Decomposition d;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate for argument checks
  virtual ~Impl() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm);
  }
  virtual void forward(const void* in, void* out, Timings* t) const = 0;
  virtual void backward(const void* in, void* out, Timings* t) const = 0;
  virtual void bind(int exchange) = 0;  // 0: ROW, 1: COL
  virtual std::size_t workspace_bytes() const = 0;
  virtual void forward_many(int nv, const void* const* in, void* const* out, Timings* t) const = 0;
  virtual void backward_many(int nv, const void* const* in, void* const* out, Timings* t) const = 0;
  // The multi-field pipeline's second workspace: whether it is still to be made, then
  // made one exchange at a time (collective over ROW / COL, like bind).
  virtual bool needs_second() const = 0;
  virtual void exchange_only(int exchange, bool forward, Timings* t) const = 0;
  virtual void make_second(int exchange) = 0;
};

namespace {

template <typename T>
struct TypedImpl final : Plan::Impl {
  std::unique_ptr<Transform<T>> tr;
  void forward(const void* in, void* out, Timings* t) const override {
    tr->forward(in, out, tr->workspace(), t);
  }
  void backward(const void* in, void* out, Timings* t) const override {
    tr->backward(in, out, tr->workspace(), t);
  }
  void bind(int exchange) override { tr->bind(tr->workspace(), exchange); }
  std::size_t workspace_bytes() const override {
    return tr->workspace_bytes() + (second ? second->bytes() : 0);
  }
  void forward_many(int nv, const void* const* in, void* const* out, Timings* t) const override {
    tr->forward_many(nv, in, out, tr->workspace(), second ? *second : tr->workspace(), t);
  }
  void backward_many(int nv, const void* const* in, void* const* out, Timings* t) const override {
    tr->backward_many(nv, in, out, tr->workspace(), second ? *second : tr->workspace(), t);
  }
  bool needs_second() const override { return tr->pipelines_fields() && !second; }
  void exchange_only(int exchange, bool forward, Timings* t) const override {
    tr->exchange_only(tr->workspace(), exchange, forward, t);
  }
  void make_second(int exchange) override {
    if (exchange == 0) pending = tr->make_unbound_workspace();
    tr->bind(*pending, exchange);
    if (exchange == 1) second = std::move(pending);
  }
  std::unique_ptr<Workspace<T>> second, pending;
};

}  // namespace

Plan::Plan(MPI_Comm comm, std::array<std::int64_t, 3> n, const Options& options) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const bool r2c = options.transform == TransformKind::R2C;

  // Every rank must describe the same transform; a mismatch would hang an exchange.
  {
    std::int64_t mine[11] = {n[0], n[1], n[2], options.m1, options.m2,
                             static_cast<std::int64_t>(options.precision),
                             static_cast<std::int64_t>(options.transform),
                             static_cast<std::int64_t>(options.norm), options.allow_empty,
                             options.col_chunk_planes, static_cast<std::int64_t>(options.col_kernel)};
    std::int64_t lo[11], hi[11];
    check_mpi(MPI_Allreduce(mine, lo, 11, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(mine, hi, 11, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    if (!std::equal(lo, lo + 11, hi))
      throw Error("ranks disagree on the plan (grid, process grid, precision, transform, "
                  "normalization, col_chunk_planes and col_kernel must be the same on every rank)");
  }
  if (options.col_chunk_planes < 0)
    throw Error("col_chunk_planes = " + std::to_string(options.col_chunk_planes) +
                " must be >= 0 (0: one bulk COL exchange)");
  if (options.progress_chunks < 0)
    throw Error("progress_chunks = " + std::to_string(options.progress_chunks) + " must be >= 0 (0: the default, " +
                std::to_string(kDefaultProgressChunks) + ")");
  Decomposition d = Decomposition::make(n, r2c, options.m1, options.m2, size, rank,
                                        options.allow_empty);
  Options opt = options;
  opt.m1 = d.m1;
  opt.m2 = d.m2;

  MPI_Comm dup = MPI_COMM_NULL, row = MPI_COMM_NULL, col = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  check_mpi(MPI_Comm_split(comm, d.j, d.i, &row), "MPI_Comm_split");
  check_mpi(MPI_Comm_split(comm, d.i, d.j, &col), "MPI_Comm_split");
  std::string error;
  coll::Comm row_comm, col_comm;
  std::unique_ptr<Impl> impl;
  try {
    // coll::Comm keeps its own duplicates.
    if (d.m1 > 1) row_comm = coll::Comm(row, opt.row_transport.engine);
    if (d.m2 > 1) col_comm = coll::Comm(col, opt.col_transport.engine);
  } catch (const std::exception& e) {
    error = strip(e.what());
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  try {
    agree(dup, error);
    const unsigned flags = fftw_effort_flags(static_cast<int>(opt.effort));
    try {
      if (opt.precision == Precision::Double) {
        auto p = std::make_unique<TypedImpl<double>>();
        p->tr = std::make_unique<Transform<double>>(d, opt.transform, opt.norm, flags, row_comm,
                                                    col_comm, opt.row_transport, opt.col_transport,
                                                    opt.progress_chunks, opt.col_chunk_planes, opt.col_kernel);
        impl = std::move(p);
      } else {
        auto p = std::make_unique<TypedImpl<float>>();
        p->tr = std::make_unique<Transform<float>>(d, opt.transform, opt.norm, flags, row_comm,
                                                   col_comm, opt.row_transport, opt.col_transport,
                                                   opt.progress_chunks, opt.col_chunk_planes, opt.col_kernel);
        impl = std::move(p);
      }
    } catch (const std::exception& e) {
      error = strip(e.what());
    }
    agree(dup, error);
    // Collective building, one exchange at a time with an agreement after each, so that a
    // transport failing on one communicator (an RMA window the MPI cannot create) fails
    // the plan on every rank instead of leaving the others in the next build.
    for (int phase = 0; phase < 2; ++phase) {
      try {
        impl->bind(phase);
      } catch (const std::exception& e) {
        error = strip(e.what());
      }
      agree(dup, error);
    }
  } catch (...) {
    MPI_Comm_free(&dup);
    throw;
  }
  impl->opt = opt;
  impl->d = d;
  impl->comm = dup;
  impl_ = std::move(impl);
}

Plan::~Plan() = default;
Plan::Plan(Plan&&) noexcept = default;
Plan& Plan::operator=(Plan&&) noexcept = default;

const Options& Plan::options() const { return impl_->opt; }
const Decomposition& Plan::decomposition() const { return impl_->d; }
std::array<std::int64_t, 3> Plan::global_size() const { return impl_->d.n; }
int Plan::m1() const { return impl_->d.m1; }
int Plan::m2() const { return impl_->d.m2; }
const Box3& Plan::in_box() const { return impl_->d.x_pencil; }
const Box3& Plan::out_box() const { return impl_->d.z_pencil; }

std::size_t Plan::in_bytes() const {
  const std::size_t real = impl_->opt.precision == Precision::Double ? 8 : 4;
  const bool r2c = impl_->opt.transform == TransformKind::R2C;
  return static_cast<std::size_t>(in_count()) * real * (r2c ? 1 : 2);
}
std::size_t Plan::out_bytes() const {
  const std::size_t real = impl_->opt.precision == Precision::Double ? 8 : 4;
  return static_cast<std::size_t>(out_count()) * real * 2;
}
std::size_t Plan::inplace_bytes() const { return std::max(in_bytes(), out_bytes()); }
std::size_t Plan::workspace_bytes() const { return impl_->workspace_bytes(); }

void Plan::check_call(const char* what, bool real_in, bool real_out, Precision p) const {
  const Options& o = impl_->opt;
  const bool r2c = o.transform == TransformKind::R2C;
  const bool forward = std::string(what) == "forward";
  const bool want_in = r2c && forward, want_out = r2c && !forward;
  if (p != o.precision || real_in != want_in || real_out != want_out) {
    auto kind = [](bool real) { return real ? "real" : "complex"; };
    throw Error(std::string(what) + ": the plan is " + name(o.precision) + " precision " +
                name(o.transform) + " (" + kind(want_in) + " in, " + kind(want_out) +
                " out) but was called with " + name(p) + " precision " + kind(real_in) +
                " in, " + kind(real_out) + " out");
  }
}

namespace {

// What is wrong with the user's buffers on this rank ("" if nothing).
std::string buffer_error(const char* what, const void* in, std::size_t in_have, std::size_t in_need,
                         const void* out, std::size_t out_have, std::size_t out_need,
                         std::size_t inplace_need) {
  std::string err;
  const char* i = static_cast<const char*>(in);
  const char* o = static_cast<const char*>(out);
  auto missing = [](const void* p, std::size_t need) { return p == nullptr && need > 0; };
  if (missing(in, in_need) || missing(out, out_need)) {
    err = std::string(what) + ": null buffer for a non-empty box";
  } else if (i == o && in_need + out_need > 0) {
    const std::size_t have = std::min(in_have, out_have);
    if (have < inplace_need)
      err = std::string(what) + ": in-place buffer has " + std::to_string(have) +
            " bytes but the plan needs " + std::to_string(inplace_need) +
            " (the larger of the input and output boxes)";
  } else if (in_have < in_need) {
    err = std::string(what) + ": input buffer has " + std::to_string(in_have) +
          " bytes but this rank's input box needs " + std::to_string(in_need);
  } else if (out_have < out_need) {
    err = std::string(what) + ": output buffer has " + std::to_string(out_have) +
          " bytes but this rank's output box needs " + std::to_string(out_need);
  } else if (i && o && i < o + out_need && o < i + in_need) {
    err = std::string(what) + ": input and output overlap without being the same buffer";
  }
  return err;
}

// Checks sizes and aliasing of the user's buffers on every rank together.
void check_buffers(MPI_Comm comm, const char* what, const void* in, std::size_t in_have,
                   std::size_t in_need, const void* out, std::size_t out_have,
                   std::size_t out_need, std::size_t inplace_need) {
  agree(comm, buffer_error(what, in, in_have, in_need, out, out_have, out_need, inplace_need));
}

}  // namespace

void Plan::forward_bytes(const void* in, std::size_t in_b, void* out, std::size_t out_b,
                         Timings* t) const {
  check_buffers(impl_->comm, "forward", in, in_b, in_bytes(), out, out_b, out_bytes(),
                inplace_bytes());
  impl_->forward(in, out, t);
}

void Plan::backward_bytes(const void* in, std::size_t in_b, void* out, std::size_t out_b,
                          Timings* t) const {
  check_buffers(impl_->comm, "backward", in, in_b, out_bytes(), out, out_b, in_bytes(),
                inplace_bytes());
  impl_->backward(in, out, t);
}

void Plan::many_bytes(bool forward, std::size_t nv_in, const void* const* in, std::size_t in_b,
                      std::size_t nv_out, void* const* out, std::size_t out_b, Timings* t) const {
  const char* what = forward ? "forward_many" : "backward_many";
  const std::size_t need_in = forward ? in_bytes() : out_bytes();
  const std::size_t need_out = forward ? out_bytes() : in_bytes();
  // The field count first: ranks with different counts would run different exchanges.
  {
    long long mine[2] = {static_cast<long long>(nv_in), -static_cast<long long>(nv_in)}, all[2];
    check_mpi(MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_MAX, impl_->comm), "MPI_Allreduce");
    if (all[0] != -all[1])
      throw Error(std::string(what) + ": ranks disagree on the number of fields (" + std::to_string(-all[1]) +
                  " to " + std::to_string(all[0]) + ")");
  }
  std::string err;
  if (nv_in != nv_out)
    err = std::string(what) + ": " + std::to_string(nv_in) + " input fields but " + std::to_string(nv_out) +
          " output fields";
  else if (nv_in > 0 && (in == nullptr || out == nullptr))
    err = std::string(what) + ": null array of field pointers";
  for (std::size_t k = 0; err.empty() && k < nv_in; ++k) {
    err = buffer_error(what, in[k], in_b, need_in, out[k], out_b, need_out, inplace_bytes());
    if (!err.empty()) err += " (field " + std::to_string(k) + ")";
  }
  // Different fields must not share memory: the pipeline writes one field's output while
  // it still reads the next one's input.
  for (std::size_t j = 0; err.empty() && j < nv_in; ++j)
    for (std::size_t k = j + 1; err.empty() && k < nv_in; ++k) {
      const char* ja[2] = {static_cast<const char*>(in[j]), static_cast<const char*>(out[j])};
      const char* ka[2] = {static_cast<const char*>(in[k]), static_cast<const char*>(out[k])};
      const std::size_t len[2] = {need_in, need_out};
      bool overlap = false;
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y)
          if (len[x] && len[y] && ja[x] < ka[y] + len[y] && ka[y] < ja[x] + len[x]) overlap = true;
      if (overlap)
        err = std::string(what) + ": fields " + std::to_string(j) + " and " + std::to_string(k) +
              " share memory (each field needs buffers of its own)";
    }
  agree(impl_->comm, err);
  if (nv_in == 0) return;
  if (nv_in > 1 && impl_->needs_second()) {
    // The pipeline's second set of buffers and collectives, built like the first.
    for (int phase = 0; phase < 2; ++phase) {
      std::string e;
      try {
        impl_->make_second(phase);
      } catch (const std::exception& x) {
        e = strip(x.what());
      }
      agree(impl_->comm, e);
    }
  }
  const int nv = static_cast<int>(nv_in);
  if (forward)
    impl_->forward_many(nv, in, out, t);
  else
    impl_->backward_many(nv, in, out, t);
}

void Plan::exchange_only(int exchange, bool forward, Timings* t) const {
  if (exchange != 0 && exchange != 1)
    throw Error("exchange_only: exchange must be 0 (ROW) or 1 (COL), got " + std::to_string(exchange));
  impl_->exchange_only(exchange, forward, t);
}

#define NBFFT_TYPED(DIR, IN, OUT, RIN, ROUT, PREC)                                          \
  void Plan::DIR(const IN* in, std::size_t in_n, OUT* out, std::size_t out_n, Timings* t)   \
      const {                                                                                \
    check_call(#DIR, RIN, ROUT, PREC);                                                       \
    DIR##_bytes(in, in_n * sizeof(IN), out, out_n * sizeof(OUT), t);                         \
  }

NBFFT_TYPED(forward, double, std::complex<double>, true, false, Precision::Double)
NBFFT_TYPED(forward, float, std::complex<float>, true, false, Precision::Single)
NBFFT_TYPED(forward, std::complex<double>, std::complex<double>, false, false, Precision::Double)
NBFFT_TYPED(forward, std::complex<float>, std::complex<float>, false, false, Precision::Single)
NBFFT_TYPED(backward, std::complex<double>, double, false, true, Precision::Double)
NBFFT_TYPED(backward, std::complex<float>, float, false, true, Precision::Single)
NBFFT_TYPED(backward, std::complex<double>, std::complex<double>, false, false, Precision::Double)
NBFFT_TYPED(backward, std::complex<float>, std::complex<float>, false, false, Precision::Single)

#undef NBFFT_TYPED

}  // namespace nbfft::fft
