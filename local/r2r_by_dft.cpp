// The real-to-real kinds on a backend that has none (MKL; later cuFFT): each line of each
// transformed dim is placed, weighted, into a complex sequence of L points whose DFT holds the
// r2r result at fixed indices (its real part for the cosine kinds, minus its imaginary part
// for the sine kinds), and batches of lines run through the backend's own c2c transform.
//
// With p_j the place of input j and q_k the index of output k, the kinds are (FFTW's
// unnormalized definitions, nbfft/fft/r2r_kinds.hpp):
//   dct1 (REDFT00)  L = 2(n-1)  p = j       q = k       w = 1 at j = 0, n-1, else 2   Re
//   dct2 (REDFT10)  L = 4n      p = 2j+1    q = k       w = 2                         Re
//   dct3 (REDFT01)  L = 4n      p = j       q = 2k+1    w = 1 at j = 0, else 2        Re
//   dct4 (REDFT11)  L = 8n      p = 2j+1    q = 2k+1    w = 2                         Re
//   dst1 (RODFT00)  L = 2(n+1)  p = j+1     q = k+1     w = 2                         -Im
//   dst2 (RODFT10)  L = 4n      p = 2j+1    q = k+1     w = 2                         -Im
//   dst3 (RODFT01)  L = 4n      p = j+1     q = 2k+1    w = 1 at j = n-1, else 2      -Im
//   dst4 (RODFT11)  L = 8n      p = 2j+1    q = 2k+1    w = 2                         -Im
// since sum_j w_j x_j exp(-2 pi i p_j q_k / L) has the cosine sum of the kind as its real
// part and minus the sine sum as its imaginary part (e.g. dct2: 2 pi (2j+1) k / 4n =
// pi (j+1/2) k / n). It costs a complex DFT of up to 8n points per line, several times a
// native r2r: a correct fallback, not a fast one (auto keeps r2r axes on FFTW where built).
#include "local/r2r_by_dft.hpp"

#include <complex>
#include <vector>

namespace nbfft::local::detail {

namespace {

struct KindRule {
  std::int64_t L;
  std::int64_t p0, pstep, q0, qstep;  // p_j = p0 + pstep j, q_k = q0 + qstep k
  bool sine;
};

KindRule rule(R2r k, std::int64_t n) {
  switch (k) {
    case R2r::Dct1: return {2 * (n - 1), 0, 1, 0, 1, false};
    case R2r::Dct2: return {4 * n, 1, 2, 0, 1, false};
    case R2r::Dct3: return {4 * n, 0, 1, 1, 2, false};
    case R2r::Dct4: return {8 * n, 1, 2, 1, 2, false};
    case R2r::Dst1: return {2 * (n + 1), 1, 1, 1, 1, true};
    case R2r::Dst2: return {4 * n, 1, 2, 1, 1, true};
    case R2r::Dst3: return {4 * n, 1, 1, 1, 2, true};
    case R2r::Dst4: return {8 * n, 1, 2, 1, 2, true};
  }
  return {4 * n, 1, 2, 0, 1, false};
}

double weight(R2r k, std::int64_t j, std::int64_t n) {
  if (k == R2r::Dct1 && (j == 0 || j == n - 1)) return 1;
  if (k == R2r::Dct3 && j == 0) return 1;
  if (k == R2r::Dst3 && j == n - 1) return 1;
  return 2;
}

// Lines per batch through the backend's c2c: enough to amortize its call, few enough that
// a batch of 4n-point sequences stays near the caches.
constexpr std::int64_t kBatch = 32;

template <typename T>
class R2rByDft final : public Executor<T> {
 public:
  using C = std::complex<T>;

  // The inner c2c plans throw Unavailable naming the backend when it cannot plan them.
  void plan(Backend b, const Problem& p) {
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
      Pass s;
      s.kind = p.r2r[d];
      s.n = p.dims[d].n;
      s.rule = rule(s.kind, s.n);
      // The first pass reads the input's layout, the others the output's, in place.
      s.is = d == 0 ? p.dims[d].is : p.dims[d].os;
      s.os = p.dims[d].os;
      lines(p, d, s.in_at, s.out_at);
      Problem inner;
      inner.kind = Kind::Forward;
      inner.dims = {{s.rule.L, 1, 1}};
      inner.loops = {{kBatch, s.rule.L, s.rule.L}};
      std::vector<C> sample(static_cast<std::size_t>(kBatch * s.rule.L));
      s.dft = Transform<T>(b, inner, sample.data(), sample.data(), Effort::Estimate);
      for (std::int64_t j = 0; j < s.n; ++j) s.w.push_back(static_cast<T>(weight(s.kind, j, s.n)));
      passes_.push_back(std::move(s));
    }
  }

