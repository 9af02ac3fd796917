// Charts of where and when: the injected fault and the detectors' first alarms
// on the episode's timeline beside the loss curves, localization (the rank or
// element a detector blames) with latency, and the campaign's own timing.
#include <fmt/format.h>

#include <map>
#include <regex>

#include "harness/report/chart_builders.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {
namespace {

// The step a `when` axis value injects at: "specific(K)"; empty otherwise.
std::optional<int> fault_step(const std::string& when) {
  static const std::regex specific(R"(specific\((\d{1,6})\))");
  std::smatch m;
  if (std::regex_match(when, m, specific)) return std::stoi(m[1].str());
  return std::nullopt;
}

}  // namespace

void timeline_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  const auto whens = axis_values(r, "when");
  const auto steps = axis_values(r, "steps");
  if (whens.size() != 1 || steps.size() != 1 || !fault_step(whens[0])) return;
  const int k = *fault_step(whens[0]);
  const int n_steps = std::stoi(steps[0]);
  json alarms = json::array();
  for (const auto* c : run_cells(r)) {
    if (!c->faulty || c->faulty->latency_steps.detections == 0) continue;
    const latency& l = c->faulty->latency_steps;
    alarms.push_back({{"detector", c->detector.label}, {"cell", joined_axes(*c, varying_axes(r))},
                      {"first", k + l.p50.value()}, {"last", k + l.max.value()},
                      {"detections", l.detections}, {"trials", c->faulty->detected.trials}});
  }
  if (alarms.empty()) return;
  const json x_scale = {{"domain", {-0.5, n_steps - 0.5}}};
  json step_values = json::array();
  for (int s = 0; s < n_steps; ++s) step_values.push_back(s);
  const json x_axis = {{"values", step_values}, {"format", "d"}};
  const json x_title = "step of the episode";
  json timeline = {
      {"data", {{"values", alarms}}},
      {"width", 560},
      {"height", {{"step", 18}}},
      {"layer",
       json::array({{{"data", {{"values", {{{"step", k}}}}}},
                     {"mark", {{"type", "rule"}, {"color", "#c62828"}, {"strokeWidth", 2}, {"strokeDash", {4, 2}}}},
                     {"encoding", {{"x", {{"field", "step"}, {"type", "quantitative"}}}}}},
                    {{"mark", {{"type", "rule"}, {"color", "#9e9e9e"}, {"strokeWidth", 2}}},
                     {"encoding", {{"x", {{"field", "first"}, {"type", "quantitative"}, {"scale", x_scale}, {"axis", x_axis}, {"title", x_title}}},
                                   {"x2", {{"field", "last"}}},
                                   {"y", {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}}}}}},
                    {{"mark", {{"type", "tick"}, {"color", "#1f4e79"}, {"thickness", 2}, {"opacity", 0.6}, {"tooltip", {{"content", "data"}}}}},
                     {"encoding", {{"x", {{"field", "first"}, {"type", "quantitative"}}},
                                   {"y", {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}}}}}},
                    })}};
  json spec = frame("Injected fault and first alarms on the episode's timeline",
                    fmt::format("fault injected at step {} (red dashed line) of {}", k, n_steps));
  json panels = json::array();
  json loss = json::array();
  for (const auto& rec : r.recordings) {
    if (rec.skipped) continue;
    for (const auto& sr : rec.series_list) {
      if (sr.name != "loss" || sr.over != "step" || sr.rank) continue;
      for (const auto& [kind, stats] : {std::pair{"clean", &sr.clean}, std::pair{"faulty", &sr.faulty}}) {
        if (!*stats) continue;
        const auto& med = (*stats)->median;
        for (size_t step = 0; step < med.size(); ++step)
          if (med[step])
            loss.push_back({{"kind", kind}, {"step", int(step)}, {"loss", *med[step]},
                            {"series", joined_axes(rec, varying_axes(r)) + " · " + kind}});
      }
    }
  }
  if (!loss.empty())
    panels.push_back({{"data", {{"values", loss}}},
                      {"width", 560},
                      {"height", 140},
                      {"mark", {{"type", "line"}, {"point", {{"size", 12}}}}},
                      {"encoding", {{"x", {{"field", "step"}, {"type", "quantitative"}, {"scale", x_scale}, {"axis", x_axis}, {"title", x_title}}},
                                    {"y", {{"field", "loss"}, {"type", "quantitative"}, {"scale", {{"zero", false}}},
                                           {"title", "loss (ranks' mean; episodes' median)"}}},
                                    {"color", {{"field", "series"}, {"type", "nominal"}, {"title", "cell · episodes"}}},
                                    {"strokeDash", {{"field", "kind"}, {"type", "nominal"}, {"legend", nullptr},
                                                    {"scale", {{"domain", {"clean", "faulty"}}, {"range", {json::array(), {5, 3}}}}}}}}}});
  panels.push_back(timeline);
  spec["vconcat"] = panels;
  out.push_back(make_chart(
      id + "-timeline", spec["title"]["text"],
      "Bottom: for each detector, one blue tick per cell at the median step of its first alarm in the faulty episodes it "
      "detected (fault step + median latency) and a grey bar to the latest first alarm (fault step + maximum latency); "
      "cells with no detection have no tick. The red dashed line is the injection step." +
          std::string(loss.empty() ? "" : " Top: the recorder's loss per step (mean of the ranks, median over the cell's episodes), clean episodes solid, faulty dashed."),
      spec));
}

