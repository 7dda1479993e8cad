// Helpers shared by the alltoall algorithms.
#include "coll/alltoall_algorithms.hpp"
#include "nbfft/coll/comm.hpp"
#include "nbfft/error.hpp"

#include <climits>

namespace nbfft::coll::algorithms {

namespace {
int to_int(std::size_t bytes, std::size_t elem, const char* algorithm, const char* what) {
  std::size_t n = bytes / elem;
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error(std::string("algorithm '") + algorithm + "': " + what + " of " + std::to_string(n) +
                " elements exceeds MPI's int range; use pairwise, linear or bruck, which split large messages",
                ErrorCode::Unavailable);
  return static_cast<int>(n);
}
}  // namespace

std::shared_ptr<MpiVector> mpi_vector(const AlltoallvArgs& a, const char* algorithm) {
  auto v = std::shared_ptr<MpiVector>(new MpiVector, [](MpiVector* p) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && p->type != MPI_DATATYPE_NULL) MPI_Type_free(&p->type);
    delete p;
  });
  for (std::size_t i = 0; i < a.sendbytes.size(); ++i) {
    v->sendcounts.push_back(to_int(a.sendbytes[i], a.elem_size, algorithm, "a send count"));
    v->sdispls.push_back(to_int(a.sendoffs[i], a.elem_size, algorithm, "a send displacement"));
    v->recvcounts.push_back(to_int(a.recvbytes[i], a.elem_size, algorithm, "a receive count"));
    v->rdispls.push_back(to_int(a.recvoffs[i], a.elem_size, algorithm, "a receive displacement"));
  }
  check_mpi(MPI_Type_contiguous(static_cast<int>(a.elem_size), MPI_BYTE, &v->type), "MPI_Type_contiguous");
  check_mpi(MPI_Type_commit(&v->type), "MPI_Type_commit");
  return v;
}

MpiHandoff hand_to_mpi(ScheduleBuilder& b, const Comm& comm, const AlltoallvArgs& a, const char* algorithm) {
  auto v = mpi_vector(a, algorithm);
  auto c = comm.private_duplicate();
  b.keep(v);  // kept first, so released after anything kept later that uses them
  b.keep(c);
  return {v.get(), *c};
}

std::string describe(const char* what, const Comm& comm, const AlltoallvArgs& a) {
  std::size_t total = 0;
  for (auto b : a.sendbytes) total += b;
  return std::string(a.uniform ? "alltoall " : "alltoallv ") + what + ", " + std::to_string(comm.size()) +
         " ranks, " + std::to_string(total) + " B sent";
}

}  // namespace nbfft::coll::algorithms
