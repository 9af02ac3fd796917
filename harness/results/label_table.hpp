// The outcome labels of a training result set (schema 3's by_label,
// METHODOLOGY.md "Outcome labels"), for `show`: per cell the faulty episodes
// of each label, then per detector its detections among them and the median
// detection's latency. Empty when no cell carries labels.
#pragma once
#include <string>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

std::string label_table(const result_set& result);

}  // namespace sdc