void localization_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  json rows = json::array(), lat = json::array();
  for (const auto& label : detector_labels(r)) {
    pooled loc;
    for (const auto* c : run_cells(r)) {
      if (c->detector.label != label || !c->faulty) continue;
      const faulty_side& f = *c->faulty;
      loc.add(f.localization.count, f.localization.trials);
      if (f.latency_steps.detections > 0)
        for (const auto& [statistic, value] : {std::pair{"median", &f.latency_steps.p50}, std::pair{"maximum", &f.latency_steps.max}})
          lat.push_back({{"detector", label}, {"statistic", statistic}, {"latency", or_null(*value)}, {"cell", joined_axes(*c, varying_axes(r))}});
    }
    if (loc.trials == 0) continue;
    json row = rate_fields(loc);
    row["detector"] = label;
    rows.push_back(row);
  }
  if (rows.empty()) return;
  const json y = {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}};
  json y_unlabelled = y;
  y_unlabelled["axis"] = {{"labels", false}};
  json left = {{"data", {{"values", rows}}},
               {"width", 280},
               {"title", "located correctly"},
               {"layer",
                json::array({{{"mark", {{"type", "rule"}, {"strokeWidth", 1.5}}},
                              {"encoding", {{"y", y}, {"x", {{"field", "lo"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}},
                                                             {"title", "% of detections with a location (95 % Wilson)"}}},
                                            {"x2", {{"field", "hi"}}}}}},
                             {{"mark", {{"type", "point"}, {"filled", true}, {"size", 50}, {"tooltip", {{"content", "data"}}}}},
                              {"encoding", {{"y", y}, {"x", {{"field", "rate"}, {"type", "quantitative"}}}}}}})}};
  json right = {{"data", {{"values", lat}}},
                {"width", 240},
                {"title", "latency of the first alarm"},
                {"mark", {{"type", "tick"}, {"thickness", 2}, {"opacity", 0.6}, {"tooltip", {{"content", "data"}}}}},
                {"encoding", {{"y", y_unlabelled}, {"x", {{"field", "latency"}, {"type", "quantitative"}, {"title", "steps after the injection"}}},
                              {"color", {{"field", "statistic"}, {"type", "nominal"}, {"scale", {{"domain", {"median", "maximum"}}, {"range", {"#1f4e79", "#c62828"}}}},
                                         {"title", "per cell"}}}}}};
  json spec = frame("Localization and latency per detector");
  spec["hconcat"] = lat.empty() ? json::array({left}) : json::array({left, right});
  spec["resolve"] = {{"scale", {{"y", "shared"}}}};
  out.push_back(make_chart(id + "-localization", "Localization and latency per detector",
                           "Left: of the detections where the detector named a location (a rank, a row, an element), the "
                           "share that named the faulty one, pooled over cells. Right: per cell, the median (blue) and "
                           "maximum (red) number of steps from the injection to the detector's first alarm.",
                           spec));
}

void overhead_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  if (r.timing.empty()) return;
  std::map<std::string, std::pair<double, double>> sums;
  for (const auto& t : r.timing) {
    auto& [d, k] = sums[t.detector];
    d += t.detector_seconds, k += t.kernel_seconds;
  }
  json rows = json::array();
  for (const auto& label : detector_labels(r))
    if (sums.count(label) && sums[label].second > 0)
      rows.push_back({{"detector", label}, {"ratio", 100.0 * sums[label].first / sums[label].second},
                      {"detector_seconds", sums[label].first}, {"kernel_seconds", sums[label].second}});
  if (rows.empty()) return;
  json spec = frame("Campaign timing: detector time over workload time",
                    "the detectors' plain reference implementations as the campaign ran them — not their cost in deployment");
  spec["data"] = {{"values", rows}};
  spec["width"] = 420;
  spec["height"] = {{"step", 16}};
  const json y = {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}};
  spec["layer"] = json::array(
      {{{"mark", {{"type", "bar"}, {"color", "#78909c"}, {"tooltip", {{"content", "data"}}}}},
        {"encoding", {{"y", y}, {"x", {{"field", "ratio"}, {"type", "quantitative"}, {"title", "detector seconds / workload kernel seconds (%)"}}}}}},
       {{"mark", {{"type", "text"}, {"align", "left"}, {"dx", 3}, {"fontSize", 9}}},
        {"encoding", {{"y", y}, {"x", {{"field", "ratio"}, {"type", "quantitative"}}}, {"text", {{"field", "ratio"}, {"format", ".1f"}}}}}}});
  out.push_back(make_chart(
      id + "-campaign-timing", "Campaign timing: detector time over workload time",
      "Seconds spent in each detector's checks divided by seconds spent in the workload's kernels (the GEMM, the training "
      "step), summed over the run's trials on its threads; what a training step did for a detector (copies of its GEMMs, "
      "hashes, a rerun's saved state, a guard's checks inside the GEMMs) is the detector's, not the step's. The campaign "
      "runs each detector's plain reference twin on small problems, so this is what the run cost, not what the check "
      "costs beside an optimized kernel: the benchmark programs in bench/ measure that (results/README.md).",
      spec));
}

}  // namespace sdc::report
