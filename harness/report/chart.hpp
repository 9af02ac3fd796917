// The charts of a report: Vega-Lite specifications generated from a result
// set, each with its data inline (so the specification alone redraws the
// figure), a title, and a caption saying what was measured. Which charts a
// set gets depends on what it holds (HACKING.md, "Reports").
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

struct chart {
  std::string id;        // file stem of figures/ID.svg and specs/ID.vl.json
  std::string title;     // shown above the chart and in the SVG
  std::string caption;   // what was measured, units, what the marks mean
  nlohmann::json spec;   // Vega-Lite v6, data inline
};

// Every chart the result set supports, ids prefixed with set_id.
std::vector<chart> charts_of(const result_set& result, const std::string& set_id);

// A scatter of detection rates in two result sets, per (cell, detector), the
// pairs that differ significantly (compare's test, Bonferroni) highlighted.
chart comparison_chart(const nlohmann::json& rows, const std::string& id, const std::string& a_name,
                       const std::string& b_name);

}  // namespace sdc
