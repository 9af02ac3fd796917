// What `sdcbench plan` plans for, typed once at the edge: a training job and
// a fleet (suites/schema/job-1 and fleet-1; the shipped fleets in
// suites/fleets/, each figure with its source: results/notes/fleet_sources.md),
// and the actions a policy can take on an alarm. METHODOLOGY "Goodput
// planner" states how each field enters the model.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sdc {

// What a policy does on an alarm.
enum class plan_action { rerun, rollback, evict };
const char* plan_action_name(plan_action a);

struct plan_job {
  std::string name;
  int64_t accelerators = 1;
  double step_seconds = 1, checkpoint_interval_hours = 1, checkpoint_seconds = 0, restart_seconds = 0, evict_seconds = 0;
  double undetected_notice_hours = 0;  // until a harmful SDC no check caught is noticed (not measured: the job's figure)
  int64_t measured_ranks = 1;          // the result set's ranks: false alarms per step scale by accelerators / this
  int max_checks = 2;
  std::vector<plan_action> actions{plan_action::rerun, plan_action::rollback, plan_action::evict};
};

// A mix over one axis: value -> weight; nullopt = uniform over the set's
// values (the fleet file says so in mix.source).
using plan_weights = std::optional<std::map<std::string, double>>;

struct plan_fleet {
  std::string name, file;
  bool per_accelerator = true;  // rate.per: accelerator_hour (x accelerators) or job_hour
  std::optional<double> rate;   // nullopt: not published (rate.source says why)
  std::string rate_source, mix_source;
  plan_weights site, lifetime;
  // SDC events per hour of `job`; input_error naming the fleet file when the
  // rate is not published.
  double events_per_hour(const plan_job& job) const;
};

// Read, checked against its schema; input_error(file, field, expected).
plan_job read_plan_job(const std::string& file);
plan_fleet read_plan_fleet(const std::string& file);

// The fleet presets shipped in the data directory's suites/fleets/, sorted.
std::vector<std::string> fleet_preset_files();

}  // namespace sdc
