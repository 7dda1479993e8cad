// The C face of nbfft::fft::Pencils (include/nbfft/nbfft_transpose.h). Handles are checked
// against the set of live ones, so a destroyed or foreign handle is NBFFT_INVALID_STATE,
// never a crash.
#include "nbfft/nbfft.h"

#include "capi/guard.hpp"
#include "capi/handles.hpp"
#include "nbfft/agree.hpp"
#include "nbfft/fft/transpose.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace {

using nbfft::Error;
using nbfft::ErrorCode;
using nbfft::capi::guard;
using nbfft::fft::Pencil;

std::mutex live_mutex;
std::set<const void*> live;

template <typename H>
H* checked(H* h, const char* what) {
  std::lock_guard<std::mutex> lock(live_mutex);
  if (!h || !live.count(h))
    throw Error(std::string(what) + (h ? " is not a live handle (destroyed, or never created)" : " is NULL"),
                ErrorCode::InvalidState);
  return h;
}
void track(const void* h, bool add) {
  std::lock_guard<std::mutex> lock(live_mutex);
  if (add)
    live.insert(h);
  else
    live.erase(h);
}

Pencil pencil(nbfft_pencil p) {
  if (p < NBFFT_PENCIL_X || p > NBFFT_PENCIL_Z)
    throw Error("pencil " + std::to_string(static_cast<int>(p)) + " is not NBFFT_PENCIL_X, _Y or _Z");
  return static_cast<Pencil>(p);
}

// A collective call's pencils go to Pencils unchecked: it checks them on every rank inside
// its agreement, so a bad value on one rank fails every rank instead of leaving the others
// waiting for it.
Pencil unchecked(nbfft_pencil p) { return static_cast<Pencil>(p); }

void fill(const nbfft::fft::Box3& b, int64_t lo[3], int64_t n[3]) {
  for (int d = 0; d < 3; ++d) {
    if (lo) lo[d] = b.lo[d];
    if (n) n[d] = b.n[d];
  }
}

// Collective: the pencils behind a new handle (the arguments already agreed).
void make(MPI_Comm comm, const int64_t n[3], const nbfft::fft::Pencils::Options& o, nbfft_pencils* pencils) {
  *pencils = nullptr;
  auto h = std::make_unique<nbfft_pencils_s>(nbfft_pencils_s{nbfft::fft::Pencils(comm, {n[0], n[1], n[2]}, o)});
  track(h.get(), true);
  *pencils = h.release();
}

// Collective: the checks every rank agrees on, the options `read` fills (inside the
// agreement, so a bad word on one rank fails every rank), then the pencils.
void create(const char* what, MPI_Comm comm, const int64_t n[3], nbfft_pencils* pencils,
            const std::function<void(nbfft::fft::Pencils::Options&)>& read) {
  nbfft::check_mpi_running(what);
  if (comm == MPI_COMM_NULL) throw Error("the communicator is MPI_COMM_NULL");
  nbfft::fft::Pencils::Options o;
  nbfft::agree(comm, [&] {
    if (!n) throw Error("n is NULL");
    if (!pencils) throw Error("the pencils pointer is NULL");
    read(o);
  });
  make(comm, n, o, pencils);
}

// Positional arguments: the process grid and one transport for both exchanges.
void create(const char* what, MPI_Comm comm, const int64_t n[3], int m1, int m2, const char* transport,
            nbfft_pencils* pencils) {
  create(what, comm, n, pencils, [&](nbfft::fft::Pencils::Options& o) {
    o.m1 = m1;
    o.m2 = m2;
    if (transport) o.transport(transport);
  });
}

// An options handle: the keys pencils have (the 3-D plan's words), and an error naming any
// other key the handle sets (a transform's, which pencils do not make).
void create_from(const char* what, MPI_Comm comm, const int64_t n[3], nbfft_options options, nbfft_pencils* pencils) {
  create(what, comm, n, pencils, [&](nbfft::fft::Pencils::Options& o) {
    const nbfft_options_s& h = nbfft::capi::opts_of(options);
    static const char* const taken[] = {"proc_grid", "transport", "row_transport", "col_transport", "fields_in_flight"};
    for (const auto& s : h.set)
      if (std::none_of(std::begin(taken), std::end(taken), [&](const char* k) { return s.key == k; }))
        throw Error("pencils take proc_grid, transport, row_transport, col_transport and fields_in_flight; the "
                    "options set " + s.key + "=" + s.value + ", a transform's (make a plan for it)",
                    ErrorCode::InvalidArgument);
    const nbfft::fft::Options& f = h.for_3d();
    o.m1 = f.m1;
    o.m2 = f.m2;
    o.row_transport = f.row_transport;
    o.col_transport = f.col_transport;
    o.fields_in_flight = f.fields_in_flight;
  });
}

}  // namespace

nbfft_pencils_s& nbfft::capi::pencils_of(nbfft_pencils p) { return *checked(p, "the pencils handle"); }

