// The tables at the head of a result set's section: its provenance (commit,
// machine, seed, scale, ...) and a summary with one row per detector.
#pragma once
#include <string>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

std::string provenance_html(const result_set& result, const std::string& file);
std::string summary_html(const result_set& result);

}  // namespace sdc
