// Curves over a numeric axis: detection rate against p, the shift in units of
// Delta_crit or the matrix size (000 Figure 5, Appendix A), and the metrics a
// suite publishes against the paper's (001 Tables 4-6 tightness and
// thresholds vs N, 000 Table 3's Delta_crit).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/report/chart_builders.hpp"
#include "harness/results/paper_columns.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {
namespace {

std::string numeric_axis_title(const result_set& r, const std::string& axis) {
  const auto v = axis_values(r, axis);
  if (!v.empty() && v[0].starts_with("crit(")) return axis + " (multiples of Theorem 1's Δcrit)";
  if (!v.empty() && v[0].find('x') != std::string::npos) return axis + ": N of an N×N×N GEMM";
  return axis;
}

// Log scale when every value is positive and they span more than a decade
// (base 2 for matrix sizes).
json scale_for(const std::vector<double>& values, bool sizes = false) {
  if (values.empty()) return json::object();
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  if (*lo > 0 && *hi / *lo >= (sizes ? 8 : 20)) return sizes ? json{{"type", "log"}, {"base", 2}} : json{{"type", "log"}};
  return {{"zero", false}};
}

bool is_size_axis(const result_set& r, const std::string& axis) {
  const auto v = axis_values(r, axis);
  return !v.empty() && v[0].find('x') != std::string::npos;
}

// Axis labels of a log scale: short exponents, and none that overlap.
json log_axis(const json& scale) {
  if (!scale.contains("type")) return {{"format", "~g"}};
  return {{"format", scale.contains("base") ? "d" : "~e"}, {"labelOverlap", "greedy"}, {"grid", true}};
}

}  // namespace

// Points of one source (measured: filled circles; paper: open diamonds), with
// a shape legend shared by both layers.
json point_layer(const std::string& source, bool filled, const json& x, const json& y, const json& color) {
  json enc = {{"color", color},
              {"shape", {{"field", "source"}, {"type", "nominal"}, {"title", "source"},
                         {"scale", {{"domain", {"measured", "paper"}}, {"range", {"circle", "diamond"}}}}}}};
  if (!x.is_null()) enc["x"] = x;
  if (!y.is_null()) enc["y"] = y;
  return {{"transform", {{{"filter", fmt::format("datum.source == '{}'", source)}}}},
          {"mark", {{"type", "point"}, {"size", 60}, {"filled", filled}, {"strokeWidth", 1.5}, {"tooltip", {{"content", "data"}}}}},
          {"encoding", enc}};
}

void rate_vs_axis_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  const auto varying = varying_axes(r);
  for (const auto& axis : varying) {
    if (!is_numeric_axis(r, axis, 3)) continue;
    std::vector<std::string> others;
    for (const auto& a : varying)
      if (a != axis) others.push_back(a);
    json rows = json::array();
    std::set<std::string> panels;
    std::vector<std::string> panel_order;
    std::vector<double> xs;
    for (const auto* c : run_cells(r)) {
      if (!c->faulty || c->faulty->detected.trials == 0) continue;
      pooled p;
      p.add(c->faulty->detected.count, c->faulty->detected.trials);
      json row = rate_fields(p);
      row["detector"] = c->detector.label;
      row["x"] = *numeric_axis(axis_text(*c, axis));
      row["panel"] = joined_axes(*c, others);
      if (panels.insert(row["panel"].get<std::string>()).second) panel_order.push_back(row["panel"]);
      xs.push_back(row["x"]);
      rows.push_back(row);
    }
    if (rows.empty() || panels.size() > 8) continue;
    json spec = frame(fmt::format("Detection vs {}", axis), others.empty() ? "" : "panels: " + fmt::format("{}", fmt::join(others, " · ")));
    spec["data"] = {{"values", rows}};
    if (!others.empty()) {
      spec["facet"] = {{"field", "panel"}, {"type", "nominal"}, {"title", nullptr}, {"sort", panel_order}};
      spec["columns"] = 3;
    }
    const json xscale = scale_for(xs, is_size_axis(r, axis));
    json x = {{"field", "x"}, {"type", "quantitative"}, {"scale", xscale}, {"axis", log_axis(xscale)}, {"title", numeric_axis_title(r, axis)}};
    json y = {{"field", "rate"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}}, {"title", percent_axis_title("detected")}};
    json color = {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}};
    json inner = {{"width", 300},
                  {"height", 220},
                  {"layer",
                   json::array({{{"mark", {{"type", "rule"}, {"opacity", 0.6}}},
                                 {"encoding", {{"x", x}, {"y", {{"field", "lo"}, {"type", "quantitative"}}}, {"y2", {{"field", "hi"}}}, {"color", color}}}},
                                {{"mark", {{"type", "line"}, {"point", true}}},
                                 {"encoding", {{"x", x}, {"y", y}, {"color", color},
                                               {"tooltip", json::array({{{"field", "detector"}}, {{"field", "x"}}, {{"field", "rate"}, {"format", ".2f"}},
                                                                        {{"field", "hits"}}, {{"field", "trials"}}})}}}}})}};
    if (others.empty()) {
      for (auto it = inner.begin(); it != inner.end(); ++it) spec[it.key()] = it.value();
    } else {
      spec["spec"] = inner;
    }
    out.push_back(make_chart(id + "-rate-vs-" + axis, spec["title"]["text"],
                             fmt::format("Share of faulty trials detected in each cell against {} (one line per detector; "
                                         "vertical bars: 95 % Wilson intervals of the cell's trials){}.",
                                         axis, xs.size() && scale_for(xs).contains("type") ? "; logarithmic x axis" : ""),
                             spec));
  }
}

