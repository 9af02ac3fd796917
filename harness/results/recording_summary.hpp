// The recorders' summaries over an episode's steps (metrics NAME_p50 and
// NAME_p90: 002's consistency_curve), one row per cell and metric, for `show`:
// the median and 90th percentile over steps, averaged over the cell's clean and
// faulty episodes. Empty when no recording carries such summaries.
#pragma once
#include <string>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

std::string recording_summary_table(const result_set& result);

// The result set's paired comparisons (harness/results/paired.hpp): per group
// and metric, each value's mean [95 % interval] and each difference's, with
// "differ" where the difference's interval excludes 0. Empty without them.
std::string comparison_table(const result_set& result);

}  // namespace sdc
