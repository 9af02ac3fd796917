#include "workloads/training/trainer/mpi_collective.hpp"

// The C API only (OpenMPI would pull in its deprecated C++ bindings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "foundation/parallel/mpi_world.hpp"

namespace sdc::train {
namespace {

using mpi::check;

// bf16 + bf16 as torch adds them: in fp32, rounded to nearest even.
void bf16_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const c10::BFloat16*>(in);
  auto* b = static_cast<c10::BFloat16*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = c10::BFloat16(float(a[i]) + float(b[i]));
}

int checked_count(int64_t n) {
  if (n > INT_MAX) throw std::runtime_error("MPI: a bucket of more than 2^31 elements");
  return int(n);
}

}  // namespace

mpi_collective::mpi_collective(bool ordered) : ordered_(ordered) { mpi::ensure_mpi(); }

int mpi_collective::world() const { return mpi::size(); }

std::vector<int> mpi_collective::local_ranks() const { return {mpi::rank()}; }

torch::Tensor mpi_collective::sum(std::vector<torch::Tensor>& local) {
  const torch::Tensor mine = local.at(0).contiguous();
  const int n = checked_count(mine.numel());
  const bool bf16 = mine.scalar_type() == torch::kBFloat16;
  if (!ordered_) {
    torch::Tensor out = torch::empty_like(mine);
    if (bf16) {
      MPI_Op op;
      check(MPI_Op_create(&bf16_sum, 1, &op), "MPI_Op_create");
      check(MPI_Allreduce(mine.data_ptr(), out.data_ptr(), n, MPI_UINT16_T, op, MPI_COMM_WORLD), "MPI_Allreduce");
      MPI_Op_free(&op);
    } else {
      const MPI_Datatype t = mine.scalar_type() == torch::kDouble ? MPI_DOUBLE : MPI_FLOAT;
      check(MPI_Allreduce(mine.data_ptr(), out.data_ptr(), n, t, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    }
    return out;
  }
  const int bytes = checked_count(int64_t(n) * int64_t(mine.element_size()));
  const int world = mpi::size();
  torch::Tensor all = torch::empty({world, mine.numel()}, mine.options());
  check(MPI_Allgather(mine.data_ptr(), bytes, MPI_BYTE, all.data_ptr(), bytes, MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
  torch::Tensor s = all[0].clone();
  for (int r = 1; r < world; ++r) s.add_(all[r]);
  return s;
}

std::vector<double> mpi_collective::gather(const std::vector<double>& local, size_t per_rank) {
  std::vector<double> all(per_rank * size_t(mpi::size()));
  check(MPI_Allgather(local.data(), checked_count(int64_t(per_rank)), MPI_DOUBLE, all.data(),
                      checked_count(int64_t(per_rank)), MPI_DOUBLE, MPI_COMM_WORLD), "MPI_Allgather");
  return all;
}

}  // namespace sdc::train
