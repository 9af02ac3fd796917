// A cell's outcome labels (protocol/workload.hpp trajectory_label), where its
// workload labels trajectories: per detector, the detection rate (Wilson
// interval) and latency per label (schema 3's by_label; the labelled curves
// are the cell's workload_series, cell_summary.cpp).
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "harness/campaign/trial_driver.hpp"

namespace sdc {

// Whether any of the first nf (faulty) results carries a label.
bool has_labels(const std::vector<episode_result>& results, int64_t nf);
// Detector d's detections per label over the faulty results: {label: {trials,
// detected, rate, ci95, latency_p50}}, every label present (0 trials: rate null).
nlohmann::json by_label_json(const std::vector<episode_result>& results, int64_t nf, size_t d);

}  // namespace sdc
