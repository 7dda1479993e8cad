// The FFTW-MPI baseline of nbfft-sine: FFTW's distributed 3D transform in its fastest form.
//
// FFTW distributes the row-major array n0 x n1 x n2 = nz x ny x nx (x fastest, as nbfft)
// in z slabs. FFTW_MPI_TRANSPOSED_OUT skips the final transpose, so the forward output is
// ny-distributed [y][z][x] (the layout closest to nbfft's Z-pencils); the backward plan
// takes that layout with FFTW_MPI_TRANSPOSED_IN. Normalization is a separate pass over the
// spectrum, as in P3DFFT's test_sine (FFTW cannot fuse it).
#include "bench/sine/runner.hpp"

#include "nbfft/error.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/r2r_kinds.hpp"

#include <fftw3-mpi.h>

#include <algorithm>
#include <complex>
#include <sstream>

namespace nbfft::sine {

namespace {
// The option's planning effort as FFTW's planner flag (the baseline is FFTW's own code).
unsigned fftw_effort(fft::Effort e) {
  switch (e) {
    case fft::Effort::Estimate: return FFTW_ESTIMATE;
    case fft::Effort::Measure: return FFTW_MEASURE;
    case fft::Effort::Patient: return FFTW_PATIENT;
    case fft::Effort::Exhaustive: return FFTW_EXHAUSTIVE;
  }
  return FFTW_MEASURE;
}
int fftw_kind(fft::AxisKind k) {
  using K = fft::AxisKind;
  switch (k) {
    case K::Dct1: return FFTW_REDFT00;
    case K::Dct2: return FFTW_REDFT10;
    case K::Dct3: return FFTW_REDFT01;
    case K::Dct4: return FFTW_REDFT11;
    case K::Dst1: return FFTW_RODFT00;
    case K::Dst2: return FFTW_RODFT10;
    case K::Dst3: return FFTW_RODFT01;
    case K::Dst4: return FFTW_RODFT11;
    case K::Periodic: break;
  }
  throw Error("the FFTW-MPI r2r baseline takes r2r kinds on every axis");
}
}  // namespace

namespace {

template <typename T>
struct Mpi;

template <>
struct Mpi<double> {
  using plan = fftw_plan;
  using cplx = fftw_complex;
  static ptrdiff_t local_size(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm c, ptrdiff_t* a,
                              ptrdiff_t* b, ptrdiff_t* d, ptrdiff_t* e) {
    return fftw_mpi_local_size_3d_transposed(n0, n1, n2, c, a, b, d, e);
  }
  static plan r2c(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, double* in, cplx* out, MPI_Comm c, unsigned f) {
    return fftw_mpi_plan_dft_r2c_3d(n0, n1, n2, in, out, c, f);
  }
  static plan c2r(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, cplx* in, double* out, MPI_Comm c, unsigned f) {
    return fftw_mpi_plan_dft_c2r_3d(n0, n1, n2, in, out, c, f);
  }
  static plan dft(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, cplx* in, cplx* out, MPI_Comm c, int s, unsigned f) {
    return fftw_mpi_plan_dft_3d(n0, n1, n2, in, out, c, s, f);
  }
  static plan r2r(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, double* in, double* out, MPI_Comm c, const int k[3], unsigned f) {
    return fftw_mpi_plan_r2r_3d(n0, n1, n2, in, out, c, static_cast<fftw_r2r_kind>(k[0]), static_cast<fftw_r2r_kind>(k[1]),
                             static_cast<fftw_r2r_kind>(k[2]), f);
  }
  static void execute(plan p) { fftw_execute(p); }
  static void threads(int t) { fftw_plan_with_nthreads(t); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static void* alloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
};

template <>
struct Mpi<float> {
  using plan = fftwf_plan;
  using cplx = fftwf_complex;
  static ptrdiff_t local_size(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, MPI_Comm c, ptrdiff_t* a,
                              ptrdiff_t* b, ptrdiff_t* d, ptrdiff_t* e) {
    return fftwf_mpi_local_size_3d_transposed(n0, n1, n2, c, a, b, d, e);
  }
  static plan r2c(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, float* in, cplx* out, MPI_Comm c, unsigned f) {
    return fftwf_mpi_plan_dft_r2c_3d(n0, n1, n2, in, out, c, f);
  }
  static plan c2r(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, cplx* in, float* out, MPI_Comm c, unsigned f) {
    return fftwf_mpi_plan_dft_c2r_3d(n0, n1, n2, in, out, c, f);
  }
  static plan dft(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, cplx* in, cplx* out, MPI_Comm c, int s, unsigned f) {
    return fftwf_mpi_plan_dft_3d(n0, n1, n2, in, out, c, s, f);
  }
  static plan r2r(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, float* in, float* out, MPI_Comm c, const int k[3], unsigned f) {
    return fftwf_mpi_plan_r2r_3d(n0, n1, n2, in, out, c, static_cast<fftw_r2r_kind>(k[0]), static_cast<fftw_r2r_kind>(k[1]),
                             static_cast<fftw_r2r_kind>(k[2]), f);
  }
  static void execute(plan p) { fftwf_execute(p); }
  static void threads(int t) { fftwf_plan_with_nthreads(t); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static void* alloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
};

// What both FFTW-MPI runners hold: the z-slab arrays, the plans and how they describe
// themselves; each runner plans and runs its own transform.
template <typename T>
class FftwMpiBase : public Runner {
 protected:
  using Api = Mpi<T>;
  explicit FftwMpiBase(const BaselineSpec& s) : s_(s), field_(s.n) {}
  ~FftwMpiBase() override {
    Api::destroy(fwd_);
    Api::destroy(bwd_);
    Api::release(in_);
    Api::release(res_);
    Api::release(spec_);
  }
  // The transform's words in config(): "r2c", "r2r kinds dct2,dct2,dct2".
  virtual std::string kind_words() const = 0;

