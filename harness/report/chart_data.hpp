// What the chart builders share: a result set's cells, axes and detectors as
// chart rows, pooled counts with their Wilson intervals, and the frame of a
// Vega-Lite specification (title, fonts, schema). The builders read the typed
// result set (harness/results/result_set_reader.hpp); JSON here is what they
// write, and the free-form values the format keeps as JSON (a recorder's
// params, a published reference's values).
#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/report/chart.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc::report {

using json = nlohmann::json;

std::vector<const cell_record*> run_cells(const result_set& r);     // cells that ran (not skipped)
std::vector<std::string> detector_labels(const result_set& r);      // suite order
std::vector<std::string> axis_values(const result_set& r, const std::string& axis);  // suite order; none when not an axis
// The record's values of `axes` ("-" where it has none), joined by " · "
// ("all" when axes is empty).
std::string joined_axes(const cell_record& cell, const std::vector<std::string>& axes);
std::string joined_axes(const recording_record& rec, const std::vector<std::string>& axes);
// An axis value as a number: "0.1", "crit(1.5)" (a multiple of Delta_crit),
// "512x512x512" (a cube: N). Empty for anything else.
std::optional<double> numeric_axis(const std::string& v);
// Every value of the axis is numeric and there are at least `min_values`.
bool is_numeric_axis(const result_set& r, const std::string& axis, size_t min_values);

// A value the set may lack, as chart data: the value, or null.
template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
// A cell's published reference: the value of `key` (a number, by the suites'
// convention), and its "note" ("" when it has none).
double published_value(const std::map<std::string, json>& reference, const std::string& key);
std::string published_note(const std::map<std::string, json>& reference);

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

// A specification's frame: schema, title and subtitle, the shared config.
json frame(const std::string& title, const std::string& subtitle = {});
chart make_chart(std::string id, std::string title, std::string caption, json spec);
std::string percent_axis_title(const std::string& what);  // "WHAT (% of trials, 95 % Wilson interval)"

}  // namespace sdc::report
