// A campaign over the processes of an MPI job (`mpirun -np N sdcbench run
// SUITE`, or srun): rank 0 splits every cell's trials into chunks and hands
// them out one at a time to whichever process asks (dynamic load balancing:
// cells differ in cost by orders of magnitude), runs chunks itself on a second
// thread, gathers the episodes, adds each cell up exactly as one process does
// (so `cells` are byte-identical to a one-process run), journals finished
// cells and writes the result set. `--threads` applies within each process.
// A training campaign uses the processes for episodes; each episode's ranks
// run in its process (the in-process backend).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/campaign/cell_runner.hpp"
#include "harness/campaign/clean_sets.hpp"

namespace sdc {

struct job_info {
  bool in_job = false;
  int rank = 0, size = 1;
};

// Joins the MPI job when launched by mpirun/srun with more than one process.
job_info join_job();

// Every rank's setup outcome ("" or its error message). When any failed, rank
// 0 throws one value_error naming the first failing rank and the others
// throw quiet_exit{2}: one message, no rank left waiting.
void agree_on_setup(const job_info& job, const std::string& error);

// Runs the cells `todo` over the job; on rank 0 `done` gets each cell's
// records as it completes, and the return value is the seconds rank 0 spent in
// messaging. Other ranks return once rank 0 has no more work.
// `have`: chunks journaled by an earlier, killed job (rank 0); `chunk` gets
// every chunk's episodes as they arrive, for the journal, so no finished trial
// is lost when the job is killed. `sets`: which cell runs each clean set
// (its sharers run their faulty trials only and take the set's clean episodes
// as they arrive).
double run_cells_in_job(const suite& s, const expansion& ex, const std::vector<size_t>& todo, int threads,
                        const std::map<size_t, chunk_map>& have, const clean_set_plan& sets,
                        const std::function<void(size_t, int64_t, const std::vector<episode_result>&)>& chunk,
                        const std::function<void(size_t, cell_records)>& done);

// Provenance of the job (collective): processes, hosts, communication share.
nlohmann::json job_provenance(const job_info& job, double comm_seconds, double wall_seconds);

}  // namespace sdc
