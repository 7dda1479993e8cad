// Internal to the engines: drive a request and publish its completion.
#pragma once

#include "nbfft/coll/engine.hpp"

namespace nbfft::coll::detail {

// Marks a request finished (successfully or with `error`). The busy flag of its collective
// is cleared first, so a host that sees `done` may start the collective again at once.
inline void finish(RequestState& st, std::exception_ptr error) {
  st.error = error;
  if (st.collective_busy) st.collective_busy->store(false, std::memory_order_release);
  st.done.store(true, std::memory_order_release);
}

// One advance of a request; an exception becomes the request's error and finishes it.
inline RequestState::Step drive(RequestState& st) {
  try {
    RequestState::Step s = st.advance();
    if (s == RequestState::Step::Done) finish(st, nullptr);
    return s;
  } catch (...) {
    finish(st, std::current_exception());
    return RequestState::Step::Done;
  }
}

}  // namespace nbfft::coll::detail
