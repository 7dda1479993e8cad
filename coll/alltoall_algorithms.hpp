// Internal: the builder of each alltoall algorithm (one file each), read by the registry.
#pragma once

#include "nbfft/coll/alltoall.hpp"

namespace nbfft::coll::algorithms {

using Built = std::shared_ptr<const Schedule>;
Built pairwise(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built linear(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built bruck(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built native(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built persistent(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
const char* persistent_unavailable();
Built rma(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built blocking(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built replace(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);
Built standard(const Comm&, const AlltoallvArgs&, const AlgorithmSpec&);

// Helpers shared by the algorithms that hand the whole exchange to MPI.
struct MpiVector {  // counts and displacements as MPI's int arrays, in units of `type`
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};
// Converts byte counts to element counts of a contiguous type of args.elem_size bytes;
// throws Error naming `algorithm` when a count or offset does not fit in an int.
std::shared_ptr<MpiVector> mpi_vector(const AlltoallvArgs& args, const char* algorithm);
// What an algorithm that hands the exchange to MPI needs: the int arrays and a private
// duplicate communicator, both owned by the schedule being built.
struct MpiHandoff {
  const MpiVector* v;
  MPI_Comm comm;
};
MpiHandoff hand_to_mpi(ScheduleBuilder& b, const Comm& comm, const AlltoallvArgs& args, const char* algorithm);
std::string describe(const char* what, const Comm& comm, const AlltoallvArgs& args);

}  // namespace nbfft::coll::algorithms
