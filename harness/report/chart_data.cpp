#include "harness/report/chart_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>

#include "foundation/scoring/proportions.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {

std::vector<const cell_record*> run_cells(const result_set& r) {
  std::vector<const cell_record*> out;
  for (const auto& c : r.cells)
    if (!c.skipped) out.push_back(&c);
  return out;
}

std::vector<std::string> detector_labels(const result_set& r) {
  std::vector<std::string> out;
  for (const auto& d : r.suite.detectors) out.push_back(d.label);
  return out;
}

std::vector<std::string> axis_values(const result_set& r, const std::string& axis) {
  const std::vector<std::string>* values = r.suite.axis(axis);
  return values ? *values : std::vector<std::string>{};
}

namespace {

template <class Record>
std::string join_axis_values(const Record& record, const std::vector<std::string>& axes) {
  if (axes.empty()) return "all";
  std::string s;
  for (const auto& a : axes) s += (s.empty() ? "" : " · ") + axis_text(record, a);
  return s;
}

}  // namespace

std::string joined_axes(const cell_record& cell, const std::vector<std::string>& axes) { return join_axis_values(cell, axes); }
std::string joined_axes(const recording_record& rec, const std::vector<std::string>& axes) { return join_axis_values(rec, axes); }

double published_value(const std::map<std::string, json>& reference, const std::string& key) {
  return reference.at(key).get<double>();
}

std::string published_note(const std::map<std::string, json>& reference) {
  const auto it = reference.find("note");
  return it == reference.end() ? std::string() : it->second.get<std::string>();
}

std::optional<double> numeric_axis(const std::string& v) {
  static const std::regex number(R"([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)");
  static const std::regex crit(R"(crit\(([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)\))");
  static const std::regex cube(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (std::regex_match(v, number)) return std::stod(v);
  if (std::regex_match(v, m, crit)) return std::stod(m[1].str());
  if (std::regex_match(v, m, cube) && m[1] == m[2] && m[2] == m[3] && m[1].length() < 9) return std::stod(m[1].str());
  return std::nullopt;
}

bool is_numeric_axis(const result_set& r, const std::string& axis, size_t min_values) {
  const auto values = axis_values(r, axis);
  if (values.size() < min_values) return false;
  for (const auto& v : values)
    if (!numeric_axis(v)) return false;
  return true;
}

json rate_fields(const pooled& p) {
  json row = {{"hits", p.hits}, {"trials", p.trials}};
  if (p.trials == 0) {
    row["rate"] = nullptr, row["lo"] = nullptr, row["hi"] = nullptr;
    return row;
  }
  const auto ci = wilson_interval(p.hits, p.trials);
  row["rate"] = 100.0 * double(p.hits) / double(p.trials);
  row["lo"] = 100.0 * ci.lo, row["hi"] = 100.0 * ci.hi;
  return row;
}

void fill_facet_grid(json& rows, const std::string& row_field, const std::string& column_field) {
  std::vector<json> row_values, column_values;
  std::set<std::pair<std::string, std::string>> have;
  for (const auto& r : rows) {
    if (std::find(row_values.begin(), row_values.end(), r[row_field]) == row_values.end()) row_values.push_back(r[row_field]);
    if (std::find(column_values.begin(), column_values.end(), r[column_field]) == column_values.end()) column_values.push_back(r[column_field]);
    have.insert({r[row_field].dump(), r[column_field].dump()});
  }
  for (const auto& a : row_values)
    for (const auto& b : column_values)
      if (!have.count({a.dump(), b.dump()})) rows.push_back({{row_field, a}, {column_field, b}, {"placeholder", true}});
}

json placeholder_filter() { return json::array({{{"filter", "!datum.placeholder"}}}); }

json frame(const std::string& title, const std::string& subtitle) {
  json t = {{"text", title}, {"anchor", "start"}, {"fontSize", 14}};
  if (!subtitle.empty()) t["subtitle"] = subtitle;
  return {{"$schema", "https://vega.github.io/schema/vega-lite/v6.json"},
          {"title", t},
          {"background", "white"},
          {"config",
           {{"font", "Helvetica, Arial, sans-serif"},
            {"axis", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 420}}},
            {"legend", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 320}, {"titleLimit", 320}}},
            {"header", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 320}}},
            // Row labels above their row, left-aligned: beside it, Vega places horizontal labels by an
            // estimate of their width and they do not line up.
            {"headerRow", {{"labelOrient", "top"}, {"labelAnchor", "start"}, {"labelAngle", 0}, {"labelAlign", "left"},
                           {"labelPadding", 4}, {"labelFontWeight", "bold"}}}}}};
}

chart make_chart(std::string id, std::string title, std::string caption, json spec) {
  return {std::move(id), std::move(title), std::move(caption), std::move(spec)};
}

std::string percent_axis_title(const std::string& what) {
  return fmt::format("{} (% of trials, 95 % Wilson interval)", what);
}

}  // namespace sdc::report
