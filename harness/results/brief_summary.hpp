// `show --brief`: one line per detector, its counts pooled over every cell it
// ran (the main job's summary).
#pragma once
#include <string>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

std::string brief_table(const result_set& result);
// "throughput: N trials per second per core (...)" (training: episodes per
// hour per core) from provenance.throughput; "" when the set has none.
std::string throughput_line(const result_set& result);

}  // namespace sdc
