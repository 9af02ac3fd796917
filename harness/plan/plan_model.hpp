// The goodput planner's model (METHODOLOGY "Goodput planner"): a policy's
// counts in each fault cell of a result set, their closed-form expectation
// for a job in a fleet, and the bootstrap over episodes that gives each
// figure its 95 % interval.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/plan_inputs.hpp"
#include "harness/plan/plan_table.hpp"

namespace sdc {

// A set of checks (indices into plan_table::checks, at most one per detector
// name: one period each) and what it does on an alarm.
struct plan_policy {
  std::vector<size_t> checks;
  plan_action action = plan_action::rollback;
};

// A policy's faulty episodes in one cell as four counts. The sets keep each
// episode's detection bit per check, but its label only as counts per check,
// so for two or more checks the harmful detections are the fewest the counts
// allow (max over checks, and detections beyond the benign episodes): the
// planner's estimate of missed harmful SDCs is an upper bound then, exact
// for one check (identified).
struct plan_cell_counts {
  int64_t detected_harmful = 0, missed_harmful = 0, detected_benign = 0, missed_benign = 0;
  double rerun_fixable = 0;   // a lower bound on the detections at latency 0 (a fraction of detections)
  double latency_steps = 0;   // the largest latency of any of the policy's checks (steps)
  int64_t detected_harmful_most = 0;  // the most harmful detections the counts allow (= detected_harmful when identified)
  bool permanent = false;     // the cell's lifetime: a permanent fault outlives a rerun or a rollback
  size_t clean_set = 0;       // index into plan_counts::clean
  int64_t trials() const { return detected_harmful + missed_harmful + detected_benign + missed_benign; }
};
struct plan_clean_counts {
  int64_t alarmed = 0, episodes = 0, steps_per_episode = 0;
};
struct plan_counts {
  std::vector<plan_cell_counts> cells;   // plan_table::cells' order
  std::vector<plan_clean_counts> clean;  // plan_table::clean_sets' order
  std::optional<double> cost;            // the checks' summed cost per step; nullopt: one was not timed
  bool identified = true;
};
plan_counts policy_counts(const plan_table& t, const std::vector<size_t>& checks);

// Each cell's share of the fleet's SDC events: site weight x lifetime weight
// (uniform where the fleet leaves them null), split evenly over the set's
// cells of that site and lifetime. input_error naming the fleet file's field
// for a value the set lacks. A site and lifetime the set never ran together
// (every episode skipped) get no weight, the rest renormalized, when either
// axis is uniform by default (`missing` lists them); an error when the fleet
// weighs both.
std::vector<double> plan_cell_weights(const plan_table& t, const plan_fleet& f, std::vector<std::string>* missing = nullptr);

struct plan_estimate {
  double goodput = 0;  // useful training time / wall time, in [0, 1]
  double missed_harmful_per_day = 0, detected_per_day = 0, false_alarms_per_day = 0;
  double missed_harmful_per_day_fewest = 0;  // with the most harmful detections the counts allow (plan_cell_counts)
  double overhead = 0;  // the checks' cost per step
};
// The hours an alarm costs when it was false (the action, for nothing).
double plan_alarm_cost_hours(const plan_job& job, plan_action action);
// The closed form. events_per_hour: plan_fleet::events_per_hour.
plan_estimate plan_expectation(const plan_counts& c, const std::vector<double>& weights, const plan_job& job,
                               double events_per_hour, plan_action action);

struct plan_figure {
  double value = 0, lo = 0, hi = 0;
};
struct plan_result {
  plan_policy policy;
  plan_estimate point;
  plan_figure goodput;                 // bootstrap percentiles, widened by the false alarms' Wilson interval
  plan_figure goodput_at_measured_alarms;  // bootstrap percentiles alone: as if the false-alarm rate were the measured one
  plan_figure missed_harmful_per_day;  // bootstrap percentiles
  plan_figure false_alarms_per_day;             // Wilson interval of the alarmed clean episodes
  bool identified = true;
};

struct plan_options {
  int replicates = 400;
  uint64_t seed = 1;
};
// Every policy of up to job.max_checks checks (one label per detector name,
// each timed) with each of job.actions, with bootstrap intervals, best
// goodput first (ties: fewer missed harmful SDCs, then fewer checks).
std::vector<plan_result> rank_policies(const plan_table& t, const plan_job& job, const plan_fleet& f, const plan_options& o);

// A policy's name: its check labels joined by " + " and the action, or "no checks".
std::string plan_policy_name(const plan_table& t, const plan_policy& p);

}  // namespace sdc
