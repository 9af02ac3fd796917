// Detection and false-alarm rates: per detector by fault significance, the
// paper's published rates beside ours and the bit x axis heat map (001 Table 8
// style). Threshold sweeps as ROC curves: roc_chart.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "harness/report/chart_builders.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {
namespace {

const std::vector<std::pair<band significance_bands::*, std::string>> k_bands = {
    {&significance_bands::large, "large faults"},
    {&significance_bands::small, "small faults"},
    {&significance_bands::within_noise, "within noise"},
    {&significance_bands::masked, "masked"}};

json rule_and_point(const json& x_title, const std::string& x_lo = "lo", const std::string& x_hi = "hi") {
  return json::array(
      {{{"mark", {{"type", "rule"}, {"strokeWidth", 1.5}}},
        {"encoding",
         {{"x", {{"field", x_lo}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}}, {"title", x_title}}},
          {"x2", {{"field", x_hi}}}}}},
       {{"mark", {{"type", "point"}, {"filled", true}, {"size", 45}}},
        {"encoding",
         {{"x", {{"field", "rate"}, {"type", "quantitative"}}},
          {"tooltip", json::array({{{"field", "detector"}}, {{"field", "measure"}}, {{"field", "rate"}, {"format", ".2f"}},
                                   {{"field", "hits"}}, {{"field", "trials"}}})}}}}});
}

}  // namespace

void rate_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  const auto cells = run_cells(r);
  if (cells.empty()) return;
  std::vector<std::string> measures = {"all faults"};
  for (const auto& [k, name] : k_bands) measures.push_back(name);
  measures.push_back("false alarms (clean)");
  json rows = json::array();
  clean_pool sets;  // a clean set its cells share counts once
  for (const auto& label : detector_labels(r)) {
    std::map<std::string, pooled> p;
    for (const auto* c : cells) {
      if (c->detector.label != label) continue;
      if (c->faulty) p["all faults"].add(c->faulty->detected.count, c->faulty->detected.trials);
      if (c->clean && sets.first(c->clean_set, label)) p["false alarms (clean)"].add(c->clean->flagged.count, c->clean->flagged.trials);
      if (c->by_significance)
        for (const auto& [member, name] : k_bands) {
          const band& b = (*c->by_significance).*member;
          p[name].add(b.detected, b.trials);
        }
    }
    for (const auto& m : measures) {
      if (!p.count(m) || p[m].trials == 0) continue;
      json row = rate_fields(p[m]);
      row["detector"] = label, row["measure"] = m;
      rows.push_back(row);
    }
  }
  if (rows.empty()) return;
  json spec = frame("Detection and false alarms per detector",
                    fmt::format("{} cells pooled per detector; faulty trials split by the fault's significance", cells.size()));
  spec["data"] = {{"values", rows}};
  spec["width"] = 520;
  spec["height"] = {{"step", 9}, {"for", "offset"}};
  spec["encoding"] = {{"y", {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}}},
                      {"yOffset", {{"field", "measure"}, {"type", "nominal"}, {"sort", measures}}},
                      {"color",
                       {{"field", "measure"},
                        {"type", "nominal"},
                        {"sort", measures},
                        {"title", "trials"},
                        {"scale", {{"domain", measures},
                                   {"range", {"#1f4e79", "#2e7d32", "#9ccc65", "#bdbdbd", "#e0e0e0", "#c62828"}}}}}}};
  spec["layer"] = rule_and_point(percent_axis_title("flagged"));
  out.push_back(make_chart(
      id + "-rates", "Detection and false alarms per detector",
      "Share of faulty trials detected (all faults, and per significance band from the MPFR ground truth: large faults "
      "change the result beyond the workload's noise, small ones within a few ulps, within-noise ones not measurably, "
      "masked ones not at all) and share of clean trials flagged (false alarms). Counts are pooled over every cell the "
      "detector ran, a clean set its cells share once; bars are 95 % Wilson intervals of the pooled counts.",
      spec));
}

