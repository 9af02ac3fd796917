// Threshold sweeps as ROC curves: each configuration (label) of a detector
// pooled over its cells, as a point of detection rate against false-alarm
// rate with both Wilson intervals, joined in order of false-alarm rate; the
// largest Youden's J of each panel ringed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "harness/report/chart_builders.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {

void roc_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  std::map<std::string, std::vector<std::string>> by_name;
  std::vector<std::string> names;
  for (const auto& d : r.suite.detectors) {
    if (!by_name.count(d.name)) names.push_back(d.name);
    by_name[d.name].push_back(d.label);
  }
  const auto varying = varying_axes(r);
  const bool by_dtype = std::find(varying.begin(), varying.end(), "dtype") != varying.end();
  json rows = json::array();
  for (const auto& name : names) {
    if (by_name[name].size() < 2) continue;
    std::map<std::string, std::map<std::string, std::pair<pooled, pooled>>> acc;  // stratum -> label -> (faulty, clean)
    clean_pool sets;  // a clean set its cells share counts once
    for (const auto* c : run_cells(r)) {
      const std::string& label = c->detector.label;
      if (std::find(by_name[name].begin(), by_name[name].end(), label) == by_name[name].end()) continue;
      if (!c->faulty || !c->clean) continue;
      const std::string stratum = by_dtype ? axis_text(*c, "dtype") : "all cells";
      auto& [f, cl] = acc[stratum][label];
      f.add(c->faulty->detected.count, c->faulty->detected.trials);
      if (sets.first(c->clean_set, stratum + "\n" + label)) cl.add(c->clean->flagged.count, c->clean->flagged.trials);
    }
    for (const auto& [stratum, points] : acc) {
      if (points.size() < 2) continue;
      double best = -1e9;
      std::string best_label;
      for (const auto& [label, fc] : points) {
        if (fc.first.trials == 0 || fc.second.trials == 0) continue;
        const double j = double(fc.first.hits) / double(fc.first.trials) - double(fc.second.hits) / double(fc.second.trials);
        if (j > best) best = j, best_label = label;
      }
      std::map<std::string, std::string> text;  // labels of configurations at the same point, joined
      for (const auto& [label, fc] : points) {
        if (fc.first.trials == 0 || fc.second.trials == 0) continue;
        const std::string at = fmt::format("{}/{}:{}/{}", fc.first.hits, fc.first.trials, fc.second.hits, fc.second.trials);
        text[at] += (text[at].empty() ? "" : ", ") + label;
      }
      for (const auto& [label, fc] : points) {
        if (fc.first.trials == 0 || fc.second.trials == 0) continue;
        const json t = rate_fields(fc.first), f = rate_fields(fc.second);
        const std::string at = fmt::format("{}/{}:{}/{}", fc.first.hits, fc.first.trials, fc.second.hits, fc.second.trials);
        rows.push_back({{"detector", name}, {"stratum", stratum}, {"label", label}, {"tpr", t["rate"]}, {"tpr_lo", t["lo"]},
                        {"tpr_hi", t["hi"]}, {"fpr", f["rate"]}, {"fpr_lo", f["lo"]}, {"fpr_hi", f["hi"]},
                        {"best", label == best_label}, {"text", std::exchange(text[at], "")}});
      }
    }
  }
  if (rows.empty()) return;
  if (by_dtype) fill_facet_grid(rows, "detector", "stratum");
  json spec = frame("Threshold sweeps as ROC curves", by_dtype ? "one panel per detector and dtype" : "one panel per detector");
  spec["data"] = {{"values", rows}};
  spec["facet"] = {{"column", {{"field", "detector"}, {"type", "nominal"}, {"title", nullptr}}}};
  if (by_dtype) spec["facet"]["row"] = {{"field", "stratum"}, {"type", "nominal"}, {"title", "dtype"}};
  const json x = {{"field", "fpr"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}},
                  {"title", "false alarms (% of clean trials)"}};
  const json y = {{"field", "tpr"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}},
                  {"title", "detection (% of faulty trials)"}};
  spec["spec"] = {
      {"width", 260},
      {"height", 260},
      {"layer",
       json::array({{{"transform", placeholder_filter()}, {"mark", {{"type", "line"}, {"color", "#1f4e79"}}}, {"encoding", {{"x", x}, {"y", y}, {"order", {{"field", "fpr"}}}}}},
                    {{"transform", placeholder_filter()}, {"mark", {{"type", "rule"}, {"color", "#7a7a7a"}}},
                     {"encoding", {{"x", x}, {"y", {{"field", "tpr_lo"}, {"type", "quantitative"}}}, {"y2", {{"field", "tpr_hi"}}}}}},
                    {{"transform", placeholder_filter()}, {"mark", {{"type", "rule"}, {"color", "#7a7a7a"}}},
                     {"encoding", {{"x", {{"field", "fpr_lo"}, {"type", "quantitative"}}}, {"x2", {{"field", "fpr_hi"}}}, {"y", y}}}},
                    {{"transform", placeholder_filter()}, {"mark", {{"type", "point"}, {"filled", true}, {"color", "#1f4e79"}}},
                     {"encoding", {{"x", x}, {"y", y}, {"tooltip", json::array({{{"field", "label"}}, {{"field", "tpr"}, {"format", ".2f"}},
                                                                                  {{"field", "fpr"}, {"format", ".2f"}}})}}}},
                    {{"transform", {{{"filter", "datum.best"}}}},
                     {"mark", {{"type", "point"}, {"size", 220}, {"color", "#c62828"}, {"strokeWidth", 2}}},
                     {"encoding", {{"x", x}, {"y", y}}}},
                    {{"transform", placeholder_filter()}, {"mark", {{"type", "text"}, {"align", "left"}, {"dx", 6}, {"dy", -6}, {"fontSize", 9}}},
                     {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "text"}}}}}}})}};
  out.push_back(make_chart(
      id + "-roc", "Threshold sweeps as ROC curves",
      "Each point is one configuration of a detector (its label), pooled over the cells it ran: detection rate on faulty "
      "trials against false-alarm rate on clean trials, with 95 % Wilson intervals on both axes. The red ring marks the "
      "configuration with the largest detection minus false-alarm rate (Youden's J) in the panel.",
      spec));
}

}  // namespace sdc::report