extern "C" {

nbfft_status nbfft_pencils_create(MPI_Comm comm, const int64_t n[3], int m1, int m2, const char* transport,
                                  nbfft_pencils* pencils) {
  return guard("nbfft_pencils_create", [&] { create("nbfft_pencils_create", comm, n, m1, m2, transport, pencils); });
}

nbfft_status nbfft_pencils_create_f(MPI_Fint comm, const int64_t n[3], int m1, int m2, const char* transport,
                                    nbfft_pencils* pencils) {
  return guard("nbfft_pencils_create_f", [&] {
    create("nbfft_pencils_create_f", nbfft::capi::comm_of_fortran("nbfft_pencils_create_f", comm), n, m1, m2,
           transport, pencils);
  });
}

nbfft_status nbfft_plan_create_pencils(MPI_Comm comm, const int64_t n[3], nbfft_options options,
                                       nbfft_pencils* pencils) {
  return guard("nbfft_plan_create_pencils",
               [&] { create_from("nbfft_plan_create_pencils", comm, n, options, pencils); });
}

nbfft_status nbfft_plan_create_pencils_f(MPI_Fint comm, const int64_t n[3], nbfft_options options,
                                         nbfft_pencils* pencils) {
  return guard("nbfft_plan_create_pencils_f", [&] {
    create_from("nbfft_plan_create_pencils_f", nbfft::capi::comm_of_fortran("nbfft_plan_create_pencils_f", comm), n,
                options, pencils);
  });
}

nbfft_status nbfft_pencils_agree(nbfft_pencils pencils, const char* what, const char* error) {
  return guard(what && *what ? what : "nbfft_pencils_agree", [&] {
    nbfft::agree_message(checked(pencils, "the pencils handle")->p.comm(), error ? error : "");
  });
}

nbfft_status nbfft_pencils_destroy(nbfft_pencils* pencils) {
  return guard("nbfft_pencils_destroy", [&] {
    if (!pencils) throw Error("the pencils pointer is NULL");
    if (!*pencils) return;
    std::unique_ptr<nbfft_pencils_s> h(checked(*pencils, "the pencils handle"));
    track(h.get(), false);
    *pencils = nullptr;
  });
}

nbfft_status nbfft_pencils_grid(nbfft_pencils pencils, int* m1, int* m2) {
  return guard("nbfft_pencils_grid", [&] {
    const auto& p = checked(pencils, "the pencils handle")->p;
    if (m1) *m1 = p.m1();
    if (m2) *m2 = p.m2();
  });
}

nbfft_status nbfft_pencils_box(nbfft_pencils pencils, nbfft_pencil which, int64_t lo[3], int64_t n[3]) {
  return guard("nbfft_pencils_box", [&] { fill(checked(pencils, "the pencils handle")->p.box(pencil(which)), lo, n); });
}

nbfft_status nbfft_pencils_box_of(nbfft_pencils pencils, nbfft_pencil which, int rank, int64_t lo[3], int64_t n[3]) {
  return guard("nbfft_pencils_box_of",
               [&] { fill(checked(pencils, "the pencils handle")->p.box_of_rank(pencil(which), rank), lo, n); });
}

nbfft_status nbfft_transpose_run(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, const void* in,
                                 size_t in_bytes, void* out, size_t out_bytes, size_t elem_bytes) {
  return guard("nbfft_transpose_run", [&] {
    checked(pencils, "the pencils handle")
        ->p.transpose_bytes(unchecked(from), unchecked(to), in, in_bytes, out, out_bytes, elem_bytes);
  });
}

nbfft_status nbfft_transpose_many(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, size_t nv,
                                  const void* const* in, size_t in_bytes, void* const* out, size_t out_bytes,
                                  size_t elem_bytes) {
  return guard("nbfft_transpose_many", [&] {
    checked(pencils, "the pencils handle")
        ->p.transpose_many_bytes(unchecked(from), unchecked(to), nv, in, in_bytes, out, out_bytes, elem_bytes);
  });
}

nbfft_status nbfft_transpose_start(nbfft_pencils pencils, nbfft_pencil from, nbfft_pencil to, const void* in,
                                   size_t in_bytes, void* out, size_t out_bytes, size_t elem_bytes,
                                   nbfft_transpose* t) {
  return guard("nbfft_transpose_start", [&] {
    auto& p = checked(pencils, "the pencils handle")->p;
    // A NULL result pointer on one rank fails every rank before anything starts.
    nbfft::agree(p.comm(), [&] {
      if (!t) throw Error("the transpose pointer is NULL");
    });
    *t = nullptr;
    *t = nbfft::capi::add_request(
        p.start_bytes(unchecked(from), unchecked(to), in, in_bytes, out, out_bytes, elem_bytes));
  });
}

nbfft_status nbfft_transpose_test(nbfft_transpose t, int* done) {
  return nbfft_test(t, done);
}

nbfft_status nbfft_transpose_wait(nbfft_transpose* t) {
  return guard("nbfft_transpose_wait", [&] { nbfft::capi::wait_request(t); });
}

}  // extern "C"
