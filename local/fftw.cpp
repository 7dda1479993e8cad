// The FFTW backend: every fftw_* call of nbfft is in this file.
//
// A Transform is one guru64 plan made on the sample arrays, executed on new arrays through
// FFTW's new-array execute. That requires the arrays to have the alignment of the planning
// arrays; when they do not (a float plane at an odd offset, a user array from a plain
// allocator), the call falls back to a second plan made with FFTW_UNALIGNED. Both are made
// at planning time, so execute() is const and allocation-free.
//
// Intel MKL's libraries export FFTW3's API as wrappers around DFTI (no r2r, other semantics;
// see local/CMakeLists.txt). A program that loads MKL before libfftw3 would have these fftw_*
// calls resolve into MKL: plan() checks whose fftw_version it sees and refuses to plan when it
// is not FFTW's.
#include "local/backend.hpp"

#include "nbfft/error.hpp"

#include <dlfcn.h>
#include <fftw3.h>

#include <complex>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

namespace nbfft::local::detail {

namespace {

// The fftw_* / fftwf_* entry points by precision, so the backend is written once.
template <typename T>
struct Api;

template <>
struct Api<double> {
  using plan = fftw_plan;
  using cplx = fftw_complex;
  using iodim = fftw_iodim64;
  static plan dft(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, int sign, unsigned f) {
    return fftw_plan_guru64_dft(r, d, hr, h, static_cast<cplx*>(in), static_cast<cplx*>(out), sign, f);
  }
  static plan r2c(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, unsigned f) {
    return fftw_plan_guru64_dft_r2c(r, d, hr, h, static_cast<double*>(in), static_cast<cplx*>(out), f);
  }
  static plan c2r(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, unsigned f) {
    return fftw_plan_guru64_dft_c2r(r, d, hr, h, static_cast<cplx*>(in), static_cast<double*>(out), f);
  }
  static plan r2r(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, const fftw_r2r_kind* k,
                  unsigned f) {
    return fftw_plan_guru64_r2r(r, d, hr, h, static_cast<double*>(in), static_cast<double*>(out), k, f);
  }
  static void exec_dft(plan p, void* in, void* out) {
    fftw_execute_dft(p, static_cast<cplx*>(in), static_cast<cplx*>(out));
  }
  static void exec_r2c(plan p, void* in, void* out) {
    fftw_execute_dft_r2c(p, static_cast<double*>(in), static_cast<cplx*>(out));
  }
  static void exec_c2r(plan p, void* in, void* out) {
    fftw_execute_dft_c2r(p, static_cast<cplx*>(in), static_cast<double*>(out));
  }
  static void exec_r2r(plan p, void* in, void* out) {
    fftw_execute_r2r(p, static_cast<double*>(in), static_cast<double*>(out));
  }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static int alignment_of(const void* p) { return fftw_alignment_of(static_cast<double*>(const_cast<void*>(p))); }
  static char* export_wisdom() { return fftw_export_wisdom_to_string(); }
  static int import_wisdom(const char* s) { return fftw_import_wisdom_from_string(s); }
  static const char* version_text() { return fftw_version; }
  static const void* entry_point() { return reinterpret_cast<const void*>(&fftw_plan_guru64_dft); }
};

template <>
struct Api<float> {
  using plan = fftwf_plan;
  using cplx = fftwf_complex;
  using iodim = fftwf_iodim64;
  static plan dft(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, int sign, unsigned f) {
    return fftwf_plan_guru64_dft(r, d, hr, h, static_cast<cplx*>(in), static_cast<cplx*>(out), sign, f);
  }
  static plan r2c(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, unsigned f) {
    return fftwf_plan_guru64_dft_r2c(r, d, hr, h, static_cast<float*>(in), static_cast<cplx*>(out), f);
  }
  static plan c2r(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, unsigned f) {
    return fftwf_plan_guru64_dft_c2r(r, d, hr, h, static_cast<cplx*>(in), static_cast<float*>(out), f);
  }
  static plan r2r(int r, const iodim* d, int hr, const iodim* h, void* in, void* out, const fftw_r2r_kind* k,
                  unsigned f) {
    return fftwf_plan_guru64_r2r(r, d, hr, h, static_cast<float*>(in), static_cast<float*>(out), k, f);
  }
  static void exec_dft(plan p, void* in, void* out) {
    fftwf_execute_dft(p, static_cast<cplx*>(in), static_cast<cplx*>(out));
  }
  static void exec_r2c(plan p, void* in, void* out) {
    fftwf_execute_dft_r2c(p, static_cast<float*>(in), static_cast<cplx*>(out));
  }
  static void exec_c2r(plan p, void* in, void* out) {
    fftwf_execute_dft_c2r(p, static_cast<cplx*>(in), static_cast<float*>(out));
  }
  static void exec_r2r(plan p, void* in, void* out) {
    fftwf_execute_r2r(p, static_cast<float*>(in), static_cast<float*>(out));
  }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static int alignment_of(const void* p) { return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p))); }
  static char* export_wisdom() { return fftwf_export_wisdom_to_string(); }
  static int import_wisdom(const char* s) { return fftwf_import_wisdom_from_string(s); }
  static const char* version_text() { return fftwf_version; }
  static const void* entry_point() { return reinterpret_cast<const void*>(&fftwf_plan_guru64_dft); }
};

