// The C face of nbfft::Request (include/nbfft/nbfft.h, "Requests"): one set of calls for
// every split-phase operation, whichever *_start made it.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "capi/handles.hpp"

using nbfft::capi::guard;
using nbfft::capi::request_of;

extern "C" {

nbfft_status nbfft_progress(nbfft_request request) {
  return guard("nbfft_progress", [&] { request_of(request).request.progress(); });
}

nbfft_status nbfft_test(nbfft_request request, int* done) {
  return guard("nbfft_test", [&] {
    const bool d = request_of(request).request.test();
    if (done) *done = d ? 1 : 0;
  });
}

nbfft_status nbfft_wait(nbfft_request* request) {
  return guard("nbfft_wait", [&] { nbfft::capi::wait_request(request); });
}

nbfft_status nbfft_request_free(nbfft_request* request) {
  // Destroying it finishes the operation as C++'s destructor of a Request does.
  return guard("nbfft_request_free",
               [&] { nbfft::capi::free_handle<nbfft_request_s>(request, "the request"); });
}

}  // extern "C"
