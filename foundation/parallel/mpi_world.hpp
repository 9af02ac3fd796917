// The MPI job this process belongs to (OpenMPI's C API, Debian's
// libopenmpi-dev), for the campaign engine (one campaign over N processes:
// harness/campaign/distributed.*) and the training workload's ranks
// (workloads/training/trainer/mpi_collective.*). A program started without mpirun
// never initializes MPI.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc::mpi {

// Throws std::runtime_error "MPI: WHAT failed" unless rc is MPI_SUCCESS.
void check(int rc, const char* what);

// Started by mpirun/srun with more than one process (from the launcher's
// environment, before MPI_Init).
bool launched_in_job();
// MPI_Init on first use (thread level funneled); MPI_Finalize at process exit.
void ensure_mpi();
int rank();
int size();
bool running();  // initialized, or launched by mpirun
// MPI_Abort(MPI_COMM_WORLD, code): ends every process of the job.
[[noreturn]] void abort_job(int code);
void barrier();
std::string processor_name();

// Point-to-point byte messages (the campaign's work units and results).
void send(int dest, int tag, const std::vector<uint8_t>& bytes);
struct message {
  int source = -1, tag = -1;
  std::vector<uint8_t> bytes;
};
// A message if one is waiting (any source, any tag), without blocking.
bool poll(message* m);
message receive(int source);  // blocking, from `source`, any tag

// Collectives the campaign needs at start and end.
int all_max(int v);
std::vector<std::string> gather_strings(const std::string& mine);  // every rank's, in rank order, on rank 0 (empty elsewhere)

}  // namespace sdc::mpi