// "" when FFTW's API is libfftw3's, else a sentence naming the library it resolves into.
// MKL defines fftw_version too ("FFTW 3.3.4 wrappers to Intel oneMKL"), and every name
// resolves in the same first object that defines it, so the version text tells whose
// fftw_plan_* these are; real FFTW's reads "fftw-3.x.y...".
template <typename T>
std::string foreign_api() {
  const char* text = Api<T>::version_text();
  if (std::strncmp(text, "fftw-", 5) == 0) return std::string();
  Dl_info at{};
  const std::string where =
      dladdr(Api<T>::entry_point(), &at) && at.dli_fname ? std::string(at.dli_fname) : std::string("another library");
  return "the local FFT backend 'fftw' cannot plan: FFTW's API resolves into " + where + " (\"" + text +
         "\"), not into libfftw3: a library loaded before libfftw3 exports FFTW's API (Intel MKL does); link "
         "libfftw3 before it";
}

unsigned effort_flags(Effort e) {
  switch (e) {
    case Effort::Estimate: return FFTW_ESTIMATE;
    case Effort::Measure: return FFTW_MEASURE;
    case Effort::Patient: return FFTW_PATIENT;
    case Effort::Exhaustive: return FFTW_EXHAUSTIVE;
  }
  return FFTW_ESTIMATE;
}

fftw_r2r_kind r2r_kind(R2r k) {
  switch (k) {
    case R2r::Dct1: return FFTW_REDFT00;
    case R2r::Dct2: return FFTW_REDFT10;
    case R2r::Dct3: return FFTW_REDFT01;
    case R2r::Dct4: return FFTW_REDFT11;
    case R2r::Dst1: return FFTW_RODFT00;
    case R2r::Dst2: return FFTW_RODFT10;
    case R2r::Dst3: return FFTW_RODFT01;
    case R2r::Dst4: return FFTW_RODFT11;
  }
  return FFTW_REDFT10;
}

