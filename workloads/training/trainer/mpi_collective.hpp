// The MPI collective: one OpenMPI process per rank (`mpirun -np R`), each
// holding its own replica. Two reductions:
//   ordered: every process gathers every rank's bucket (MPI_Allgather) and
//            sums them in rank order, the bits of the in-process run (a test
//            compares the trajectories under mpirun);
//   mpi:     MPI_Allreduce with MPI's own algorithm (MPI_SUM for fp32 buckets,
//            a bf16 sum operator for bf16 ones): what a DDP job gets; its
//            order, hence its rounding, is the MPI library's.
#pragma once
#include <string>

#include "foundation/parallel/mpi_world.hpp"
#include "workloads/training/trainer/trainer.hpp"

namespace sdc::train {

class mpi_collective final : public collective {
 public:
  explicit mpi_collective(bool ordered);
  int world() const override;
  std::vector<int> local_ranks() const override;
  torch::Tensor sum(std::vector<torch::Tensor>& local) override;
  std::vector<double> gather(const std::vector<double>& local, size_t per_rank) override;

 private:
  bool ordered_;
};

}  // namespace sdc::train
