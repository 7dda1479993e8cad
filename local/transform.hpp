// The local-transform layer: every FFT nbfft runs inside one rank goes through here.
//
// A stage describes what it transforms (a Problem: the transformed dims and the batch loops,
// strided, as the stage's buffers lie) and asks a backend to plan it once; the Transform it
// gets back runs on new arrays of the same layout with a const, allocation-free execute().
// The backends (local/fftw.cpp, local/mkl.cpp) are the only files that name a library;
// local/backend.cpp lists the ones built. Above this layer nothing knows which library ran.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nbfft::local {

// The local FFT libraries; which ones are compiled in is built() / built_backends().
enum class Backend : int { Fftw = 0, Mkl = 1 };
constexpr int kBackends = 2;

// Forward/Backward: c2c, sign -1/+1. R2C: real input, n/2+1 complex outputs along the last
// dim. C2R: the inverse (unnormalized, like every kind here). R2R: the real-to-real kinds.
enum class Kind { Forward, Backward, R2C, C2R, R2R };

// The real-to-real kinds (forward transforms; the inverse of Dct2 is Dct3, and so on). Their
// unnormalized definitions are FFTW's REDFT00..11 / RODFT00..11 (nbfft/fft/r2r_kinds.hpp).
enum class R2r { Dct1, Dct2, Dct3, Dct4, Dst1, Dst2, Dst3, Dst4 };

// One dimension of a layout: n points, input and output strides in elements (real T for the
// input of r2c / the output of c2r and for r2r, complex<T> otherwise).
struct Dim {
  std::int64_t n;
  std::int64_t is;
  std::int64_t os;
};

// How hard a backend may search for a fast plan; backends without a planner ignore it.
enum class Effort { Estimate, Measure, Patient, Exhaustive };

// Whether an out-of-place transform may overwrite its input (c2r always may on some backends).
enum class Input { Any, Preserve, Destroy };

struct Problem {
  Kind kind = Kind::Forward;
  std::vector<Dim> dims;   // transformed (row-major: r2c halves the last); at least one
  std::vector<Dim> loops;  // batch loops around them, any number
  std::vector<R2r> r2r;    // one per dim, for Kind::R2R
  Input input = Input::Any;
};
std::string describe(const Problem& p);  // "r2c of 64 x 33, loops 8 (strides ...)": for errors

// A backend's planned transform (implemented in the backend's file).
template <typename T>
class Executor {
 public:
  virtual ~Executor() = default;
  virtual void execute(void* in, void* out) const = 0;
};

template <typename T>
class Transform {
 public:
  Transform() = default;
  // Plans `p` on `backend` using plan_in / plan_out as sample arrays (a measuring planner
  // overwrites them; they must be as large as the layout reaches). A problem with a zero
  // extent stays empty (execute does nothing). Throws Error(Unavailable) naming the backend
  // and the problem when the backend is not built or cannot plan it, OutOfMemory when the
  // layout reaches beyond the address space.
  Transform(Backend backend, const Problem& p, void* plan_in, void* plan_out, Effort effort);

  // Runs on new arrays laid out as planned; in == out iff planned in place. Any alignment.
  void execute(void* in, void* out) const {
    if (exec_) exec_->execute(in, out);
  }
  bool empty() const { return !exec_; }  // nothing to run (none planned, or a zero extent)
  // Whether a problem was planned at all (true also for a zero extent on this rank).
  explicit operator bool() const { return planned_; }
  bool in_place() const { return in_place_; }
  Backend backend() const { return backend_; }

 private:
  std::shared_ptr<const Executor<T>> exec_;
  Backend backend_ = Backend::Fftw;
  bool in_place_ = false;
  bool planned_ = false;
};

extern template class Transform<double>;
extern template class Transform<float>;

// ---- backends -------------------------------------------------------------------------

const char* name(Backend b);  // "fftw", "mkl"
// Parses "fftw" / "mkl" (case-insensitive); throws InvalidArgument listing the names.
Backend parse_backend(const std::string& s);
bool built(Backend b);
std::vector<Backend> built_backends();
// FFTW when built (the one every result was first checked against), else the first built.
Backend default_backend();
// Throws Unavailable naming the backends this build has when b is not among them.
void require_built(Backend b);
// "FFTW 3.3.10 (double), ..." for build_info.
std::string version(Backend b);
// Whether b runs the real-to-real kinds natively (else they run through its complex DFT,
// local/r2r_by_dft.cpp: correct, several times slower).
bool supports_r2r(Backend b);

// Bytes p lies off the alignment on which b's plans run fastest for element type T (0:
// aligned). Stages compare it between a plan's sample arrays and the arrays they run on.
template <typename T>
int misalignment(Backend b, const void* p);

// A backend's planning knowledge (FFTW's wisdom), as text, per precision ("" if it has none);
// import returns false when the text is not the backend's.
std::string export_knowledge(Backend b, bool single);
bool import_knowledge(Backend b, bool single, const std::string& text);

}  // namespace nbfft::local