 public:
  std::string transport() const override { return "fftw-mpi"; }
  std::string proc_grid() const override {
    int p = 0;
    MPI_Comm_size(s_.comm, &p);
    return "1x" + std::to_string(p);
  }
  std::string config() const override {
    std::ostringstream os;
    os << "FFTW-MPI " << fft::name(s_.precision) << " " << kind_words()
       << " z-slabs, FFTW_MPI_TRANSPOSED_OUT/IN, effort=" << fft::name(s_.effort)
       << ", normalization as a separate pass";
    if (s_.threads > 1) os << ", " << s_.threads << " FFTW threads per rank";
    if (s_.fields > 1) os << ", " << s_.fields << " fields one after the other";
    return os.str();
  }
  bool has_phases() const override { return false; }
  std::size_t data_bytes() const override { return data_bytes_; }

 protected:
  BaselineSpec s_;
  SineField field_;
  ptrdiff_t local_nz_ = 0, z0_ = 0;
  void *in_ = nullptr, *res_ = nullptr, *spec_ = nullptr;
  std::size_t spec_count_ = 0, data_bytes_ = 0;
  typename Api::plan fwd_ = nullptr, bwd_ = nullptr;
};

template <typename T>
class FftwMpiRunner final : public FftwMpiBase<T> {
  using B = FftwMpiBase<T>;
  using Api = Mpi<T>;
  using C = std::complex<T>;
  using B::s_, B::field_, B::local_nz_, B::z0_, B::in_, B::res_, B::spec_, B::spec_count_, B::data_bytes_,
      B::fwd_, B::bwd_;