void paper_rate_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  const auto varying = varying_axes(r);
  json rows = json::array();
  std::vector<std::string> order;
  size_t referenced = 0;
  for (const auto* c : run_cells(r)) {
    if (!c->reference || !(c->reference->count("faulty.rate") || c->reference->count("clean.rate"))) continue;
    const auto& ref = *c->reference;
    if (++referenced > 150) continue;
    const std::string row_label = c->detector.label + " — " + joined_axes(*c, varying);
    order.push_back(row_label);
    const counted_rate* faulty = c->faulty ? &c->faulty->detected : nullptr;
    const counted_rate* clean = c->clean ? &c->clean->flagged : nullptr;
    for (const auto& [key, measure, ours] : {std::tuple{"faulty.rate", "detection", faulty}, std::tuple{"clean.rate", "false alarms", clean}}) {
      if (!ref.count(key) || !ours) continue;
      pooled p;
      p.add(ours->count, ours->trials);
      json m = rate_fields(p);
      m["row"] = row_label, m["measure"] = measure, m["source"] = "measured", m["detector"] = c->detector.label;
      rows.push_back(m);
      rows.push_back({{"row", row_label}, {"measure", measure}, {"source", "paper"}, {"rate", 100.0 * published_value(ref, key)},
                      {"note", published_note(ref)}});
    }
  }
  if (rows.empty()) return;
  json spec = frame("Published rates vs measured", referenced > 150 ? fmt::format("first 150 of {} cells with published rates", referenced) : "");
  spec["data"] = {{"values", rows}};
  spec["width"] = 460;
  spec["height"] = {{"step", 12}, {"for", "offset"}};
  spec["encoding"] = {{"y", {{"field", "row"}, {"type", "nominal"}, {"sort", order}, {"title", nullptr}}},
                      {"yOffset", {{"field", "measure"}, {"type", "nominal"}}},
                      {"color", {{"field", "measure"}, {"type", "nominal"}, {"scale", {{"range", {"#1f4e79", "#c62828"}}}}}}};
  json rule = {{"transform", {{{"filter", "datum.source == 'measured'"}}}},
               {"mark", {{"type", "rule"}, {"strokeWidth", 1.5}}},
               {"encoding",
                {{"x", {{"field", "lo"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}},
                        {"title", percent_axis_title("rate")}}},
                 {"x2", {{"field", "hi"}}}}}};
  const json x = {{"field", "rate"}, {"type", "quantitative"}};
  const json color = {{"field", "measure"}, {"type", "nominal"}};
  spec["layer"] = {rule, point_layer("measured", true, x, json(), color), point_layer("paper", false, x, json(), color)};
  out.push_back(make_chart(id + "-paper-rates", "Published rates vs measured",
                           "For every cell whose suite carries the paper's published detection or false-alarm rate: the "
                           "paper's value (open diamond) and ours (filled circle, 95 % Wilson interval of the cell's "
                           "trials). Rows are detector — the cell's varying axes.",
                           spec));
}

