// What the chart builders share: a result set's cells, axes and detectors as
// chart rows, pooled counts with their Wilson intervals, and the frame of a
// Vega-Lite specification (title, fonts, schema).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/chart.hpp"

namespace sdc::report {

using json = nlohmann::json;

std::vector<const json*> run_cells(const json& r);                  // cells that ran (not skipped)
// A top-level array of the set (recordings, timing), empty when absent: result
// sets of schema version 1 have neither.
const json& array_of(const json& r, const char* key);
std::vector<std::string> detector_labels(const json& r);            // suite order
std::vector<std::string> axis_values(const json& r, const std::string& axis);  // suite order
std::string axis_value(const json& cell, const std::string& axis);
// The cell's values of `axes`, joined by " · " ("all" when axes is empty).
std::string joined_axes(const json& cell, const std::vector<std::string>& axes);
// An axis value as a number: "0.1", "crit(1.5)" (a multiple of Delta_crit),
// "512x512x512" (a cube: N). Empty for anything else.
std::optional<double> numeric_axis(const std::string& v);
// Every value of the axis is numeric and there are at least `min_values`.
bool is_numeric_axis(const json& r, const std::string& axis, size_t min_values);

struct pooled {
  int64_t hits = 0, trials = 0;
  void add(int64_t x, int64_t n) { hits += x, trials += n; }
};
// {rate, lo, hi} in percent (Wilson 95 %), hits and trials; rate null when no trials.
json rate_fields(const pooled& p);

// Vega-Lite 6.4 draws a two-way facet's panels in the wrong places when a sort
// is given and some (row, column) panel has no data. This adds a row marked
// "placeholder" for each empty panel; every layer filters them out
// (placeholder_filter).
void fill_facet_grid(json& rows, const std::string& row_field, const std::string& column_field);
json placeholder_filter();

// The report reads the JSON document still (result_set_reader.hpp types it
// for show, compare and reproduce): what those compute from the typed set,
// of the JSON. Axes with more than one value, in the cell key's order then by
// name (report.hpp's varying_axes); the measured value a published key names
// (paper_columns.hpp's measured_value), null where the cell has none; the
// clean set a record names (clean_pool::first), nullopt for none.
std::vector<std::string> varying_axes(const json& r);
json measured_value(const json& cell, const std::string& key);
std::optional<std::string> clean_set_of(const json& record);

// A specification's frame: schema, title and subtitle, the shared config.
json frame(const std::string& title, const std::string& subtitle = {});
chart make_chart(std::string id, std::string title, std::string caption, json spec);
std::string percent_axis_title(const std::string& what);  // "WHAT (% of trials, 95 % Wilson interval)"

}  // namespace sdc::report
