// The Intel MKL backend: every DFTI call of nbfft is in this file (the only one that includes
// mkl_dfti.h).
//
// A Transform is one committed DFTI descriptor. DFTI takes the transformed dims with strides
// and ONE batch loop (DFTI_NUMBER_OF_TRANSFORMS with a distance); the descriptor gets the
// problem's longest loop and execute() runs the others as nested loops around it (recursion
// over a vector made at planning: no allocation when it runs).
//
// Semantics kept equal to the FFTW backend's:
// - unnormalized both ways (DFTI's default scales are 1);
// - c2c forward / backward are DftiComputeForward / DftiComputeBackward on one DFTI_COMPLEX
//   descriptor; r2c and c2r are the forward / backward of a DFTI_REAL one whose complex side
//   is stored as n/2 + 1 complex values (DFTI_CONJUGATE_EVEN_STORAGE = DFTI_COMPLEX_COMPLEX);
// - input: FFTW keeps the input of out-of-place c2c / r2c by default and may destroy a c2r's;
//   DFTI_DESTROY_INPUT is set to match (DFTI_AVOID keeps it), and Input::Preserve always asks
//   DFTI_AVOID, Input::Destroy DFTI_ALLOW. tests/local checks Preserve bit for bit.
// Effort is ignored: DFTI has no planner to run longer (the commit chooses the method).
// r2r: DFTI has no DCT/DST, so Ops.r2r is false and the seam runs them through this backend's
// c2c (local/r2r_by_dft.cpp).
//
// Threads: nbfft runs one committed Transform from several threads at once on different
// arrays. The developer reference's threading examples use one descriptor per thread; the
// way MKL provides for a descriptor shared by user threads is DFTI_NUMBER_OF_USER_THREADS
// (mkl_dfti.h: "number of user threads that share the descriptor", default 1). So the
// descriptor is told: that count is set to the machine's hardware threads (nbfft's default
// per rank is no more), DFTI_THREAD_LIMIT = 1 and the sequential layer keep each compute in
// its calling thread. tests/local (ConcurrentExecuteMatchesOneThread) runs one descriptor
// from two threads and compares bit for bit with one thread.
#include "local/backend.hpp"

#include "nbfft/error.hpp"

#include <mkl_dfti.h>
#include <mkl_service.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace nbfft::local::detail {

namespace {

bool ok(MKL_LONG status) { return status == DFTI_NO_ERROR; }

MKL_LONG user_threads() { return static_cast<MKL_LONG>(std::max(1u, std::thread::hardware_concurrency())); }

// DFTI's strides array: a leading offset (0) then one stride per transformed dim.
std::vector<MKL_LONG> strides(const std::vector<Dim>& dims, bool input) {
  std::vector<MKL_LONG> s{0};
  for (const Dim& d : dims) s.push_back(static_cast<MKL_LONG>(input ? d.is : d.os));
  return s;
}

template <typename T>
class MklTransform final : public Executor<T> {
 public:
  ~MklTransform() override {
    if (desc_) DftiFreeDescriptor(&desc_);
  }

