// The C API's handles, private to capi/: the objects behind nbfft_options, nbfft_plan,
// nbfft_nd_plan, nbfft_pencils and nbfft_h5file, the table that turns a handle into its object, and the checks every entry
// point shares. One header so that each group of entry points (nbfft_c.cpp: plans,
// io.cpp: HDF5 files) is its own file over the same handles.
#pragma once

#include "nbfft/error.hpp"
#include "nbfft/fft/options.hpp"
#include "nbfft/fft/plan.hpp"
#include "nbfft/fft/transpose.hpp"
#include "nbfft/nd/plan.hpp"
#include "nbfft/nbfft.h"
#include "nbfft/request.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

// One options handle for every plan (capi/options_handle.cpp). It keeps the 3-D plan's
// options as parsed and every value set, in order, so that an N-D plan made from it reads
// the keys it takes (nd::set_option) over its own defaults. A value one kind of plan cannot
// take (a 3-D-only key, an N-D plan's batch_axis, kinds for four axes) is kept with that
// plan's reason, which making such a plan from the handle reports.
struct nbfft_options_s {
  // A key as set, and why each kind of plan refuses its value ("": it takes it).
  struct Setting {
    std::string key, value, not_3d, not_nd;
  };
  nbfft::fft::Options o;
  std::vector<Setting> set;  // in the order set, each key once

  // Sets one key: an error (naming the key) only when no plan takes the value.
  void assign(std::string_view key, std::string_view value);
  // The value as the 3-D plan reads it, or as an N-D plan does for a key or value of theirs.
  std::string get(std::string_view key) const;
  // Every row that is not a shorthand as key=value (the tuner's own rows when it runs).
  std::string text() const;
  // The options of each kind of plan; InvalidArgument with the reason for a value it refuses.
  const nbfft::fft::Options& for_3d() const;
  nbfft::nd::Options for_nd() const;

 private:
  const Setting* find(std::string_view key) const;  // nullptr: never set
  nbfft::nd::Options for_nd_unchecked() const;       // the values an N-D plan takes, over its defaults
};

struct nbfft_plan_s {
  nbfft::fft::Plan plan;
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, for gather/scatter and batch checks
  // Split-phase transforms started and not yet waited for (nbfft_plan_destroy refuses then).
  std::shared_ptr<std::atomic<int>> open = std::make_shared<std::atomic<int>>(0);
};

struct nbfft_nd_plan_s {
  nbfft::nd::Plan plan;
  nbfft::nd::Options options;     // as made: the grid as chosen
  MPI_Comm comm = MPI_COMM_NULL;  // private duplicate, for the binding's agreed checks
  // Split-phase transforms started and not yet waited for (nbfft_nd_plan_destroy refuses then).
  std::shared_ptr<std::atomic<int>> open = std::make_shared<std::atomic<int>>(0);
};

struct nbfft_pencils_s {
  nbfft::fft::Pencils p;
};

// Every split-phase operation of the C API (a transform of any plan, a transpose, a
// background write): the one C++ request, and the count of its starting object's open
// requests it is in (null: none kept), decremented once it is waited for or freed.
struct nbfft_request_s {
  nbfft::Request request;
  std::shared_ptr<std::atomic<int>> open;
  nbfft_request_s(nbfft::Request r, std::shared_ptr<std::atomic<int>> count)
      : request(std::move(r)), open(std::move(count)) {
    if (open) ++*open;
  }
  ~nbfft_request_s() {
    if (open) --*open;
  }
  nbfft_request_s(const nbfft_request_s&) = delete;
  nbfft_request_s& operator=(const nbfft_request_s&) = delete;
};

namespace nbfft::capi {

// Handles are not addresses but numbers from one counter that never repeats, looked up in
// a table of live objects. A copy of a handle that was destroyed through another copy is
// then a lookup that fails (InvalidState), never a read of freed memory, and never a
// different object that happens to reuse the address. The tables are never freed: plans
// still alive at exit must not be destroyed after MPI_Finalize by a static destructor.
inline std::mutex g_handles_mutex;
inline std::uintptr_t g_next_handle = 1;

template <typename T>
std::unordered_map<std::uintptr_t, std::unique_ptr<T>>& live() {
  static auto* table = new std::unordered_map<std::uintptr_t, std::unique_ptr<T>>();
  return *table;
}

template <typename Handle, typename T>
Handle add_handle(std::unique_ptr<T> object) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  const std::uintptr_t id = g_next_handle;
  g_next_handle += 2;  // odd: never a valid object address either
  live<T>().emplace(id, std::move(object));
  return reinterpret_cast<Handle>(id);
}

template <typename T, typename Handle>
T* find_handle(Handle h) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  const auto it = live<T>().find(reinterpret_cast<std::uintptr_t>(h));
  return it == live<T>().end() ? nullptr : it->second.get();
}

