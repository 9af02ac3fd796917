// The recorders' summaries over an episode's steps (metrics NAME_p50 and
// NAME_p90: 002's consistency_curve), one row per cell and metric, for `show`:
// the median and 90th percentile over steps, averaged over the cell's clean and
// faulty episodes. Empty when no recording carries such summaries.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

std::string recording_summary_table(const nlohmann::json& result);

}  // namespace sdc