 public:
  explicit FftwMpiRunner(const BaselineSpec& s) : B(s) {
    r2c_ = s.transform == fft::TransformKind::R2C;
    const ptrdiff_t nx = s.n[0], ny = s.n[1], nz = s.n[2];
    const ptrdiff_t xc = r2c_ ? nx / 2 + 1 : nx;
    ptrdiff_t n0 = 0, s0 = 0, n1 = 0, s1 = 0;
    const ptrdiff_t alloc = Api::local_size(nz, ny, xc, s.comm, &n0, &s0, &n1, &s1);
    local_nz_ = n0;
    z0_ = s0;
    local_ny_ = n1;
    row_ = r2c_ ? 2 * xc : nx;  // padded real row (r2c) or complex row, in T or C units
    // Field / result: real padded [z][y][2*xc] or complex [z][y][x]; spectrum [y][z][xc].
    const std::size_t field_bytes = r2c_ ? sizeof(T) * 2 * alloc : sizeof(C) * alloc;
    in_ = Api::alloc(std::max<std::size_t>(field_bytes, 64));
    res_ = Api::alloc(std::max<std::size_t>(field_bytes, 64));
    spec_ = Api::alloc(std::max<std::size_t>(sizeof(C) * alloc, 64));
    spec_count_ = static_cast<std::size_t>(local_ny_ * nz * xc);
    // Its arrays, the most on any rank (FFTW-MPI's own transpose scratch is not visible).
    unsigned long long mine = 2 * field_bytes + sizeof(C) * alloc, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s.comm);
    data_bytes_ = most;
    const unsigned effort = fftw_effort(s.effort);
    auto cin = static_cast<typename Api::cplx*>(in_);
    auto cspec = static_cast<typename Api::cplx*>(spec_);
    auto cres = static_cast<typename Api::cplx*>(res_);
    Api::threads(s.threads);  // FFTW's threads inside each rank (--threads), as nbfft's
    if (r2c_) {
      fwd_ = Api::r2c(nz, ny, nx, static_cast<T*>(in_), cspec, s.comm, effort | FFTW_MPI_TRANSPOSED_OUT);
      bwd_ = Api::c2r(nz, ny, nx, cspec, static_cast<T*>(res_), s.comm, effort | FFTW_MPI_TRANSPOSED_IN);
    } else {
      fwd_ = Api::dft(nz, ny, nx, cin, cspec, s.comm, FFTW_FORWARD, effort | FFTW_MPI_TRANSPOSED_OUT);
      bwd_ = Api::dft(nz, ny, nx, cspec, cres, s.comm, FFTW_BACKWARD, effort | FFTW_MPI_TRANSPOSED_IN);
    }
    if (!fwd_ || !bwd_) throw Error("FFTW-MPI could not plan the baseline transform");
    // Planning may overwrite the arrays: fill the field afterwards.
    for (ptrdiff_t z = 0; z < local_nz_; ++z)
      for (ptrdiff_t y = 0; y < ny; ++y)
        for (ptrdiff_t x = 0; x < nx; ++x) {
          const std::size_t k = static_cast<std::size_t>((z * ny + y) * row_ + x);
          if (r2c_)
            static_cast<T*>(in_)[k] = static_cast<T>(field_.re(x, y, z0_ + z));
          else
            static_cast<C*>(in_)[k] = C(static_cast<T>(field_.re(x, y, z0_ + z)),
                                        static_cast<T>(field_.im(x, y, z0_ + z)));
        }
  }
  std::string kind_words() const override { return fft::name(s_.transform); }

  void iterate(fft::Timings& t) override {
    fft::PhaseClock clk(&t);
    for (int v = 0; v < s_.fields; ++v) {  // nv fields, one after the other
      Api::execute(fwd_);
      const T scale = static_cast<T>(1.0 / (static_cast<double>(s_.n[0]) * s_.n[1] * s_.n[2]));
      C* sp = static_cast<C*>(spec_);
      for (std::size_t k = 0; k < spec_count_; ++k) sp[k] *= scale;
      Api::execute(bwd_);
    }
    clk.mark(&fft::Timings::total);
  }

  double local_error() const override {
    double e = 0;
    const ptrdiff_t nx = s_.n[0], ny = s_.n[1];
    for (ptrdiff_t z = 0; z < local_nz_; ++z)
      for (ptrdiff_t y = 0; y < ny; ++y)
        for (ptrdiff_t x = 0; x < nx; ++x) {
          const std::size_t k = static_cast<std::size_t>((z * ny + y) * row_ + x);
          if (r2c_) {
            e = std::max(e, std::abs(static_cast<double>(static_cast<T*>(res_)[k]) - field_.re(x, y, z0_ + z)));
          } else {
            const C v = static_cast<C*>(res_)[k];
            e = std::max(e, std::abs(std::complex<double>(v.real(), v.imag()) -
                                     std::complex<double>(field_.re(x, y, z0_ + z), field_.im(x, y, z0_ + z))));
          }
        }
    return e;
  }

 private:
  bool r2c_ = true;
  ptrdiff_t local_ny_ = 0, row_ = 0;
};

// FFTW-MPI's real-to-real transform (every axis an r2r kind, --kinds): real z-slabs in,
// the real spectrum [y][z][x] out with FFTW_MPI_TRANSPOSED_OUT, the inverse kinds back with
// FFTW_MPI_TRANSPOSED_IN, normalization by the logical size as a separate pass.
template <typename T>
class FftwMpiR2rRunner final : public FftwMpiBase<T> {
  using B = FftwMpiBase<T>;
  using Api = Mpi<T>;
  using B::s_, B::field_, B::local_nz_, B::z0_, B::in_, B::res_, B::spec_, B::spec_count_, B::data_bytes_,
      B::fwd_, B::bwd_;

