#include "local/memory.hpp"

#include "nbfft/error.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <sys/mman.h>

namespace nbfft::local {

namespace {

std::atomic<std::size_t> live{0}, high{0};

constexpr std::size_t kHuge = std::size_t{2} << 20;

std::size_t footprint(std::size_t bytes) { return std::max<std::size_t>(bytes, kAlignment); }

}  // namespace

void* allocate(std::size_t bytes) noexcept {
  const std::size_t n = footprint(bytes);
  const std::size_t align = n >= 2 * kHuge ? kHuge : kAlignment;
  void* p = nullptr;
  if (posix_memalign(&p, align, n) != 0) return nullptr;
#ifdef MADV_HUGEPAGE
  if (align == kHuge) madvise(p, n, MADV_HUGEPAGE);  // a hint: refused, the pages stay small
#endif
  const std::size_t now = live += bytes;  // counted as asked (the stats match workspace_bytes())
  std::size_t seen = high.load();
  while (now > seen && !high.compare_exchange_weak(seen, now)) {
  }
  return p;
}

void release(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  live -= bytes;
  std::free(p);
}

Bytes::Bytes(std::size_t bytes, const char* what) : p_(allocate(bytes)), n_(bytes) {
  if (!p_)
    throw Error(std::string("out of memory allocating ") + std::to_string(bytes) + " bytes of " + what,
                ErrorCode::OutOfMemory);
}

Bytes Bytes::try_allocate(std::size_t bytes) noexcept {
  Bytes b;
  b.p_ = allocate(bytes);
  b.n_ = b.p_ ? bytes : 0;
  return b;
}

Bytes& Bytes::operator=(Bytes&& o) noexcept {
  if (this != &o) {
    reset();
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

void Bytes::reset() noexcept {
  release(p_, n_);
  p_ = nullptr;
  n_ = 0;
}

Buffer::Buffer(std::size_t bytes, const char* what) : p_(std::make_shared<Bytes>(bytes, what)) {}

MemoryCount memory_count() { return {live.load(), high.load()}; }

void reset_memory_peak() { high = live.load(); }

}  // namespace nbfft::local
