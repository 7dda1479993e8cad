// The N-D plan's field helpers (nbfft/nd/field.hpp): element sizes, the halved axis,
// wavenumbers, and whole arrays gathered and scattered over fft/move_parts.hpp's messages.
#include "nbfft/nd/field.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/error.hpp"
#include "nbfft/fft/r2r_kinds.hpp"
#include "fft/move_parts.hpp"
#include "nbfft/geometry/box.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <new>
#include <string>

namespace nbfft::nd {

std::size_t element_bytes(const Plan& plan, Layout layout) {
  const std::size_t real = plan.precision() == fft::Precision::Single ? sizeof(float) : sizeof(double);
  const bool real_elements = layout == Layout::Input ? plan.kind() == Kind::R2C : plan.real_spectrum();
  return real_elements ? real : 2 * real;
}

int half_axis(const Plan& plan) {
  if (plan.kind() != Kind::R2C) return -1;
  for (std::size_t i = plan.axes().size(); i-- > 0;)
    if (plan.kinds()[i] == fft::AxisKind::Periodic) return plan.axes()[i];
  return -1;
}

std::vector<double> wavenumbers(const Plan& plan, int axis, double length) {
  const int nd = static_cast<int>(plan.shape().size());
  if (axis < -nd || axis >= nd)
    throw Error("nd wavenumbers: axis " + std::to_string(axis) + " is not an axis of a " + std::to_string(nd) +
                "-D array (" + std::to_string(-nd) + ".." + std::to_string(nd - 1) + ")");
  const int a = axis < 0 ? axis + nd : axis;
  const auto listed = std::find(plan.axes().begin(), plan.axes().end(), a);
  if (listed == plan.axes().end())
    throw Error("nd wavenumbers: axis " + std::to_string(a) +
                " is not transformed (it stays in physical space: no wavenumbers)");
  if (!(length > 0) || !std::isfinite(length))
    throw Error("nd wavenumbers: length must be positive and finite, not " + std::to_string(length));
  const fft::AxisKind kind = plan.kinds()[static_cast<std::size_t>(listed - plan.axes().begin())];
  const Box& b = plan.out_box();
  const std::int64_t n = plan.shape()[static_cast<std::size_t>(a)];
  std::vector<double> k(static_cast<std::size_t>(b.n[static_cast<std::size_t>(a)]));
  for (std::size_t m = 0; m < k.size(); ++m)
    k[m] = fft::wavenumber(kind, b.lo[static_cast<std::size_t>(a)] + static_cast<std::int64_t>(m), n, length,
                           a == half_axis(plan));
  return k;
}

namespace {

std::vector<std::int64_t> global_shape(const Plan& plan, Layout layout) {
  return layout == Layout::Input ? plan.shape() : plan.out_shape();
}

Box box_of(const Plan& plan, Layout layout, int r) {
  return layout == Layout::Input ? plan.in_box_of_rank(r) : plan.out_box_of_rank(r);
}

// "" or what is wrong with a gather / scatter on this rank.
std::string field_error(const Plan& plan, MPI_Comm comm, Layout layout, const std::string& what, const void* local,
                        std::size_t local_bytes, const void* global, std::size_t global_bytes, int root,
                        bool every_rank_ok) {
  const std::string w = "nd " + what + ": ";
  if (layout != Layout::Input && layout != Layout::Output)
    return w + "layout " + std::to_string(static_cast<int>(layout)) +
           " is neither the input (0) nor the output (1) layout";
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  if (size != plan.size() || rank != plan.rank())
    return w + "the communicator (rank " + std::to_string(rank) + " of " + std::to_string(size) +
           ") is not the plan's (rank " + std::to_string(plan.rank()) + " of " + std::to_string(plan.size()) + ")";
  if (root == kEveryRank && !every_rank_ok)
    return w + "root -1 (every rank) is for gathering; a scatter needs the rank that holds the array";
  if (root != kEveryRank && (root < 0 || root >= size))
    return w + "root " + std::to_string(root) + " is not a rank of the plan's " + std::to_string(size) + " ranks (0.." +
           std::to_string(size - 1) + (every_rank_ok ? ", or -1: every rank)" : ")");
  const std::size_t e = element_bytes(plan, layout);
  const char* space = layout == Layout::Input ? "input" : "spectrum";
  const std::size_t need_local = static_cast<std::size_t>(box_of(plan, layout, rank).count()) * e;
  if (local_bytes != need_local)
    return w + "local_bytes is " + std::to_string(local_bytes) + " but this rank's " + space + " block needs exactly " +
           std::to_string(need_local) + " (" + std::to_string(e) + "-byte elements)";
  if (need_local > 0 && !local) return w + "local is NULL";
  if (root == kEveryRank || rank == root) {
    std::size_t need = e;
    for (std::int64_t v : global_shape(plan, layout))
      if (__builtin_mul_overflow(need, static_cast<std::size_t>(v), &need))
        return w + "the whole array cannot be addressed on one rank";
    if (global_bytes != need)
      return w + "global_bytes is " + std::to_string(global_bytes) + (root == kEveryRank ? "" : " on the root") +
             " but the whole " + space + " array needs exactly " + std::to_string(need);
    if (!global) return w + "global is NULL" + (root == kEveryRank ? "" : " on the root");
  }
  for (int r = 0; r < size; ++r)  // MPI counts are ints (one element is one MPI datatype)
    if (box_of(plan, layout, r).count() > INT_MAX)
      return w + "rank " + std::to_string(r) + "'s block holds more elements than MPI's int count";
  return "";
}

void move_array(const Plan& plan, MPI_Comm comm, Layout layout, bool to_root, const void* local_in, void* local_out,
                std::size_t local_bytes, void* global, std::size_t global_bytes, int root) {
  const std::string what = to_root ? "gather" : "scatter";
  const int at = root == kEveryRank ? 0 : root;
  // This rank's checks and the root's buffer for one rank's block, then one agreement that
  // also makes every rank pass the same root and layout (ranks that named different roots
  // would each wait for messages the others never send).
  std::string error;
  ErrorCode code = ErrorCode::InvalidArgument;
  std::vector<Box> boxes;
  std::vector<std::int64_t> counts;
  std::vector<char> part;
  try {
    error = field_error(plan, comm, layout, what, to_root ? local_in : local_out, local_bytes, global, global_bytes,
                        root, to_root);
    if (error.empty()) {
      for (int r = 0; r < plan.size(); ++r) {
        boxes.push_back(box_of(plan, layout, r));
        counts.push_back(boxes.back().count());
      }
      if (plan.rank() == at) part.resize(fft::detail::part_bytes(counts, element_bytes(plan, layout)));
    }
  } catch (const Error& e) {
    error = e.message();
    code = e.code();
  } catch (const std::bad_alloc&) {
    error = "nd " + what + ": out of memory for the root's buffer of one rank's block (" +
            std::to_string(fft::detail::part_bytes(counts, element_bytes(plan, layout))) + " bytes)";
    code = ErrorCode::OutOfMemory;
  }
  agree_call(comm, "nd " + what,
             {{"the collective call", what},
              {"the layout", std::to_string(static_cast<int>(layout))},
              {"the root", std::to_string(root)}},
             error, code);
  const std::size_t e = element_bytes(plan, layout);
  const std::vector<std::int64_t> g = global_shape(plan, layout);
  char* whole = static_cast<char*>(global);
  fft::detail::move_parts(
      comm, at, to_root, e, counts, local_in, local_out,
      [&](int r, char* block) { copy_block(block, boxes[static_cast<std::size_t>(r)], whole, g, to_root, e); },
      part.data());
  if (root != kEveryRank) return;
  // Every rank: the root's array to the others, in pieces an int count can hold.
  constexpr std::size_t piece = std::size_t{1} << 30;
  for (std::size_t off = 0; off < global_bytes; off += piece)
    check_mpi(MPI_Bcast(whole + off, static_cast<int>(std::min(piece, global_bytes - off)), MPI_BYTE, at, comm),
              "MPI_Bcast");
}

}  // namespace

void gather_bytes(const Plan& plan, MPI_Comm comm, Layout layout, const void* local, std::size_t local_bytes,
                  void* global, std::size_t global_bytes, int root) {
  move_array(plan, comm, layout, true, local, nullptr, local_bytes, global, global_bytes, root);
}

void scatter_bytes(const Plan& plan, MPI_Comm comm, Layout layout, const void* global, std::size_t global_bytes,
                   void* local, std::size_t local_bytes, int root) {
  move_array(plan, comm, layout, false, nullptr, local, local_bytes, const_cast<void*>(global), global_bytes, root);
}

}  // namespace nbfft::nd
