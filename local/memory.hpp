// Memory for the data the local transforms and the exchanges touch: allocated and freed here
// only, aligned for every backend's SIMD, with huge pages asked for where they pay, and
// counted (memory_count) so tests can see what plans and the tuner hold without measuring
// RSS, which other allocations and the OS make noisy.
//
// Alignment: 64 bytes (a cache line; FFTW needs 16 or 32, MKL recommends 64). From 4 MiB on,
// 2 MiB boundaries and transparent huge pages: an FFT along a strided axis touches one page
// per point, and 4 KiB pages made FFTW's 8192^2 r2c 1.7x slower (docs/performance.md "N-D
// plans").
#pragma once

#include <cstddef>
#include <memory>

namespace nbfft::local {

constexpr std::size_t kAlignment = 64;

// At least one cache line even for 0 bytes (empty ranks still get pointers to bind);
// nullptr when out of memory. Not zeroed.
void* allocate(std::size_t bytes) noexcept;
void release(void* p, std::size_t bytes) noexcept;  // bytes: as allocated

// An owned allocation, moved around like unique_ptr; get() is nullptr when empty.
class Bytes {
 public:
  Bytes() = default;
  // Throws Error(OutOfMemory) naming `what` and the size.
  Bytes(std::size_t bytes, const char* what);
  Bytes(Bytes&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  Bytes& operator=(Bytes&& o) noexcept;
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() { reset(); }
  // Like the constructor, but empty (get() == nullptr) instead of throwing.
  static Bytes try_allocate(std::size_t bytes) noexcept;
  unsigned char* get() const { return static_cast<unsigned char*>(p_); }
  std::size_t bytes() const { return n_; }
  explicit operator bool() const { return p_ != nullptr; }
  void reset() noexcept;

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

// A shared allocation (several workspaces may hold one buffer, as the lean plans do).
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t bytes, const char* what = "FFT workspace");
  void* get() const { return p_ ? p_->get() : nullptr; }
  std::size_t bytes() const { return p_ ? p_->bytes() : 0; }

 private:
  std::shared_ptr<Bytes> p_;
};

// Bytes allocated here and not yet released, and their high-water mark.
struct MemoryCount {
  std::size_t bytes = 0, peak = 0;
};
MemoryCount memory_count();
void reset_memory_peak();  // peak := the current bytes

}  // namespace nbfft::local
