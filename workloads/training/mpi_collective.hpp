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

#include "harness/parallel/mpi_world.hpp"
#include "workloads/training/trainer.hpp"

namespace sdc::train {

// The job's processes (harness/parallel/mpi_world.hpp), under the names the
// training code uses.
inline void ensure_mpi() { mpi::ensure_mpi(); }
inline int mpi_rank() { return mpi::rank(); }
inline int mpi_size() { return mpi::size(); }
[[noreturn]] inline void mpi_abort(int code) { mpi::abort_job(code); }
inline void mpi_barrier() { mpi::barrier(); }
inline bool mpi_running() { return mpi::running(); }

class mpi_collective final : public collective {
 public:
  explicit mpi_collective(bool ordered);
  int world() const override;
  std::vector<int> local_ranks() const override;
  torch::Tensor sum(const std::vector<torch::Tensor>& local) override;
  std::vector<double> gather(const std::vector<double>& local, size_t per_rank) override;

 private:
  bool ordered_;
};

}  // namespace sdc::train
