// The field helpers of nbfft/fft/field.hpp: wavenumbers, every rank's box, gather/scatter
// of whole fields, contiguous batches, the MPI thread level options need.
#include "nbfft/fft/field.hpp"

#include "nbfft/agree.hpp"
#include "nbfft/coll/engine.hpp"
#include "nbfft/error.hpp"
#include "fft/move_parts.hpp"
#include "fft/threads.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

namespace nbfft::fft {

std::array<std::vector<double>, 3> wavenumbers(const Plan& plan, std::array<double, 3> length) {
  const Box3& b = plan.out_box();
  const auto n = plan.global_size();
  const Options& o = plan.options();
  std::array<std::vector<double>, 3> k;
  for (int d = 0; d < 3; ++d) {
    auto refuse = [&](const char* why) {
      std::ostringstream m;
      m << "wavenumbers: length[" << d << "] (the box's length along " << "xyz"[d] << ") is " << length[d] << "; "
        << why;
      throw Error(m.str());
    };
    if (!(length[d] > 0) || !std::isfinite(length[d])) refuse("it must be a positive finite number");
    k[d].resize(static_cast<std::size_t>(b.n[d]));
    // Each axis's kind (nbfft/fft/r2r_kinds.hpp): periodic 2 pi/L * fftfreq, r2r pi/L * (k + shift).
    for (std::int64_t m = 0; m < b.n[d]; ++m) {
      k[d][m] = wavenumber(o.kinds[d], b.lo[d] + m, n[d], length[d], d == 0 && halves_x(o));
      if (!std::isfinite(k[d][m])) refuse("so small that the wavenumbers overflow");
    }
  }
  return k;
}

std::vector<Box3> all_boxes(const Plan& plan, Layout layout) {
  const Decomposition& me = plan.decomposition();
  std::vector<Box3> boxes;
  const int size = me.m1 * me.m2;
  boxes.reserve(size);
  // The plan knows every rank's box (its pencils, or the user's boxes it agreed on).
  for (int r = 0; r < size; ++r) boxes.push_back(layout == Layout::Input ? plan.in_box_of(r) : plan.out_box_of(r));
  return boxes;
}

std::size_t element_bytes(const Plan& plan, Layout layout) {
  // The input layout is what a forward transform reads, the output layout what it writes.
  const Plan::Shape s = plan.shape(Direction::Forward);
  return (layout == Layout::Input ? s.in : s.out).bytes();
}

std::int64_t global_count(const Plan& plan, Layout layout) {
  const Decomposition& d = plan.decomposition();
  const std::array<std::int64_t, 3> g = layout == Layout::Input ? d.m : std::array<std::int64_t, 3>{d.xc, d.n[1], d.n[2]};
  std::int64_t count = 1;
  for (std::int64_t e : g)  // a grid of many ranks may hold more than an int64 counts
    if (__builtin_mul_overflow(count, e, &count))
      throw Error("the whole field of grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" +
                      std::to_string(g[2]) + " cannot be addressed on one rank",
                  ErrorCode::OutOfMemory);
  return count;
}

namespace detail {
void check_element_bytes(const Plan& plan, Layout layout, std::size_t bytes, const char* what) {
  const std::size_t e = element_bytes(plan, layout);
  if (bytes != e)
    throw Error(std::string(what) + ": elements of " + std::to_string(bytes) + " bytes, but the plan's " +
                (layout == Layout::Input ? "input" : "output") + " elements have " + std::to_string(e));
}

std::array<std::size_t, 2> batch_strides(const Plan& plan, Direction d, const void* in, const void* out) {
  if (in == out && in != nullptr) return {plan.inplace_bytes(), plan.inplace_bytes()};
  return d == Direction::Forward ? std::array<std::size_t, 2>{plan.in_bytes(), plan.out_bytes()}
                 : std::array<std::size_t, 2>{plan.out_bytes(), plan.in_bytes()};
}

void check_batch(const Plan& plan, Direction d, std::size_t nv, const void* in, std::size_t in_bytes,
                 const void* out, std::size_t out_bytes) {
  const std::string what = d == Direction::Forward ? "forward_batch" : "backward_batch";
  const bool in_place = in == out && in != nullptr;
  const auto stride = batch_strides(plan, d, in, out);
  const std::size_t have[2] = {in_bytes, out_bytes};
  const char* side[2] = {in_place ? "in-place" : "input", in_place ? "in-place" : "output"};
  std::string err;
  ErrorCode code = ErrorCode::InvalidArgument;
  for (int k = 0; k < 2 && err.empty(); ++k) {
    const std::string fields = what + ": " + std::to_string(nv) + " fields of " + std::to_string(stride[k]) + " bytes";
    std::size_t need = 0;
    if (__builtin_mul_overflow(stride[k], nv, &need) || need > static_cast<std::size_t>(PTRDIFF_MAX)) {
      err = fields + " cannot be addressed on this rank (nv beyond any " + side[k] + " buffer)";
      code = ErrorCode::OutOfMemory;
    } else if (have[k] < need) {
      err = fields + " need " + std::to_string(need) + " bytes, but the " + side[k] + " buffer has " +
            std::to_string(have[k]) + " (nv larger than the buffer holds?)";
    }
  }
  plan.agree_check(err, code);
}
}  // namespace detail

namespace {

// The checks every gather/scatter runs before moving data; "" when all is well here.
std::string field_error(MPI_Comm comm, const Plan& plan, Layout layout, const char* what, const void* local,
                        std::size_t local_bytes, const void* global, std::size_t global_bytes, int root) {
  const std::string w = what;
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const Decomposition& d = plan.decomposition();
  if (size != d.m1 * d.m2 || rank != d.rank)
    return w + ": the communicator (rank " + std::to_string(rank) + " of " + std::to_string(size) +
           ") is not the plan's (rank " + std::to_string(d.rank) + " of " + std::to_string(d.m1 * d.m2) + ")";
  if (root < 0 || root >= size)
    return w + ": root " + std::to_string(root) + " is not a rank of the communicator (0.." +
           std::to_string(size - 1) + ")";
  const std::size_t e = element_bytes(plan, layout);
  const std::size_t need_local = static_cast<std::size_t>(box(plan, layout).count()) * e;
  if (local_bytes < need_local || (local == nullptr && need_local > 0))
    return w + ": the local buffer has " + std::to_string(local == nullptr ? 0 : local_bytes) +
           " bytes, the box needs " + std::to_string(need_local);
  if (rank == root) {
    std::size_t need = 0;
    try {  // (a message, not a throw: the others are agreeing on it)
      if (__builtin_mul_overflow(static_cast<std::size_t>(global_count(plan, layout)), e, &need))
        return w + ": the whole field cannot be addressed on the root";
    } catch (const Error& x) {
      return w + ": " + x.message();
    }
    if (global_bytes < need || global == nullptr)
      return w + ": the global buffer on root has " + std::to_string(global == nullptr ? 0 : global_bytes) +
             " bytes, the whole grid needs " + std::to_string(need);
  }
  // MPI counts are ints: one element is one MPI datatype, so only the element count matters.
  for (const Box3& b : all_boxes(plan, layout))
    if (b.count() > INT_MAX)
      return w + ": a rank's box holds " + std::to_string(b.count()) + " elements, more than MPI's int count";
  return "";
}

void move_field(MPI_Comm comm, const Plan& plan, Layout layout, bool to_root, const void* local_in, void* local_out,
                std::size_t local_bytes, void* global, std::size_t global_bytes, int root) {
  const char* what = to_root ? "gather" : "scatter";
  agree_message(comm, field_error(comm, plan, layout, what, to_root ? local_in : local_out, local_bytes, global,
                                  global_bytes, root),
                ErrorCode::InvalidArgument);
  const std::size_t e = element_bytes(plan, layout);
  const Decomposition& d = plan.decomposition();
  const std::int64_t gx = layout == Layout::Input ? d.m[0] : d.xc, gy = layout == Layout::Input ? d.m[1] : d.n[1];
  const std::vector<std::int64_t> shape{global_count(plan, layout) / (gx * gy), gy, gx};  // (z, y, x)
  const std::vector<Box3> boxes = all_boxes(plan, layout);
  std::vector<std::int64_t> counts;
  for (const Box3& b : boxes) counts.push_back(b.count());
  char* g = static_cast<char*>(global);
  // The root unpacks each box, in its memory order, into the natural-order global array.
  detail::move_parts(comm, root, to_root, e, counts, local_in, local_out,
                     [&](int r, char* part) {
                       copy_block(part, to_box(boxes[static_cast<std::size_t>(r)]), g, shape, to_root, e);  // geometry's
                     });
}

}  // namespace

namespace detail {

namespace {
struct ElementType {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  explicit ElementType(std::size_t bytes) {
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
  }
  ~ElementType() { MPI_Type_free(&t); }
};
}  // namespace

std::size_t part_bytes(const std::vector<std::int64_t>& counts, std::size_t elem) {
  std::int64_t most = 0;
  for (std::int64_t c : counts) most = std::max(most, c);
  return static_cast<std::size_t>(most) * elem;
}

void move_parts(MPI_Comm comm, int root, bool to_root, std::size_t elem, const std::vector<std::int64_t>& counts,
                const void* local_in, void* local_out, const std::function<void(int, char*)>& copy) {
  int me = 0;
  check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  std::vector<char> part(me == root ? part_bytes(counts, elem) : 0);
  move_parts(comm, root, to_root, elem, counts, local_in, local_out, copy, part.data());
}

void move_parts(MPI_Comm comm, int root, bool to_root, std::size_t elem, const std::vector<std::int64_t>& counts,
                const void* local_in, void* local_out, const std::function<void(int, char*)>& copy, char* part) {
  int me = 0;
  check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
  const int mycount = static_cast<int>(counts[static_cast<std::size_t>(me)]);
  ElementType type(elem);
  if (me != root) {
    if (mycount > 0 && to_root)
      check_mpi(MPI_Send(local_in, mycount, type.t, root, 0, comm), "MPI_Send");
    else if (mycount > 0)
      check_mpi(MPI_Recv(local_out, mycount, type.t, root, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    return;
  }
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const int n = static_cast<int>(counts[r]), ri = static_cast<int>(r);
    const std::size_t bytes = static_cast<std::size_t>(counts[r]) * elem;
    if (to_root) {
      if (ri == root)
        std::memcpy(part, local_in, bytes);
      else if (n > 0)
        check_mpi(MPI_Recv(part, n, type.t, ri, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
      copy(ri, part);
    } else {
      copy(ri, part);
      if (ri == root)
        std::memcpy(local_out, part, bytes);
      else if (n > 0)
        check_mpi(MPI_Send(part, n, type.t, ri, 0, comm), "MPI_Send");
    }
  }
}

}  // namespace detail

void gather_bytes(MPI_Comm comm, const Plan& plan, Layout layout, const void* local, std::size_t local_bytes,
                  void* global, std::size_t global_bytes, int root) {
  move_field(comm, plan, layout, true, local, nullptr, local_bytes, global, global_bytes, root);
}

void scatter_bytes(MPI_Comm comm, const Plan& plan, Layout layout, const void* global, std::size_t global_bytes,
                   void* local, std::size_t local_bytes, int root) {
  move_field(comm, plan, layout, false, nullptr, local, local_bytes, const_cast<void*>(global), global_bytes, root);
}

void transform_batch_bytes(const Plan& plan, Direction d, std::size_t nv, const void* in, std::size_t in_bytes,
                           void* out, std::size_t out_bytes, Timings* t) {
  detail::Batch<char, char> b(plan, d, nv, static_cast<const char*>(in), in_bytes, static_cast<char*>(out),
                              out_bytes);
  plan.transform_many_bytes(d, nv, reinterpret_cast<const void* const*>(b.in.data()), b.in_n,
                            reinterpret_cast<void* const*>(b.out.data()), b.out_n, t);
}

int required_thread_level(const coll::Transport& transport) {
  for (const auto& e : coll::engines())
    if (e.kind == transport.engine && e.needs_thread_multiple) return MPI_THREAD_MULTIPLE;
  return MPI_THREAD_SINGLE;
}

int required_thread_level(const Options& options) {
  const int row = required_thread_level(options.row_transport), col = required_thread_level(options.col_transport);
  // Threads per rank: only the calling thread calls MPI (fft/threads.hpp).
  const int threads = resolve_threads(options.threads) > 1 ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
  return std::max({row, col, threads});
}

}  // namespace nbfft::fft
