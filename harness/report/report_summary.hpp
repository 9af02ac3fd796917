// The tables at the head of a result set's section: its provenance (commit,
// machine, seed, scale, ...) and a summary with one row per detector.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

std::string provenance_html(const nlohmann::json& result, const std::string& file);
std::string summary_html(const nlohmann::json& result);

}  // namespace sdc
