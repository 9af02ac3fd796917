// The computation behind sdcbench.Monitor (python/bind_monitor.cpp,
// sdcbench/monitor.py): sdcbench's training detectors on a user's own
// training loop. Each step it is handed every rank's loss and flat fp32
// gradient before the all-reduce (the training_step view of
// protocol/views/training_view.hpp, which needs no libtorch), with where a
// fault was injected; the detectors are the registered training detectors
// built as a campaign builds them (build_episode_detector: per_rank,
// windows), each episode is scored as the campaigns score it
// (detector_scoring), and the episodes become a result set (summarize_cell,
// make_result_set): one cell, the monitor's fault, its faulty episodes and
// its clean ones. Detectors that need more than losses and gradients (GEMMs,
// parameter hashes, a recomputed step) are refused by name. A monitored run
// has no clean twin: a faulty episode's significance is judged on the
// gradient element the fault changed (element_band), not on the loss as the
// training workload judges it.
#pragma once
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "harness/campaign/trial_driver.hpp"
#include "protocol/views/training_view.hpp"

namespace sdc {

struct monitor_setup {
  std::string detectors;  // JSON text, [{name, label?, params?}] as in a suite (the set's sha256 covers it as given)
  nlohmann::json meta;    // {name, description, seed, axes}
  std::vector<std::string> names;  // the parameters, in order, and their shapes
  std::vector<std::vector<int64_t>> shapes;
  int ranks = 1;
};

// A fault injected at a step, before its views: the rank, the flat index
// into its gradient, the element's value before and after.
struct monitored_fault {
  int rank = 0;
  int64_t index = 0;
  double old_value = 0, new_value = 0;
};

struct monitor_verdict {
  std::string label;
  bool flagged = false;
  int rank = -1;              // -1: none named
  double score = 0;           // NaN: none
};

class training_monitor {
 public:
  explicit training_monitor(const monitor_setup& s);  // input_error naming Monitor and the field
  int ranks() const { return ranks_; }
  int64_t numel() const { return layout_.numel; }
  void begin(bool faulty, int64_t trial, int64_t steps);
  // losses: one per rank; grads: ranks x numel, row-major.
  std::vector<monitor_verdict> observe(int64_t step, std::span<const double> losses, std::span<const float> grads,
                                       const std::vector<monitored_fault>& faults);
  void end();
  // The result set of the episodes so far (validated).
  nlohmann::json result_set(const std::vector<std::string>& argv, const std::string& started) const;

 private:
  using clock = std::chrono::steady_clock;
  nlohmann::json meta_;
  std::string detectors_json_;  // with the meta, what the set's sha256 identifies (no suite file)
  int ranks_;
  training_layout layout_;
  std::vector<detector_choice> choices_;
  std::vector<std::unique_ptr<episode_detector>> detectors_;
  std::vector<detector_scoring> scoring_;
  bool open_ = false, faulty_ = false;
  int64_t first_fault_ = -1;
  std::vector<location> truths_;
  episode_result episode_;
  std::vector<episode_result> faulty_eps_, clean_eps_;
  clock::time_point last_;
};

}  // namespace sdc
