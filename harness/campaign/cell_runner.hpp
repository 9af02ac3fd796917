// Runs a cell's episodes: a range of its trials (faulty ones first, then the
// clean ones) on a pool of threads, each thread its own trial_driver (runner
// and detector instances); results in trial order, whichever thread ran them.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "harness/campaign/cell_summary.hpp"

#include <functional>
#include <stdexcept>

#include "foundation/errors.hpp"

namespace sdc {

// An error raised inside a trial by a detector (a Python detector's
// exception), naming the cell and the trial, with the trials from `first` on
// that had finished before it (complete_cell journals them, as the cells
// finished before: `--resume` goes on from the first unfinished trial once
// the cause is fixed).
struct cell_error : value_error {
  cell_error(const std::string& what, int64_t first_trial, std::vector<episode_result> done)
      : value_error(what), first(first_trial), finished(std::move(done)) {}
  int64_t first = 0;
  std::vector<episode_result> finished;
};

// Trials first .. first + count - 1 of the cell (trial t < faulty_trials is
// faulty trial t, else clean trial t - faulty_trials).
std::vector<episode_result> run_trials(const suite& s, const cell& c, int64_t first, int64_t count, int threads);

// Episodes of a cell already run, by their first trial (the journaled chunks
// of a killed MPI job).
using chunk_map = std::map<int64_t, std::vector<episode_result>>;
// The ranges [first, first + count) of a cell's `total` trials that `have` does not cover, in order.
std::vector<std::pair<int64_t, int64_t>> missing_ranges(int64_t total, const chunk_map& have);
// Runs what `have` lacks (with nothing: every trial) and adds the whole cell up.
// `on_chunk`, when given, receives the finished trials of a range a detector's
// error cut short, before the error goes on.
using chunk_sink = std::function<void(int64_t first, const std::vector<episode_result>& episodes)>;
// A cell's part in its clean set (clean_sets.hpp): `given`, the set's clean
// episodes run in another cell (this cell then runs its faulty trials only);
// `keep`, where a cell that runs the set's clean episodes leaves them (clean
// trial 0 on) for the set's other cells.
struct clean_share {
  const std::vector<episode_result>* given = nullptr;
  std::vector<episode_result>* keep = nullptr;
};
cell_records complete_cell(const suite& s, const cell& c, int threads, const chunk_map& have, const chunk_sink& on_chunk = {},
                           const clean_share& share = {});

}  // namespace sdc