template <typename T, typename Handle>
std::unique_ptr<T> remove_handle(Handle h) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  const auto it = live<T>().find(reinterpret_cast<std::uintptr_t>(h));
  if (it == live<T>().end()) return nullptr;
  std::unique_ptr<T> object = std::move(it->second);
  live<T>().erase(it);
  return object;
}

inline const char* const kStale = " is not a live handle (destroyed, perhaps through another copy of the handle, "
                           "or never created by nbfft)";

inline nbfft_options_s& options_of(nbfft_options o) {
  if (!o) throw Error("the options are NULL (never created, or destroyed)", ErrorCode::InvalidState);
  nbfft_options_s* p = find_handle<nbfft_options_s>(o);
  if (!p) throw Error(std::string("the options handle") + kStale, ErrorCode::InvalidState);
  return *p;
}

inline const nbfft_options_s& opts_of(nbfft_options o) {
  static const nbfft_options_s defaults{};
  return o ? options_of(o) : defaults;
}

inline nbfft_plan_s& plan_of(nbfft_plan p) {
  if (!p) throw Error("the plan is NULL (never created, or destroyed)", ErrorCode::InvalidState);
  nbfft_plan_s* s = find_handle<nbfft_plan_s>(p);
  if (!s) throw Error(std::string("the plan handle") + kStale, ErrorCode::InvalidState);
  return *s;
}

// The object behind a handle of `what` ("the N-D plan"): NULL or a stale handle is InvalidState.
template <typename T, typename Handle>
T& object_of(Handle h, const char* what) {
  if (!h) throw Error(std::string(what) + " is NULL (never created, or destroyed)", ErrorCode::InvalidState);
  T* s = find_handle<T>(h);
  if (!s) throw Error(std::string(what) + " handle" + kStale, ErrorCode::InvalidState);
  return *s;
}

// A destroy or free that needs nothing else: a NULL pointer is an error, a NULL handle does
// nothing, a stale one is InvalidState; the object is destroyed here (its destructor does
// what it must) and *h = NULL. `what`: "the options", "the layout", ...
template <typename T, typename Handle>
void free_handle(Handle* h, const char* what) {
  if (!h) throw Error(std::string(what) + " pointer is NULL");
  if (!*h) return;
  if (!remove_handle<T>(*h)) throw Error(std::string(what) + " handle" + kStale, ErrorCode::InvalidState);
  *h = nullptr;
}

// A plan with split-phase transforms not yet waited for is not destroyed: they use its work
// areas and the caller's arrays until their wait. `waits` names the calls that finish them.
inline void refuse_while_open(const std::atomic<int>& open, const char* waits) {
  if (open > 0)
    throw Error(std::to_string(open.load()) + " split-phase transform(s) of this plan not yet waited for; call " +
                    waits + " on each first (the plan is left as it was)",
                ErrorCode::InvalidState);
}

inline nbfft_nd_plan_s& nd_plan_of(nbfft_nd_plan p) { return object_of<nbfft_nd_plan_s>(p, "the N-D plan"); }

// The pencils behind a handle (capi/transpose_c.cpp keeps the set of live ones).
nbfft_pencils_s& pencils_of(nbfft_pencils p);

// A new C handle for a request (open: the starting object's count, or null).
inline nbfft_request add_request(nbfft::Request r, std::shared_ptr<std::atomic<int>> open = nullptr) {
  return add_handle<nbfft_request>(std::make_unique<nbfft_request_s>(std::move(r), std::move(open)));
}

inline nbfft_request_s& request_of(nbfft_request r) {
  if (!r) throw Error("the request is NULL (never started, or already waited for)", ErrorCode::InvalidState);
  nbfft_request_s* s = find_handle<nbfft_request_s>(r);
  if (!s)
    throw Error(std::string("the request handle") + kStale + "; was it waited for or freed already?",
                ErrorCode::InvalidState);
  return *s;
}

// nbfft_wait's body: finishes the request and frees its handle (*r = NULL). A wait the
// ranks refused (out of step) leaves the operation active: the handle stays, to be waited
// for again in step.
inline void wait_request(nbfft_request* r) {
  if (!r) throw Error("the request pointer is NULL");
  nbfft_request_s& s = request_of(*r);
  try {
    s.request.wait();
  } catch (...) {
    if (s.request.valid()) throw;
    remove_handle<nbfft_request_s>(*r);
    *r = nullptr;
    throw;
  }
  remove_handle<nbfft_request_s>(*r);
  *r = nullptr;
}

inline void need(const void* p, const char* what) {
  if (!p) throw Error(std::string(what) + " is NULL");
}

// s into buffer, NUL-terminated and cut to size bytes; *needed (may be NULL) = length + 1.
inline void copy_out(const std::string& s, char* buffer, std::size_t size, std::size_t* needed) {
  if (needed) *needed = s.size() + 1;
  if (size > 0) {
    need(buffer, "buffer");
    const std::size_t k = s.size() < size - 1 ? s.size() : size - 1;
    std::memcpy(buffer, s.data(), k);
    buffer[k] = '\0';
  }
}

}  // namespace nbfft::capi
