// Terminal tables of result sets: `show` (paper vs measured where the suite
// carries published numbers) and `compare` (two runs, or two detectors of one
// run, per cell, with a statistical test).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

std::string show_table(const nlohmann::json& result);

// Axes with more than one value in the suite, in the workload's axis order
// (the order of the cell key; JSON objects do not keep it).
std::vector<std::string> varying_axes(const nlohmann::json& result);

// compare_results' verdict per pair (compare_summary::rows), spelled once for
// the report's table and chart.
inline constexpr const char* k_verdict_differs = "differs (family-wise alpha)";
inline constexpr const char* k_verdict_same = "no significant difference";
inline constexpr const char* k_verdict_untested = "not compared (no faulty trials)";

struct compare_summary {
  std::string table;
  int cells = 0, significant = 0;
  int untested = 0;  // pairs not compared: a side ran no faulty trial (its rate is null)
  // compare_results: one object per pair (cell, key, detector, a and b
  // detection rates in percent, test, p, verdict), for the report's chart;
  // null rates, test and p where a side ran no faulty trial.
  nlohmann::json rows = nlohmann::json::array();
};
// Same cells (key, detector label) of two result sets: rate differences with
// the two-proportion test, or McNemar where both ran the same faults (same
// suite file, seed and cell: the per-trial outcomes pair up).
compare_summary compare_results(const nlohmann::json& a, const nlohmann::json& b, double alpha);
// Two detectors of one result set, per cell: McNemar on the faulty trials.
compare_summary compare_detectors(const nlohmann::json& r, const std::string& first, const std::string& second, double alpha);

}  // namespace sdc
