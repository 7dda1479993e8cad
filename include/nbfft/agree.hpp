// Agreement: every rank fails together, with the failing rank's message, and never hangs.
//
// Two situations make an MPI program hang or go silently wrong on bad input:
//   - one rank fails a local check (a short buffer, an allocation, a file) and leaves the
//     others waiting in the next collective;
//   - ranks pass different configurations (grid, transport, field count) and then run
//     different exchanges.
// Both are settled here with one cheap collective on the happy path:
//
//   nbfft::agree(comm, [&] { local_checks(); });          // every rank throws, or none
//   nbfft::check_same(comm, "plan", {{"grid", "64x64x64"}, {"col_transport", "blocking"}});
//
// agree() runs the callable, catches what it throws, and makes one MPI_Allreduce; if any
// rank failed, the lowest failing rank's kind and message are broadcast and every rank
// throws the same Error: "<message> [rank 2]" (", also ranks 3, 5" when several failed).
// check_same() allreduces a hash of the fields; on a mismatch it gathers them and every
// rank throws one RanksDisagree Error naming the first differing field and the ranks'
// values: "plan: ranks disagree on col_transport: rank 0 has 'blocking', rank 1 has
// 'pairwise:4@thread'". Both are collective over comm and must be called by every rank.
#pragma once

#include "nbfft/error.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nbfft {

// Shares this rank's outcome (nullptr = success) with every rank of comm; throws the
// lowest failing rank's Error everywhere if any rank failed.
void agree_outcome(MPI_Comm comm, std::exception_ptr local);

// Runs f() on every rank and agrees on the outcome. Returns f's result where every rank
// succeeded.
template <typename F>
auto agree(MPI_Comm comm, F&& f) -> decltype(f()) {
  std::exception_ptr failure;
  if constexpr (std::is_void_v<decltype(f())>) {
    try {
      f();
    } catch (...) {
      failure = std::current_exception();
    }
    agree_outcome(comm, failure);
  } else {
    decltype(f()) result{};
    try {
      result = f();
    } catch (...) {
      failure = std::current_exception();
    }
    agree_outcome(comm, failure);
    return result;
  }
}

// Agrees on an error message computed locally ("" = no error) of the given kind.
void agree_message(MPI_Comm comm, const std::string& local_error,
                   ErrorCode code = ErrorCode::InvalidArgument);

// One allreduce that settles two things before a collective call of an object (a plan's
// transform) sends anything: every rank is in the same call (`call` names it: "forward",
// "backward_start of 2 fields", ...), and no rank failed its local checks (local_error,
// "" = none). Different calls are RanksDisagree naming each rank's call ("ranks disagree
// on the collective call: rank 0 has 'backward_start', rank 1 has 'backward wait'");
// otherwise as agree_message. Every collective call of one object must use it, so that
// ranks that drifted apart meet in this allreduce and fail instead of hanging.
using ConfigFields = std::vector<std::pair<std::string, std::string>>;
void agree_call(MPI_Comm comm, const std::string& what, const std::string& call, const std::string& local_error,
                ErrorCode code = ErrorCode::InvalidArgument);
// The same with more fields than the call's name ({"the number of fields", "3"}).
void agree_call(MPI_Comm comm, const std::string& what, const ConfigFields& call, const std::string& local_error,
                ErrorCode code = ErrorCode::InvalidArgument);
// The same, and in the same allreduce whether `flag` is true on any rank (returned): a
// per-call fact every rank must act on together (a lean plan's "my array moved") costs no
// collective of its own.
bool agree_call_any(MPI_Comm comm, const std::string& what, const ConfigFields& call,
                    const std::string& local_error, bool flag, ErrorCode code = ErrorCode::InvalidArgument);
// The same, and in the same allreduce each of `mins` becomes its minimum over the ranks
// (every rank passes as many; below INT64_MAX, as MPICH compares them signed): per-call
// facts that must hold on every rank, such as which of a pool's buffer sets is free on
// all of them (1 free, 0 not: the minimum is 1 where all are).
void agree_call_min(MPI_Comm comm, const std::string& what, const ConfigFields& call, const std::string& local_error,
                    std::vector<std::uint64_t>& mins, ErrorCode code = ErrorCode::InvalidArgument);

// Runs f() unless `error` is already set, keeping what it throws as this rank's error for
// agree_call: an nbfft::Error's message and kind, std::bad_alloc as OutOfMemory ("<what>:
// out of memory"). For what a collective call allocates before it agrees with the other
// ranks, so that an allocation failing on one rank fails every rank, before anything is sent.
template <typename F>
void try_local(std::string& error, ErrorCode& code, const std::string& what, F&& f) {
  if (!error.empty()) return;
  try {
    f();
  } catch (const Error& e) {
    error = e.message();
    code = e.code();
  } catch (const std::bad_alloc&) {
    error = what + ": out of memory";
    code = ErrorCode::OutOfMemory;
  }
}

// Gives every rank of comm `root`'s string (collective; the others' s is replaced). For
// what one rank reads and all must share: a wisdom file, a host name, a remembered choice.
// A root string longer than INT_MAX bytes is an error on every rank.
void bcast_string(MPI_Comm comm, std::string& s, int root = 0);
// Every rank's string, in rank order, on every rank (collective). Each is cut to
// INT_MAX / 2 / size bytes, so that the total fits MPI's int counts.
std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine);

// Every rank must pass the same fields (names and values); `what` names the object
// ("plan", "nbfft-sine options").
void check_same(MPI_Comm comm, const std::string& what, const ConfigFields& fields);

}  // namespace nbfft
