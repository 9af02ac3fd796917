// What one cell's episodes add up to, as result-set records (schema 3,
// results/schema/result-set-3.schema.json): per detector the outcome counts,
// detection, localization and false-alarm rates with Wilson intervals,
// latency quantiles, false alarms per clean step, the detector's metrics and series and
// the workload's ground-truth metrics beside them; per recorder its metrics.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/campaign/suite.hpp"
#include "harness/campaign/trial_driver.hpp"

namespace sdc {

struct cell_records {
  std::vector<nlohmann::json> records;     // one per detector, suite order
  std::vector<nlohmann::json> recordings;  // one per recorder
  std::vector<nlohmann::json> timing;      // one per detector
};

// `results`: the cell's faulty episodes (first s.faulty_trials), then its clean ones.
cell_records summarize_cell(const suite& s, const cell& c, const std::vector<episode_result>& results);
cell_records skipped_cell(const suite& s, const cell& c, const skip_info& why);

// {"trials", hits_name, "rate", "ci95"}: rate null without trials.
nlohmann::json rate_block(int64_t hits, int64_t n, const char* hits_name);

}  // namespace sdc