void heat_map_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  auto varying = varying_axes(r);
  const bool has_bit = std::find(varying.begin(), varying.end(), "bit") != varying.end();
  if (!has_bit && varying.size() < 2) return;
  std::stable_sort(varying.begin(), varying.end(), [&](const std::string& a, const std::string& b) {
    if ((a == "bit") != (b == "bit")) return a == "bit";
    return axis_values(r, a).size() > axis_values(r, b).size();
  });
  const std::string x_axis = varying[0];
  const std::string y_axis = varying.size() > 1 ? varying[1] : "";
  const std::vector<std::string> rest(varying.begin() + std::min<size_t>(2, varying.size()), varying.end());
  json rows = json::array();
  bool any_paper = false;
  auto label_of = [](double rate) {
    if (rate > 0 && rate < 1) return std::string("<1");
    if (rate > 99 && rate < 100) return std::string(">99");
    return fmt::format("{:.0f}", rate);
  };
  for (const auto* c : run_cells(r)) {
    if (!c->faulty || c->faulty->detected.trials == 0) continue;
    pooled p;
    p.add(c->faulty->detected.count, c->faulty->detected.trials);
    json row = rate_fields(p);
    const std::string panel = rest.empty() ? "" : joined_axes(*c, rest);
    row["detector"] = c->detector.label, row["x"] = axis_text(*c, x_axis);
    row["y"] = y_axis.empty() ? "all" : axis_text(*c, y_axis);
    row["panel"] = panel;
    row["label"] = label_of(row["rate"].get<double>());
    rows.push_back(row);
    if (c->reference && c->reference->count("faulty.rate")) {
      any_paper = true;
      json pr = row;
      pr["rate"] = 100.0 * published_value(*c->reference, "faulty.rate");
      pr["label"] = label_of(pr["rate"].get<double>());
      pr["panel"] = panel.empty() ? "paper" : panel + " — paper";
      pr.erase("lo"), pr.erase("hi"), pr.erase("hits"), pr.erase("trials");
      rows.push_back(pr);
    }
  }
  if (rows.empty()) return;
  if (any_paper)
    for (auto& row : rows)
      if (row.contains("hits"))  // measured (paper rows have no counts)
        row["panel"] = row["panel"].get<std::string>().empty() ? "measured" : row["panel"].get<std::string>() + " — measured";
  const bool columns = any_paper || !rest.empty();
  if (columns) fill_facet_grid(rows, "detector", "panel");
  json spec = frame(fmt::format("Detection by {} and {}", x_axis, y_axis.empty() ? "detector" : y_axis),
                    fmt::format("rows: detector; within a panel: {} across, {} down{}", x_axis, y_axis.empty() ? "-" : y_axis,
                                rest.empty() ? "" : "; panels: " + fmt::format("{}", fmt::join(rest, " · "))));
  spec["data"] = {{"values", rows}};
  json facet = {{"row", {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}}}};
  if (columns) facet["column"] = {{"field", "panel"}, {"type", "nominal"}, {"title", nullptr}};
  spec["facet"] = facet;
  const bool text = axis_values(r, x_axis).size() <= 16;
  json inner = {
      {"width", {{"step", text ? 30 : 16}}},
      {"height", {{"step", 20}}},
      {"encoding",
       {{"x", {{"field", "x"}, {"type", "nominal"}, {"sort", axis_values(r, x_axis)}, {"title", x_axis}, {"axis", {{"labelAngle", -40}}}}},
        {"y", {{"field", "y"}, {"type", "nominal"}, {"sort", y_axis.empty() ? json::array({"all"}) : json(axis_values(r, y_axis))},
               {"title", nullptr}}}}},
      {"layer",
       json::array({{{"mark", "rect"},
                     {"transform", placeholder_filter()},
                     {"encoding",
                      {{"color", {{"field", "rate"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}, {"scheme", "viridis"}}},
                                  {"title", "detected (% of faulty trials)"}}},
                       {"tooltip", json::array({{{"field", "detector"}}, {{"field", "panel"}}, {{"field", "x"}}, {{"field", "y"}},
                                                {{"field", "rate"}, {"format", ".2f"}}, {{"field", "hits"}}, {{"field", "trials"}}})}}}}})}};
  if (text)
    inner["layer"].push_back({{"mark", {{"type", "text"}, {"fontSize", 9}}},
                              {"transform", placeholder_filter()},
                              {"encoding",
                               {{"text", {{"field", "label"}}},
                                {"color", {{"condition", {{"test", "datum.rate > 60"}, {"value", "black"}}}, {"value", "white"}}}}}});
  spec["spec"] = inner;
  out.push_back(make_chart(
      id + "-heatmap", spec["title"]["text"],
      fmt::format("Share of faulty trials detected per cell (colour, 0-100 %; the number printed is the rate rounded, "
                  "\"<1\" a rate above 0 and below 1 %, \">99\" one above 99 and below 100 %). One row of panels per "
                  "detector; a blank square is a cell without faulty trials (every fault skipped){}.",
                  any_paper ? "; the paper's published rates in the panels marked \"paper\"" : ""),
      spec));
}

}  // namespace sdc::report
