// nbfft::Request: the one handle of every split-phase operation (include/nbfft/request.hpp).
#include "nbfft/request.hpp"

#include "nbfft/error.hpp"

#include <string>

namespace nbfft {

namespace {
[[noreturn]] void none(const char* call) {
  throw Error(std::string("Request::") + call +
                  ": no operation in flight: not active (never started, moved from, or already waited for)",
              ErrorCode::InvalidState);
}
}  // namespace

void Request::Impl::drop() noexcept {
  if (!active()) return;
  try {
    wait();
  } catch (...) {
    // A destructor must not throw; the failure reached every rank through the operation's
    // own agreement, or surfaces in the next collective call.
  }
}

Request::~Request() {
  if (impl_ && impl_->valid()) impl_->drop();
}

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    Request gone(std::move(*this));  // finishes what this held
    impl_ = std::move(other.impl_);
  }
  return *this;
}

void Request::progress() {
  if (!impl_) none("progress");
  impl_->progress();
}

bool Request::test() {
  if (!impl_) none("test");
  return impl_->test();
}

void Request::wait() {
  if (!impl_) none("wait");
  impl_->wait();
}

}  // namespace nbfft
