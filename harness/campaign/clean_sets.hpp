// Clean sets in a campaign (METHODOLOGY "Clean sets"): the cells that differ
// only in the workload's fault axes share their clean episodes
// (cell::clean_set), so the engine runs each set's clean trials once, in the
// first cell of the set it runs, and hands the episodes to the set's other
// cells, marked shared (episode_result::shared: their seconds are the
// running cell's, not theirs).
#pragma once
#include <cstddef>
#include <map>
#include <vector>

#include "harness/campaign/suite.hpp"
#include "harness/campaign/trial_driver.hpp"

namespace sdc {

struct clean_set_plan {
  // Cell -> the cell whose run gives it its clean episodes (itself, or a cell
  // without a clean set, when absent).
  std::map<size_t, size_t> owner;
  bool runs_clean(size_t cell) const {
    const auto it = owner.find(cell);
    return it == owner.end() || it->second == cell;
  }
  // The cells that take their clean episodes from `cell`'s run, in order.
  const std::vector<size_t>& sharers(size_t cell) const {
    static const std::vector<size_t> none;
    const auto it = sharers_of.find(cell);
    return it == sharers_of.end() ? none : it->second;
  }
  std::map<size_t, std::vector<size_t>> sharers_of;  // made once with `owner`
};

// The plan over the cells this run computes (`todo`, ascending): each clean
// set runs in its first runnable cell there. A set whose first cell was
// journaled by an earlier, interrupted run runs again in its first cell left
// (the same episodes: clean episodes are deterministic).
clean_set_plan plan_clean_sets(const expansion& ex, const std::vector<size_t>& todo);

// A set's clean episodes (`clean`: clean trial 0 on) as trials faulty_trials ..
// of `to`, marked shared.
void share_clean(const std::vector<episode_result>& clean, int64_t faulty_trials, std::vector<episode_result>& to);

}  // namespace sdc
