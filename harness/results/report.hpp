// Terminal tables of result sets: `show` (paper vs measured where the suite
// carries published numbers) and `compare` (two runs, or two detectors of one
// run, per cell, with a statistical test).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

std::string show_table(const result_set& result);

// Axes with more than one value in the suite, in the workload's axis order
// (the order of the cell key); none when the set has no cells.
std::vector<std::string> varying_axes(const result_set& result);

// A record's value of an axis, "-" where it has none.
template <class Record>
std::string axis_text(const Record& r, const std::string& name) {
  const std::string* v = r.axis(name);
  return v ? *v : "-";
}

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
compare_summary compare_results(const result_set& a, const result_set& b, double alpha);
// Two detectors of one result set, per cell: McNemar on the faulty trials.
compare_summary compare_detectors(const result_set& r, const std::string& first, const std::string& second, double alpha);

}  // namespace sdc