  void execute(void* in, void* out) const override {
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    thread_local std::vector<C> z;  // grows once per thread to the largest batch
    for (std::size_t d = 0; d < passes_.size(); ++d) {
      const Pass& s = passes_[d];
      const T* from = d == 0 ? src : dst;
      const std::int64_t L = s.rule.L;
      if (z.size() < static_cast<std::size_t>(kBatch * L)) z.resize(static_cast<std::size_t>(kBatch * L));
      const std::size_t count = s.in_at.size();
      for (std::size_t l0 = 0; l0 < count; l0 += kBatch) {
        const std::size_t l1 = std::min(count, l0 + static_cast<std::size_t>(kBatch));
        std::fill(z.begin(), z.begin() + kBatch * L, C(0));
        for (std::size_t l = l0; l < l1; ++l) {
          C* line = z.data() + (l - l0) * static_cast<std::size_t>(L);
          const T* x = from + s.in_at[l];
          for (std::int64_t j = 0; j < s.n; ++j)
            line[s.rule.p0 + s.rule.pstep * j] = C(s.w[static_cast<std::size_t>(j)] * x[j * s.is], 0);
        }
        s.dft.execute(z.data(), z.data());
        for (std::size_t l = l0; l < l1; ++l) {
          const C* line = z.data() + (l - l0) * static_cast<std::size_t>(L);
          T* y = dst + s.out_at[l];
          for (std::int64_t k = 0; k < s.n; ++k) {
            const C v = line[s.rule.q0 + s.rule.qstep * k];
            y[k * s.os] = s.rule.sine ? -v.imag() : v.real();
          }
        }
      }
    }
  }

 private:
  struct Pass {
    R2r kind = R2r::Dct2;
    std::int64_t n = 0, is = 0, os = 0;
    KindRule rule{};
    std::vector<T> w;
    std::vector<std::int64_t> in_at, out_at;  // each line's first element, in and out
    Transform<T> dft;
  };

  // The first element of every line along dim d: every index of the other dims and the loops
  // (strides of the input on the first pass, of the output after it, in place).
  static void lines(const Problem& p, std::size_t d, std::vector<std::int64_t>& in_at, std::vector<std::int64_t>& out_at) {
    std::vector<Dim> around;
    for (std::size_t e = 0; e < p.dims.size(); ++e)
      if (e != d) around.push_back({p.dims[e].n, d == 0 ? p.dims[e].is : p.dims[e].os, p.dims[e].os});
    for (const Dim& l : p.loops) around.push_back({l.n, d == 0 ? l.is : l.os, l.os});
    in_at.assign(1, 0);
    out_at.assign(1, 0);
    for (const Dim& a : around) {
      std::vector<std::int64_t> ni, no;
      ni.reserve(in_at.size() * static_cast<std::size_t>(a.n));
      no.reserve(in_at.size() * static_cast<std::size_t>(a.n));
      for (std::int64_t i = 0; i < a.n; ++i)
        for (std::size_t k = 0; k < in_at.size(); ++k) {
          ni.push_back(in_at[k] + i * a.is);
          no.push_back(out_at[k] + i * a.os);
        }
      in_at = std::move(ni);
      out_at = std::move(no);
    }
  }

  std::vector<Pass> passes_;
};

}  // namespace

template <typename T>
std::unique_ptr<Executor<T>> r2r_by_dft(Backend b, const Problem& p) {
  auto e = std::make_unique<R2rByDft<T>>();
  e->plan(b, p);
  return e;
}

template std::unique_ptr<Executor<double>> r2r_by_dft<double>(Backend, const Problem&);
template std::unique_ptr<Executor<float>> r2r_by_dft<float>(Backend, const Problem&);

}  // namespace nbfft::local::detail