 public:
  explicit FftwMpiR2rRunner(const BaselineSpec& s) : B(s) {
    const ptrdiff_t nx = s.n[0], ny = s.n[1], nz = s.n[2];
    ptrdiff_t n0 = 0, s0 = 0, n1 = 0, s1 = 0;
    const ptrdiff_t alloc = Api::local_size(nz, ny, nx, s.comm, &n0, &s0, &n1, &s1);  // reals
    local_nz_ = n0;
    z0_ = s0;
    spec_count_ = static_cast<std::size_t>(n1 * nz * nx);
    const std::size_t bytes = std::max<std::size_t>(sizeof(T) * alloc, 64);
    in_ = Api::alloc(bytes);
    res_ = Api::alloc(bytes);
    spec_ = Api::alloc(bytes);
    unsigned long long mine = 3 * bytes, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s.comm);
    data_bytes_ = most;
    const unsigned effort = fftw_effort(s.effort);
    // FFTW's dimensions are n0 = z, n1 = y, n2 = x.
    const int fk[3] = {fftw_kind(s.kinds[2]), fftw_kind(s.kinds[1]),
                       fftw_kind(s.kinds[0])};
    const int bk[3] = {fftw_kind(fft::inverse(s.kinds[2])), fftw_kind(fft::inverse(s.kinds[1])),
                       fftw_kind(fft::inverse(s.kinds[0]))};
    Api::threads(s.threads);
    fwd_ = Api::r2r(nz, ny, nx, static_cast<T*>(in_), static_cast<T*>(spec_), s.comm, fk, effort | FFTW_MPI_TRANSPOSED_OUT);
    bwd_ = Api::r2r(nz, ny, nx, static_cast<T*>(spec_), static_cast<T*>(res_), s.comm, bk, effort | FFTW_MPI_TRANSPOSED_IN);
    if (!fwd_ || !bwd_) throw Error("FFTW-MPI could not plan the r2r baseline transform");
    scale_ = 1;
    for (int d = 0; d < 3; ++d) scale_ /= fft::logical_size(s.kinds[d], s.n[d]);
    for (ptrdiff_t z = 0; z < local_nz_; ++z)  // after planning, which may overwrite the arrays
      for (ptrdiff_t y = 0; y < ny; ++y)
        for (ptrdiff_t x = 0; x < nx; ++x)
          static_cast<T*>(in_)[(z * ny + y) * nx + x] = static_cast<T>(field_.re(x, y, z0_ + z));
  }
  std::string kind_words() const override { return "r2r kinds " + fft::kinds_str(s_.kinds); }

  void iterate(fft::Timings& t) override {
    fft::PhaseClock clk(&t);
    for (int v = 0; v < s_.fields; ++v) {
      Api::execute(fwd_);
      T* sp = static_cast<T*>(spec_);
      const T sc = static_cast<T>(scale_);
      for (std::size_t k = 0; k < spec_count_; ++k) sp[k] *= sc;
      Api::execute(bwd_);
    }
    clk.mark(&fft::Timings::total);
  }

  double local_error() const override {
    double e = 0;
    const ptrdiff_t nx = s_.n[0], ny = s_.n[1];
    for (ptrdiff_t z = 0; z < local_nz_; ++z)
      for (ptrdiff_t y = 0; y < ny; ++y)
        for (ptrdiff_t x = 0; x < nx; ++x)
          e = std::max(e, std::abs(static_cast<double>(static_cast<T*>(res_)[(z * ny + y) * nx + x]) -
                                   field_.re(x, y, z0_ + z)));
    return e;
  }

 private:
  double scale_ = 1;
};

}  // namespace

std::unique_ptr<Runner> make_fftw_mpi(const BaselineSpec& spec) {
  if (fft::any_r2r(spec.kinds)) {
    if (!fft::all_r2r(spec.kinds) || spec.transform != fft::TransformKind::R2C)
      throw Error("--baseline fftw-mpi: FFTW-MPI's baseline runs real data with every axis r2r or every axis "
                  "periodic, not kinds " + fft::kinds_str(spec.kinds) + " (" + fft::name(spec.transform) + ")",
                  ErrorCode::Unavailable);
    if (spec.precision == fft::Precision::Double) return std::make_unique<FftwMpiR2rRunner<double>>(spec);
    return std::make_unique<FftwMpiR2rRunner<float>>(spec);
  }
  if (spec.precision == fft::Precision::Double) return std::make_unique<FftwMpiRunner<double>>(spec);
  return std::make_unique<FftwMpiRunner<float>>(spec);
}

bool fftw_mpi_available() { return true; }

void fftw_mpi_init() {
  // FFTW's threads first (its documentation's order), so --threads reaches the baseline too.
  if (!::fftw_init_threads() || !::fftwf_init_threads())
    throw Error("FFTW could not start its threads", ErrorCode::Unavailable);
  ::fftw_mpi_init();
  ::fftwf_mpi_init();
}

void fftw_mpi_cleanup() {
  ::fftw_mpi_cleanup();
  ::fftwf_mpi_cleanup();
  ::fftw_cleanup_threads();
  ::fftwf_cleanup_threads();
}

}  // namespace nbfft::sine
