// Agreement on outcomes and configurations (nbfft/agree.hpp).
#include "nbfft/agree.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <new>

namespace nbfft {

namespace {

int comm_rank(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

// FNV-1a over the fields, with separators so ("ab","c") and ("a","bc") differ.
std::uint64_t hash_fields(const ConfigFields& fields) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto& [k, v] : fields) {
    mix(k);
    mix(v);
  }
  return h;
}

std::string serialize(const ConfigFields& fields) {
  std::string s;
  for (const auto& [k, v] : fields) {
    s += k;
    s += '\x1f';
    s += v;
    s += '\x1e';
  }
  return s;
}

ConfigFields deserialize(const std::string& s) {
  ConfigFields out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    const std::size_t us = s.find('\x1f', pos), rs = s.find('\x1e', pos);
    if (us == std::string::npos || rs == std::string::npos || us > rs) break;
    out.emplace_back(s.substr(pos, us - pos), s.substr(us + 1, rs - us - 1));
    pos = rs + 1;
  }
  return out;
}

}  // namespace

void bcast_string(MPI_Comm comm, std::string& s, int root) {
  // The root's size goes first; -1 says it does not fit an int, and every rank throws.
  int len = s.size() > static_cast<std::size_t>(INT_MAX) ? -1 : static_cast<int>(s.size());
  check_mpi(MPI_Bcast(&len, 1, MPI_INT, root, comm), "MPI_Bcast");
  if (len < 0) throw Error("bcast_string: the root's string is more than INT_MAX bytes", ErrorCode::InvalidArgument);
  s.resize(static_cast<std::size_t>(len));
  if (len > 0) check_mpi(MPI_Bcast(s.data(), len, MPI_CHAR, root, comm), "MPI_Bcast");
}

void agree_outcome(MPI_Comm comm, std::exception_ptr local) {
  const int me = comm_rank(comm);
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  // One allreduce on the happy path: the lowest failing rank (INT_MAX = none).
  const int mine = local ? me : INT_MAX;
  int first = INT_MAX;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (first == INT_MAX) return;

  int code = static_cast<int>(ErrorCode::Internal);
  std::string message;
  if (local) {
    try {
      std::rethrow_exception(local);
    } catch (const Error& e) {
      code = static_cast<int>(e.code());
      message = e.message();
    } catch (const std::bad_alloc&) {
      code = static_cast<int>(ErrorCode::OutOfMemory);
      message = "out of memory";
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
      message = "unknown exception";
    }
  }
  // Which other ranks failed, so that each can be looked at.
  std::vector<int> failed(static_cast<std::size_t>(size));
  const int flag = local ? 1 : 0;
  check_mpi(MPI_Allgather(&flag, 1, MPI_INT, failed.data(), 1, MPI_INT, comm), "MPI_Allgather");
  check_mpi(MPI_Bcast(&code, 1, MPI_INT, first, comm), "MPI_Bcast");
  if (message.size() > (1u << 16)) message.resize(1u << 16);  // messages are short; a runaway one is cut
  bcast_string(comm, message, first);
  std::string where = " [rank " + std::to_string(first);
  std::string others;
  for (int r = first + 1; r < size; ++r)
    if (failed[static_cast<std::size_t>(r)]) others += (others.empty() ? "" : ", ") + std::to_string(r);
  if (!others.empty()) where += "; also failed on rank" + std::string(others.find(',') != std::string::npos ? "s " : " ") + others;
  where += "]";
  throw Error(message + where, static_cast<ErrorCode>(code));
}

void agree_message(MPI_Comm comm, const std::string& local_error, ErrorCode code) {
  std::exception_ptr e;
  if (!local_error.empty()) e = std::make_exception_ptr(Error(local_error, code));
  agree_outcome(comm, e);
}

void agree_call(MPI_Comm comm, const std::string& what, const std::string& call, const std::string& local_error,
                ErrorCode code) {
  agree_call(comm, what, ConfigFields{{"the collective call", call}}, local_error, code);
}