  // False when DFTI refuses the problem (the seam reports Unavailable with the problem).
  bool plan(const Problem& p, void* in, void* out) {
    kind_ = p.kind;
    in_place_ = in == out;
    const bool real = p.kind == Kind::R2C || p.kind == Kind::C2R;
    // Element sizes of the input and output arrays, for the explicit loops' offsets.
    const std::ptrdiff_t real_size = sizeof(T), complex_size = sizeof(std::complex<T>);
    in_bytes_ = p.kind == Kind::R2C ? real_size : complex_size;
    out_bytes_ = p.kind == Kind::C2R ? real_size : complex_size;

    // The longest loop goes to DFTI, the rest (in the problem's order) to execute().
    std::vector<Dim> loops = p.loops;
    Dim batch{1, 0, 0};
    if (!loops.empty()) {
      auto longest = std::max_element(loops.begin(), loops.end(), [](const Dim& a, const Dim& b) { return a.n < b.n; });
      batch = *longest;
      loops.erase(longest);
    }
    outer_ = loops;

    std::vector<MKL_LONG> lengths;
    for (const Dim& d : p.dims) lengths.push_back(static_cast<MKL_LONG>(d.n));
    const auto precision = std::is_same_v<T, double> ? DFTI_DOUBLE : DFTI_SINGLE;
    const auto domain = real ? DFTI_REAL : DFTI_COMPLEX;
    const MKL_LONG rank = static_cast<MKL_LONG>(lengths.size());
    const MKL_LONG created = rank == 1 ? DftiCreateDescriptor(&desc_, precision, domain, 1, lengths[0])
                                       : DftiCreateDescriptor(&desc_, precision, domain, rank, lengths.data());
    if (!ok(created)) return false;

    // The forward domain is the input of c2c forward and r2c, the output of c2c backward and
    // c2r; the backward domain the other side.
    const bool input_is_forward = p.kind == Kind::Forward || p.kind == Kind::R2C;
    std::vector<MKL_LONG> fwd = strides(p.dims, input_is_forward), bwd = strides(p.dims, !input_is_forward);
    const MKL_LONG fwd_distance = input_is_forward ? batch.is : batch.os;
    const MKL_LONG bwd_distance = input_is_forward ? batch.os : batch.is;
    // FFTW's defaults for Input::Any: keep the input except of c2r.
    const bool keep_input = p.input == Input::Preserve || (p.input == Input::Any && p.kind != Kind::C2R);
    bool set = ok(DftiSetValue(desc_, DFTI_PLACEMENT, in_place_ ? DFTI_INPLACE : DFTI_NOT_INPLACE)) &&
               ok(DftiSetValue(desc_, DFTI_FWD_STRIDES, fwd.data())) &&
               ok(DftiSetValue(desc_, DFTI_BWD_STRIDES, bwd.data())) &&
               ok(DftiSetValue(desc_, DFTI_NUMBER_OF_TRANSFORMS, static_cast<MKL_LONG>(batch.n))) &&
               ok(DftiSetValue(desc_, DFTI_THREAD_LIMIT, static_cast<MKL_LONG>(1))) &&
               ok(DftiSetValue(desc_, DFTI_NUMBER_OF_USER_THREADS, user_threads()));
    if (set && batch.n > 1)
      set = ok(DftiSetValue(desc_, DFTI_FWD_DISTANCE, fwd_distance)) &&
            ok(DftiSetValue(desc_, DFTI_BWD_DISTANCE, bwd_distance));
    if (set && real) set = ok(DftiSetValue(desc_, DFTI_CONJUGATE_EVEN_STORAGE, DFTI_COMPLEX_COMPLEX));
    if (set && !in_place_) set = ok(DftiSetValue(desc_, DFTI_DESTROY_INPUT, keep_input ? DFTI_AVOID : DFTI_ALLOW));
    return set && ok(DftiCommitDescriptor(desc_));
  }

  void execute(void* in, void* out) const override { run(0, static_cast<char*>(in), static_cast<char*>(out)); }

 private:
  void run(std::size_t level, char* in, char* out) const {
    if (level == outer_.size()) return compute(in, out);
    const Dim& l = outer_[level];
    for (std::int64_t i = 0; i < l.n; ++i) run(level + 1, in + i * l.is * in_bytes_, out + i * l.os * out_bytes_);
  }

  void compute(void* in, void* out) const {
    const bool forward = kind_ == Kind::Forward || kind_ == Kind::R2C;
    MKL_LONG status;
    if (in_place_)
      status = forward ? DftiComputeForward(desc_, in) : DftiComputeBackward(desc_, in);
    else
      status = forward ? DftiComputeForward(desc_, in, out) : DftiComputeBackward(desc_, in, out);
    // A committed descriptor fails only on a bug (or memory MKL could not get): say which.
    if (!ok(status))
      throw Error(std::string("the local FFT backend 'mkl' failed to compute a committed transform: ") +
                      DftiErrorMessage(status),
                  ErrorCode::Internal);
  }

  DFTI_DESCRIPTOR_HANDLE desc_ = nullptr;
  Kind kind_ = Kind::Forward;
  bool in_place_ = false;
  std::vector<Dim> outer_;  // the loops DFTI does not take, run by execute()
  std::ptrdiff_t in_bytes_ = 0, out_bytes_ = 0;
};

template <typename T>
std::unique_ptr<Executor<T>> plan(const Problem& p, void* in, void* out, Effort /*no planner*/) {
  if (p.kind == Kind::R2R) return nullptr;  // not reached: the seam sends r2r to local/r2r_by_dft.cpp
  auto t = std::make_unique<MklTransform<T>>();
  if (!t->plan(p, in, out)) return nullptr;
  return t;
}

// DFTI takes any alignment without a second code path to fall back to (FFTW's aligned plan
// against its FFTW_UNALIGNED one): nothing for the stages to compare, so always 0.
template <typename T>
int misalignment(const void*) {
  return 0;
}

// DFTI keeps no planning knowledge between descriptors: nothing to export, nothing to import.
std::string export_knowledge(bool) { return std::string(); }
bool import_knowledge(bool, const std::string&) { return false; }

std::string version() {
  char text[256] = {0};
  mkl_get_version_string(text, static_cast<int>(sizeof text));
  std::string s(text);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

}  // namespace

const Ops& mkl_ops() {
  static const Ops ops{Backend::Mkl,         false, plan<double>, plan<float>, misalignment<double>,
                       misalignment<float>, export_knowledge, import_knowledge, version};
  return ops;
}

}  // namespace nbfft::local::detail
