// The one handle for everything nbfft starts now and finishes later: a split-phase
// transform of any plan (fft::Plan, nd::Plan), a transpose (fft::Pencils), a background
// write (io::H5File). Every start returns a Request; the classes' own names for it
// (Plan::Pending, Pencils::Pending, H5File::Pending) are this type.
//
//   nbfft::Request r = plan.forward_start(u, U);
//   compute();              // the exchange travels meanwhile (r.progress() now and then
//   r.wait();               //  moves it on a caller engine)
//
// progress() gives what is in flight a host progress pass; test() does so and says whether
// it has arrived (a transform's wait() may still have stages to run); wait() finishes it
// and makes the request inactive. Whether wait() is collective is the starting call's rule
// (its header says). Destroying or assigning over an active Request finishes it as its
// kind must (a transform is waited for; a write completes this rank's part) and never
// throws. The C API's nbfft_request, Fortran's type(nbfft_request) and Python's
// nbfft.Request hold one.
#pragma once

#include <memory>

namespace nbfft {

class Request {
 public:
  // What each kind of operation implements (the front ends only see Request).
  class Impl {
   public:
    virtual ~Impl() = default;
    virtual bool active() const = 0;  // started and not yet finished
    // Holds an operation this handle has not yet waited for (a write settled by another
    // rank's wait is inactive but still valid until waited for here).
    virtual bool valid() const { return active(); }
    virtual void progress() = 0;
    virtual bool test() = 0;
    virtual void wait() = 0;
    // The handle goes away while valid: finish as this kind must, without throwing.
    virtual void drop() noexcept;
  };

  Request() = default;
  explicit Request(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  ~Request();
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  bool active() const { return impl_ && impl_->active(); }
  bool valid() const { return impl_ && impl_->valid(); }
  void progress();
  bool test();
  void wait();

  // The operation behind the handle, for the library's own front ends (nullptr: none).
  Impl* impl() const { return impl_.get(); }

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace nbfft
