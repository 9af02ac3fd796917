#include "harness/report/chart_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "foundation/scoring/proportions.hpp"
#include "harness/results/cell_key.hpp"

namespace sdc::report {

std::vector<const json*> run_cells(const json& r) {
  std::vector<const json*> out;
  for (const auto& c : r["cells"])
    if (c["skipped"].is_null()) out.push_back(&c);
  return out;
}

const json& array_of(const json& r, const char* key) {
  static const json empty = json::array();
  return r.contains(key) && r[key].is_array() ? r[key] : empty;
}

std::vector<std::string> detector_labels(const json& r) {
  std::vector<std::string> out;
  for (const auto& d : r["suite"]["detectors"]) out.push_back(d["label"]);
  return out;
}

std::vector<std::string> axis_values(const json& r, const std::string& axis) {
  std::vector<std::string> out;
  if (r["suite"]["axes"].contains(axis))
    for (const auto& v : r["suite"]["axes"][axis]) out.push_back(v.get<std::string>());
  return out;
}

std::string axis_value(const json& cell, const std::string& axis) {
  return cell["axes"].contains(axis) ? cell["axes"][axis].get<std::string>() : std::string("-");
}

std::string joined_axes(const json& cell, const std::vector<std::string>& axes) {
  if (axes.empty()) return "all";
  std::string s;
  for (const auto& a : axes) s += (s.empty() ? "" : " · ") + axis_value(cell, a);
  return s;
}

std::vector<std::string> varying_axes(const json& r) {
  std::vector<std::string> out;
  if (r["cells"].empty()) return out;
  if (const auto parts = split_cell_key(r["cells"][0]["key"].get<std::string>()))
    for (const auto& [name, value] : *parts)
      if (r["suite"]["axes"].contains(name) && r["suite"]["axes"][name].size() > 1) out.push_back(name);
  for (const auto& [name, values] : r["suite"]["axes"].items())
    if (values.size() > 1 && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

json measured_value(const json& cell, const std::string& key) {
  if (key == "faulty.rate" || key == "clean.rate") {
    const auto& b = cell[key.substr(0, key.find('.'))];
    return b.is_null() ? json(nullptr) : b["rate"];
  }
  for (const char* block : {"metrics", "workload_metrics"}) {
    const std::string prefix = std::string(block) + ".";
    if (key.starts_with(prefix) && cell.contains(block) && cell[block].is_object()) {
      const std::string name = key.substr(prefix.size());
      return cell[block].contains(name) ? cell[block][name] : json(nullptr);
    }
  }
  return nullptr;
}

std::optional<std::string> clean_set_of(const json& record) {
  const json& id = record.contains("clean_set") ? record["clean_set"] : json();
  return id.is_string() ? std::optional<std::string>(id.get<std::string>()) : std::nullopt;
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

bool is_numeric_axis(const json& r, const std::string& axis, size_t min_values) {
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