void metric_vs_axis_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  std::vector<std::string> keys;
  for (const auto* c : run_cells(r)) {
    if (!c->reference) continue;
    for (const auto& [key, value] : *c->reference)
      if ((key.starts_with("metrics.") || key.starts_with("workload_metrics.")) && std::find(keys.begin(), keys.end(), key) == keys.end())
        keys.push_back(key);
  }
  const auto varying = varying_axes(r);
  const bool numeric = varying.size() == 1 && is_numeric_axis(r, varying[0], 2);
  int n = 0;
  for (const auto& key : keys) {
    json rows = json::array();
    std::vector<double> xs, ys;
    for (const auto* c : run_cells(r)) {
      if (!c->reference || !c->reference->count(key)) continue;
      const auto& ref = *c->reference;
      const json x = numeric ? json(*numeric_axis(axis_text(*c, varying[0]))) : json(joined_axes(*c, varying));
      if (const auto m = measured_value(*c, key)) {
        rows.push_back({{"detector", c->detector.label}, {"x", x}, {"value", *m}, {"source", "measured"}});
        ys.push_back(*m);
      }
      rows.push_back({{"detector", c->detector.label}, {"x", x}, {"value", ref.at(key)}, {"source", "paper"}, {"note", published_note(ref)}});
      ys.push_back(published_value(ref, key));
      if (numeric) xs.push_back(x);
    }
    if (rows.empty()) continue;
    const std::string metric = key.substr(key.find('.') + 1);
    json spec = frame(fmt::format("{}: paper vs measured", metric), varying.empty() ? "" : "against " + fmt::format("{}", fmt::join(varying, " · ")));
    spec["data"] = {{"values", rows}};
    spec["width"] = 420, spec["height"] = 260;
    const json xscale = scale_for(xs, numeric && is_size_axis(r, varying[0])), yscale = scale_for(ys);
    json x = numeric ? json{{"field", "x"}, {"type", "quantitative"}, {"scale", xscale}, {"axis", log_axis(xscale)}, {"title", numeric_axis_title(r, varying[0])}}
                     : json{{"field", "x"}, {"type", "nominal"}, {"title", varying.empty() ? "cell" : fmt::format("{}", fmt::join(varying, " · "))},
                            {"axis", {{"labelAngle", -30}}}};
    json y = {{"field", "value"}, {"type", "quantitative"}, {"scale", yscale}, {"axis", log_axis(yscale).contains("labelOverlap") ? log_axis(yscale) : json{{"format", ".3~g"}}}, {"title", metric}};
    json color = {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}};
    spec["layer"] = json::array(
        {{{"transform", {{{"filter", "datum.source == 'measured'"}}}}, {"mark", "line"}, {"encoding", {{"x", x}, {"y", y}, {"color", color}}}},
         point_layer("measured", true, x, y, color), point_layer("paper", false, x, y, color)});
    out.push_back(make_chart(
        fmt::format("{}-metric-{}", id, n++), spec["title"]["text"],
        fmt::format("{} as the suite's cells measured it (filled circles joined by lines; the cell's {} over its trials) and "
                    "as the paper published it (open diamonds), for each detector{}.",
                    metric, metric.substr(metric.rfind('.') + 1), ys.size() && scale_for(ys).contains("type") ? "; logarithmic y axis" : ""),
        spec));
  }
}

}  // namespace sdc::report
