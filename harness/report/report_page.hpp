// `sdcbench report` and `compare --report`: one self-contained HTML page
// (Vega, Vega-Lite and vega-embed inlined from node_modules, so it works
// offline), every chart's specification as DIR/specs/ID.vl.json and its SVG
// as DIR/figures/ID.svg (rendered by scripts/report/render_svg.mjs in node).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/chart.hpp"

namespace sdc {

struct report_section {
  std::string file;                 // the result set's path, as given
  const result_set* result = nullptr;
  std::string id;                   // unique, [a-z0-9-]: prefixes its charts' ids
};

struct report_request {
  std::string title = "sdcbench report";
  std::vector<report_section> sections;
  std::vector<chart> lead_charts;   // before the sections (compare: A against B)
  std::string lead_html;            // trusted HTML before the lead charts
};

// A section id from a result file's name: its stem, lower-cased, other
// characters as '-', made unique against `taken`.
std::string section_id(const std::string& file, std::vector<std::string>& taken);

// Writes the page, specifications and figures into dir; returns the number of
// charts. index.html is written last and atomically, and removed first, so a
// failed run never leaves a page that looks complete. Throws input_error when
// dir cannot be written, std::runtime_error when node or the libraries are
// missing or a chart fails to render.
size_t write_report(const report_request& req, const std::string& dir);

std::string html_escape(const std::string& s);

}  // namespace sdc