void agree_call(MPI_Comm comm, const std::string& what, const ConfigFields& fields, const std::string& local_error,
                ErrorCode code) {
  agree_call_any(comm, what, fields, local_error, false, code);
}

bool agree_call_any(MPI_Comm comm, const std::string& what, const ConfigFields& fields,
                    const std::string& local_error, bool flag, ErrorCode code) {
  // flag rides as 0 (set) or 1: the minimum is 0 iff any rank set it.
  std::vector<std::uint64_t> set{flag ? 0u : 1u};
  agree_call_min(comm, what, fields, local_error, set, code);
  return set[0] == 0;
}

void agree_call_min(MPI_Comm comm, const std::string& what, const ConfigFields& fields,
                    const std::string& local_error, std::vector<std::uint64_t>& mins, ErrorCode code) {
  const std::uint64_t h = hash_fields(fields);
  // "No failure" is INT64_MAX, not UINT64_MAX: MPICH 4.0 compares MPI_UINT64_T as signed in
  // MPI_MIN, so UINT64_MAX (-1 there) won against a failing rank's number and the failure
  // was lost on every rank. The hashes are safe either way (check_same explains why).
  constexpr std::uint64_t kNone = static_cast<std::uint64_t>(INT64_MAX);
  const std::uint64_t failed = local_error.empty() ? kNone : static_cast<std::uint64_t>(comm_rank(comm));
  std::vector<std::uint64_t> mine{failed, h, ~h};
  mine.insert(mine.end(), mins.begin(), mins.end());
  std::vector<std::uint64_t> red(mine.size());
  check_mpi(MPI_Allreduce(mine.data(), red.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MIN, comm),
            "MPI_Allreduce");
  if (red[1] != h || ~red[2] != h) check_same(comm, what, fields);  // throws RanksDisagree on every rank
  if (red[0] != kNone) agree_message(comm, local_error, code);  // every rank is here: share the failing rank's message
  std::copy(red.begin() + 3, red.end(), mins.begin());
}

std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  const int len = static_cast<int>(std::min<std::size_t>(mine.size(), INT_MAX / 2 / static_cast<std::size_t>(size)));
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm), "MPI_Allgather");
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += lens[static_cast<std::size_t>(r)];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, comm),
            "MPI_Allgatherv");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]),
                             static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  return out;
}

void check_same(MPI_Comm comm, const std::string& what, const ConfigFields& fields) {
  const std::uint64_t h = hash_fields(fields);
  std::uint64_t lohi[2] = {h, ~h}, red[2] = {0, 0};
  check_mpi(MPI_Allreduce(lohi, red, 2, MPI_UINT64_T, MPI_MIN, comm), "MPI_Allreduce");
  // min == max == h on every rank. Whether MPI_MIN compares signed (MPICH 4.0) or unsigned,
  // ~ reverses the order, so a rank whose h is the least sees a larger ~h win: any
  // difference is seen on every rank.
  if (red[0] == h && ~red[1] == h) return;

  // Rare path: gather every rank's fields and name the first that differs.
  int size = 1;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<ConfigFields> per_rank;
  for (const std::string& text : allgather_strings(comm, serialize(fields))) per_rank.push_back(deserialize(text));
  auto value = [&](int r, const std::string& key) -> std::string {
    for (const auto& [k, v] : per_rank[static_cast<std::size_t>(r)])
      if (k == key) return "'" + v + "'";
    return "nothing";
  };
  // The first field (in rank 0's order, then any other rank's) whose value differs.
  for (int base = 0; base < size; ++base)
    for (const auto& [key, v0] : per_rank[static_cast<std::size_t>(base)]) {
      const std::string ref = value(0, key);
      for (int r = 1; r < size; ++r) {
        const std::string other = value(r, key);
        if (other == ref) continue;
        throw Error(what + ": ranks disagree on " + key + ": rank 0 has " + ref + ", rank " + std::to_string(r) +
                        " has " + other + " (it must be the same on every rank)",
                    ErrorCode::RanksDisagree);
      }
    }
  throw Error(what + ": ranks disagree on the configuration (hash mismatch with equal fields)",
              ErrorCode::RanksDisagree);
}

}  // namespace nbfft
