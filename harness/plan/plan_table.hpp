// What the goodput planner takes from a training result set (harness/results'
// typed reader), per fault cell and per clean set, so the model never reads
// the set again: each faulty episode's detection bit per check, the cell's
// harmful count (outcome labels), each check's harmful detections, latency
// summary and cost, and each clean set's false-alarm bits per check, a clean
// set once (METHODOLOGY "Clean sets").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "foundation/scoring/proportions.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {

// The labels that cost training: the run ends worse than its twin
// (outcome_labels.hpp). masked and spike_and_recover cost nothing.
bool harmful_label(const std::string& label);

struct plan_check {
  std::string label, name;     // the detector's label in the set; its name (one check, one period per policy)
  std::optional<double> cost;  // summed detector seconds / summed step seconds over the set's cells; nullopt: not timed
};

struct plan_cell_check {
  outcome_bits detected;      // one bit per faulty trial of the cell (skipped ones 0)
  int64_t harmful_detected = 0;
  int64_t detections = 0;
  std::optional<double> latency_p50, latency_p90, latency_max;  // steps from the fault to the alarm
};

struct plan_cell {
  int64_t cell = 0;
  std::string site, lifetime;
  bool permanent = false;
  int64_t trials = 0, harmful = 0;  // faulty episodes not skipped; of them, harmful
  size_t clean_set = 0;             // index into plan_table::clean_sets
  std::vector<plan_cell_check> checks;  // by plan_table::checks' index
};

struct plan_clean_set {
  std::string id;
  int64_t episodes = 0, steps_per_episode = 0;
  std::vector<outcome_bits> alarmed;  // per check: clean episodes with a false alarm
};

struct plan_table {
  std::string file;
  std::vector<plan_check> checks;
  std::vector<plan_cell> cells;  // cells where some faulty episode ran
  std::vector<plan_clean_set> clean_sets;
  std::vector<std::string> sites, lifetimes;  // the set's values, in its order
};

// input_error naming the file when the set has no outcome labels (not a
// training set) or its records disagree on a cell's labels.
plan_table make_plan_table(const result_set& rs, const std::string& file);

}  // namespace sdc
