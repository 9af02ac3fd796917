// Charts of training outcome labels (schema 3's by_label and workload_series,
// METHODOLOGY.md "Outcome labels"): per cell, the faulty episodes' loss excess
// over their clean twins per step, by label, inside the clean runs' noise
// band; and each detector's detection rate per label with its interval.
#include <fmt/format.h>

#include <iterator>
#include <map>
#include <set>

#include "harness/report/chart_builders.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {
namespace {

const std::vector<std::string> k_labels(std::begin(k_outcome_labels), std::end(k_outcome_labels));  // the format's order

// One record per cell that ran and has labels (the workload's curves and the
// label counts are the same in every detector's record of a cell).
std::vector<const cell_record*> labelled_cells(const result_set& r) {
  std::vector<const cell_record*> out;
  std::set<int64_t> seen;
  for (const auto* c : run_cells(r))
    if (c->by_label && seen.insert(c->cell).second) out.push_back(c);
  return out;
}

// The faulty episodes' medians of the cell's workload series `name`; nullptr
// when the cell has no such series or no faulty episode had it.
const std::vector<std::optional<double>>* faulty_medians(const cell_record& cell, const std::string& name) {
  for (const auto& s : cell.workload_series)
    if (s.name == name && s.faulty) return &s.faulty->median;
  return nullptr;
}

void trajectory_chart(const result_set& r, const std::string& id, const std::vector<const cell_record*>& cells, std::vector<chart>& out) {
  json lines = json::array(), band = json::array();
  for (const auto* c : cells) {
    const std::string cell = joined_axes(*c, varying_axes(r));
    const size_t lines_before = lines.size();
    for (const auto& label : k_labels) {
      const int64_t n = c->by_label->at(label).trials;
      const auto* med = faulty_medians(*c, "loss_excess/" + label);
      if (!med || n == 0) continue;
      for (size_t k = 0; k < med->size(); ++k)
        if ((*med)[k])
          lines.push_back({{"cell", cell}, {"step", int(k)}, {"excess", *(*med)[k]}, {"label", fmt::format("{} ({})", label, n)},
                           {"outcome", label}});
    }
    // A cell without a curve (every label's median null) gets no band either:
    // a facet of bands alone has no extent on the excess axis.
    if (lines.size() == lines_before) continue;
    for (const char* name : {"loss_band", "loss_band_smoothed"}) {
      const auto* med = faulty_medians(*c, name);
      if (!med) continue;
      for (size_t k = 0; k < med->size(); ++k)
        if ((*med)[k])
          band.push_back({{"cell", cell}, {"step", int(k)}, {"lo", -*(*med)[k]}, {"hi", *(*med)[k]},
                          {"band", name == std::string("loss_band") ? "single step" : "smoothed (10 steps)"}});
    }
  }
  if (lines.empty()) return;
  const json x = {{"field", "step"}, {"type", "quantitative"}, {"title", "steps since the fault's first firing"}};
  auto only = [](const char* layer) { return json::array({{{"filter", {{"field", "layer"}, {"equal", layer}}}}}); };
  const json layers = json::array(
      {{{"transform", only("band")},
        {"mark", {{"type", "area"}, {"opacity", 0.18}}},
        {"encoding", {{"x", x},
                      {"y", {{"field", "lo"}, {"type", "quantitative"}, {"title", "loss - twin's"}}},
                      {"y2", {{"field", "hi"}}},
                      {"fill", {{"field", "band"}, {"type", "nominal"}, {"title", "clean runs' band (p99)"},
                                {"scale", {{"range", {"#9e9e9e", "#424242"}}}}}}}}},
       {{"transform", only("line")},
        {"mark", {{"type", "line"}, {"point", {{"size", 10}}}, {"tooltip", {{"content", "data"}}}}},
        {"encoding", {{"x", x},
                      {"y", {{"field", "excess"}, {"type", "quantitative"}}},
                      {"color", {{"field", "outcome"}, {"type", "nominal"}, {"scale", {{"domain", k_labels}}}, {"title", "outcome label"}}},
                      {"detail", {{"field", "label"}}}}}}});
  // One data set for the facet: each row says which layer draws it.
  json all = json::array();
  for (auto row : band) row["layer"] = "band", all.push_back(row);
  for (auto row : lines) row["layer"] = "line", all.push_back(row);
  json spec = frame("Loss trajectories of faulty episodes against their clean twins, by outcome label",
                    "per cell; the grey bands are the 99th percentile of clean runs' differences (data order only)");
  spec["data"] = {{"values", all}};
  spec["facet"] = {{"row", {{"field", "cell"}, {"type", "nominal"}, {"title", nullptr}}}};
  spec["spec"] = {{"width", 520}, {"height", 120}, {"layer", layers}};
  spec["resolve"] = {{"scale", {{"y", "independent"}}}};
  out.push_back(make_chart(id + "-trajectories", spec["title"]["text"],
                           "Each line is the median, over the cell's faulty episodes with that label (count in the tooltip's "
                           "label), of the episode's mean-of-ranks training loss minus its clean twin's (same data), from the "
                           "step the fault first fired. The shaded bands are the noise band the labels use: the 99th "
                           "percentile of the same difference between clean runs that differ only in data order and rank "
                           "seeds, per step (light) and for the 10-step trailing mean (dark).",
                           spec));
}

void label_rate_chart(const result_set& r, const std::string& id, std::vector<chart>& out) {
  json rows = json::array();
  for (const auto* c : run_cells(r)) {
    if (!c->by_label) continue;
    for (const auto& label : k_labels) {
      const label_count& b = c->by_label->at(label);
      if (b.trials == 0) continue;
      pooled p;
      p.add(b.detected, b.trials);
      json row = rate_fields(p);
      row["detector"] = c->detector.label, row["label"] = label, row["cell"] = joined_axes(*c, varying_axes(r));
      row["latency_p50"] = or_null(b.latency_p50);
      row["text"] = fmt::format("{}/{}", b.detected, b.trials);
      rows.push_back(row);
    }
  }
  if (rows.empty()) return;
  const json x = {{"field", "label"}, {"type", "nominal"}, {"sort", k_labels}, {"title", "outcome label"}};
  const json y = {{"field", "detector"}, {"type", "nominal"}, {"sort", detector_labels(r)}, {"title", nullptr}};
  json spec = frame("Detection rate per outcome label", "per cell: detected / faulty episodes with the label");
  spec["data"] = {{"values", rows}};
  spec["facet"] = {{"row", {{"field", "cell"}, {"type", "nominal"}, {"title", nullptr}}}};
  spec["spec"] = {
      {"width", {{"step", 70}}},
      {"height", {{"step", 16}}},
      {"layer",
       json::array({{{"mark", {{"type", "rect"}, {"tooltip", {{"content", "data"}}}}},
                     {"encoding", {{"x", x}, {"y", y},
                                   {"color", {{"field", "rate"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}, {"scheme", "blues"}}},
                                              {"title", percent_axis_title("detected")}}}}}},
                    {{"mark", {{"type", "text"}, {"fontSize", 9}}},
                     {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "text"}}}}}}})}};
  out.push_back(make_chart(id + "-by-label", spec["title"]["text"],
                           "Per cell and detector, the faulty episodes of each outcome label and how many of them the "
                           "detector flagged (the tooltip has the Wilson 95 % interval and the median latency). A detector "
                           "that only catches non_finite shows it here.",
                           spec));
}

}  // namespace

void outcome_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  const auto cells = labelled_cells(r);
  if (cells.empty()) return;
  trajectory_chart(r, id, cells, out);
  label_rate_chart(r, id, out);
}

}  // namespace sdc::report
