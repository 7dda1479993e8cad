#include "bench/common/main.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>

namespace nbfft::bench {

namespace {

int exit_code_for(ErrorCode c) {
  return c == ErrorCode::InvalidArgument || c == ErrorCode::RanksDisagree ? 2 : 1;
}

// This rank's failure as (kind, message).
std::pair<ErrorCode, std::string> describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return {x.code(), x.message()};
  } catch (const std::bad_alloc&) {
    return {ErrorCode::OutOfMemory, "out of memory"};
  } catch (const std::exception& x) {
    return {ErrorCode::Internal, x.what()};
  } catch (...) {
    return {ErrorCode::Internal, "unknown exception"};
  }
}

double fail_timeout() {
  const char* v = std::getenv("NBFFT_FAIL_TIMEOUT");
  char* end = nullptr;
  const double t = v ? std::strtod(v, &end) : 0;
  return v && end != v && *end == '\0' && t > 0 ? t : 60.0;
}

}  // namespace

int run_serial_main(const char* prog, const std::function<int()>& body) {
  try {
    return body();
  } catch (...) {
    auto [code, msg] = describe(std::current_exception());
    std::fprintf(stderr, "%s: [%s] %s\n", prog, error_code_name(code), msg.c_str());
    return exit_code_for(code);
  }
}

int run_main(const char* prog, int argc, char** argv, int thread_level, const std::function<int(MPI_Comm)>& body) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, thread_level, &provided) != MPI_SUCCESS) {
    std::fprintf(stderr, "%s: [mpi] MPI_Init_thread failed\n", prog);
    return 1;
  }
  int rank = 0, rc = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Failures are settled on a communicator of their own, so that the settling can never
  // match a collective the benchmark left unfinished on MPI_COMM_WORLD.
  MPI_Comm settle = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &settle);
  MPI_Comm_set_errhandler(settle, MPI_ERRORS_RETURN);

  std::exception_ptr failure;
  try {
    rc = body(MPI_COMM_WORLD);
  } catch (...) {
    failure = std::current_exception();
  }

  // Everyone arrives: the lowest failing rank, and the largest exit code.
  int in[2] = {failure ? rank : INT_MAX, -rc}, out[2] = {INT_MAX, 0};
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Iallreduce(in, out, 2, MPI_INT, MPI_MIN, settle, &req);
  if (failure) {
    // The others may be stuck in a collective this rank left: bounded wait, then abort.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(fail_timeout());
    int done = 0;
    while (!done) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      if (done) break;
      if (std::chrono::steady_clock::now() > deadline) {
        auto [code, msg] = describe(failure);
        std::fprintf(stderr, "%s: [%s] %s [rank %d; the other ranks did not finish within %g s: aborting]\n", prog,
                     error_code_name(code), msg.c_str(), rank, fail_timeout());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, exit_code_for(code));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  } else {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  rc = -out[1];
  if (out[0] != INT_MAX) {
    // Every rank is here now: share the failing rank's kind and message with all.
    try {
      agree_outcome(settle, failure);
    } catch (...) {
      auto [code, msg] = describe(std::current_exception());
      // An error the body already agreed on (parse_agreed, a Plan) names its rank once;
      // the second "[rank ...]" added here would only repeat it.
      const std::size_t last = msg.rfind(" [rank ");
      if (last != std::string::npos && last > 0 && msg[last - 1] == ']' &&
          msg.rfind(" [rank ", last - 1) != std::string::npos)
        msg.erase(last);
      std::fprintf(stderr, "%s: [%s] %s\n", prog, error_code_name(code), msg.c_str());
      std::fflush(stderr);
      rc = exit_code_for(code);
    }
  }
  MPI_Comm_free(&settle);
  MPI_Finalize();
  return rc;
}

}  // namespace nbfft::bench