template <typename T>
typename Api<T>::plan make_plan(const Problem& p, void* in, void* out, unsigned flags) {
  using A = Api<T>;
  std::vector<typename A::iodim> d, h;
  for (const Dim& x : p.dims) d.push_back({x.n, x.is, x.os});
  for (const Dim& x : p.loops) h.push_back({x.n, x.is, x.os});
  const int r = static_cast<int>(d.size()), hr = static_cast<int>(h.size());
  if (p.input == Input::Preserve) flags |= FFTW_PRESERVE_INPUT;
  if (p.input == Input::Destroy) flags |= FFTW_DESTROY_INPUT;
  switch (p.kind) {
    case Kind::Forward:
    case Kind::Backward:
      return A::dft(r, d.data(), hr, h.data(), in, out, p.kind == Kind::Forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
    case Kind::R2C: return A::r2c(r, d.data(), hr, h.data(), in, out, flags);
    case Kind::C2R: return A::c2r(r, d.data(), hr, h.data(), in, out, flags);
    case Kind::R2R: {
      std::vector<fftw_r2r_kind> k;
      for (R2r x : p.r2r) k.push_back(r2r_kind(x));
      return A::r2r(r, d.data(), hr, h.data(), in, out, k.data(), flags);
    }
  }
  return nullptr;
}

template <typename T>
class FftwTransform final : public Executor<T> {
 public:
  using A = Api<T>;
  // Returns false when FFTW cannot plan it (the caller reports Unavailable).
  bool plan(Problem p, void* in, void* out, Effort effort) {
    kind_ = p.kind;
    const unsigned flags = effort_flags(effort);
    // Single precision c2c: FFTW's SIMD codelets take unit-stride columns four at a time
    // (AVX) and apply only when the loop's count is a multiple of that, so 65 columns of a
    // plane (r2c's nx/2 + 1 at nx = 128) ran scalar: 12.1 us a 128-point plane against
    // 4.4 us for 64 columns (+0.14 us for one). The last n % 4 columns get a plan of their
    // own. Columns are independent, so the result is the same whatever the split. Double
    // precision measured the same either way (5.9 us / 5.6 + 0.16 us) and is left whole.
    if constexpr (std::is_same_v<T, float>) {
      if ((p.kind == Kind::Forward || p.kind == Kind::Backward) && p.dims.size() == 1)
        for (std::size_t i = 0; i < p.loops.size(); ++i)
          if (p.loops[i].is == 1 && p.loops[i].os == 1 && p.loops[i].n > 4 && p.loops[i].n % 4 != 0) {
            const std::int64_t rest = p.loops[i].n % 4;
            tail_in_ = tail_out_ = static_cast<std::int64_t>(sizeof(std::complex<T>)) * (p.loops[i].n - rest);
            Problem tp = p;
            tp.loops[i].n = rest;
            tail_ = std::make_unique<FftwTransform>();
            if (!tail_->plan(tp, static_cast<char*>(in) + tail_in_, static_cast<char*>(out) + tail_out_, effort))
              return false;
            p.loops[i].n -= rest;
            break;
          }
    }
    align_in_ = A::alignment_of(in);
    align_out_ = A::alignment_of(out);
    aligned_ = make_plan<T>(p, in, out, flags);
    // Estimate-only planning never touches the arrays, so this is safe after measuring.
    unaligned_ = make_plan<T>(p, in, out, FFTW_ESTIMATE | FFTW_UNALIGNED);
    return aligned_ && unaligned_;
  }
  ~FftwTransform() override {
    if (aligned_) A::destroy(aligned_);
    if (unaligned_) A::destroy(unaligned_);
  }
  void execute(void* in, void* out) const override {
    const bool same = A::alignment_of(in) == align_in_ && A::alignment_of(out) == align_out_;
    const auto p = same ? aligned_ : unaligned_;
    switch (kind_) {
      case Kind::Forward:
      case Kind::Backward: A::exec_dft(p, in, out); break;
      case Kind::R2C: A::exec_r2c(p, in, out); break;
      case Kind::C2R: A::exec_c2r(p, in, out); break;
      case Kind::R2R: A::exec_r2r(p, in, out); break;
    }
    if (tail_) tail_->execute(static_cast<char*>(in) + tail_in_, static_cast<char*>(out) + tail_out_);
  }

 private:
  Kind kind_ = Kind::Forward;
  typename A::plan aligned_ = nullptr, unaligned_ = nullptr;
  int align_in_ = 0, align_out_ = 0;
  std::unique_ptr<FftwTransform> tail_;
  std::int64_t tail_in_ = 0, tail_out_ = 0;
};

template <typename T>
std::unique_ptr<Executor<T>> plan(const Problem& p, void* in, void* out, Effort effort) {
  static const std::string foreign = foreign_api<T>();
  if (!foreign.empty()) throw Error(foreign, ErrorCode::Unavailable);
  auto t = std::make_unique<FftwTransform<T>>();
  if (!t->plan(p, in, out, effort)) return nullptr;
  return t;
}

template <typename T>
int misalignment(const void* p) {
  return Api<T>::alignment_of(p);
}

std::string take(char* s) {
  std::string r = s ? s : "";
  std::free(s);  // FFTW allocates the exported text with malloc
  return r;
}

std::string export_knowledge(bool single) {
  return take(single ? Api<float>::export_wisdom() : Api<double>::export_wisdom());
}

bool import_knowledge(bool single, const std::string& text) {
  return (single ? Api<float>::import_wisdom(text.c_str()) : Api<double>::import_wisdom(text.c_str())) != 0;
}

std::string version() { return std::string(fftw_version) + " (double), " + fftwf_version + " (single)"; }

}  // namespace

const Ops& fftw_ops() {
  static const Ops ops{Backend::Fftw,   true,           plan<double>,     plan<float>,
                       misalignment<double>, misalignment<float>, export_knowledge, import_knowledge, version};
  return ops;
}

}  // namespace nbfft::local::detail
