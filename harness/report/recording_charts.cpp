// Recorders' charts from their typed series (schema 3): histograms (000
// Figure 2: the histogram recorder's series over bins) and curves over an
// episode's steps (002 Figures 1-8: the consistency_curve recorder; per-step
// losses of every rank: training_curve).
#include <fmt/format.h>

#include <map>
#include <set>

#include "harness/report/chart_builders.hpp"
#include "harness/results/report.hpp"

namespace sdc::report {
namespace {

// The recordings' varying axes: the suite's, as for cells.
std::string series_of(const result_set& r, const recording_record& rec) { return joined_axes(rec, varying_axes(r)); }

// Calls f(kind, index, value) for each non-null value of a series' clean and
// faulty `stat` (series_stats::median, ::mean).
template <class F>
void each_point(const series_entry& series, std::vector<std::optional<double>> series_stats::*stat, F&& f) {
  for (const auto& [kind, k] : {std::pair{"clean", &series.clean}, std::pair{"faulty", &series.faulty}}) {
    if (!*k) continue;
    const auto& values = (**k).*stat;
    for (size_t i = 0; i < values.size(); ++i)
      if (values[i]) f(std::string(kind), int(i), *values[i]);
  }
}

}  // namespace

void histogram_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  json rows = json::array();
  std::set<std::string> series;
  std::string params;
  for (const auto& rec : r.recordings) {
    if (rec.skipped || rec.series_list.empty()) continue;
    const json& p = rec.recorder.params;
    if (!p.contains("bins") || !p.contains("lo") || !p.contains("hi")) continue;
    const double lo = p["lo"], hi = p["hi"], bins = p["bins"];
    params = fmt::format("{} bins over [{}, {})", bins, lo, hi);
    const std::string s = series_of(r, rec);
    for (const auto& sr : rec.series_list) {
      if (sr.over != "bin") continue;
      each_point(sr, &series_stats::mean, [&](const std::string& kind, int b, double v) {
        series.insert(s);
        rows.push_back({{"series", s}, {"kind", kind}, {"lo", lo + b * (hi - lo) / bins}, {"hi", lo + (b + 1) * (hi - lo) / bins}, {"count", v}});
      });
    }
  }
  if (rows.empty() || series.size() > 8) return;
  json spec = frame("Histograms of the recorded values", params);
  spec["data"] = {{"values", rows}};
  if (series.size() > 1) spec["facet"] = {{"row", {{"field", "series"}, {"type", "nominal"}, {"title", nullptr}}}};
  json inner = {{"width", 520},
                {"height", 180},
                {"mark", {{"type", "rect"}, {"opacity", 0.55}}},
                {"encoding",
                 {{"x", {{"field", "lo"}, {"type", "quantitative"}, {"title", "log-norm (the value the detectors test), bin edges"}}},
                  {"x2", {{"field", "hi"}}},
                  {"y", {{"field", "count"}, {"type", "quantitative"}, {"stack", nullptr}, {"title", "values per bin (mean over samples)"}}},
                  {"color", {{"field", "kind"}, {"type", "nominal"}, {"scale", {{"domain", {"clean", "faulty"}}, {"range", {"#1f4e79", "#c62828"}}}},
                             {"title", "samples"}}},
                  {"tooltip", {{{"field", "kind"}}, {{"field", "lo"}}, {{"field", "hi"}}, {{"field", "count"}, {"format", ".4g"}}}}}}};
  if (series.size() > 1) {
    spec["spec"] = inner;
  } else {
    for (auto it = inner.begin(); it != inner.end(); ++it) spec[it.key()] = it.value();
  }
  out.push_back(make_chart(id + "-histogram", "Histograms of the recorded values",
                           "Mean count per bin of the values in clean samples (blue) and in samples with injected faults "
                           "(red), overlaid (not stacked); values outside the recorder's range are not drawn. Linear count axis.",
                           spec));
}

void step_series_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  std::map<std::string, json> by_recorder;  // recorder label -> rows
  std::map<std::string, std::set<std::string>> series_of_recorder;
  for (const auto& rec : r.recordings) {
    if (rec.skipped || rec.series_list.empty()) continue;
    const std::string& label = rec.recorder.label;
    const std::string s = series_of(r, rec);
    for (const auto& sr : rec.series_list) {
      if (sr.over != "step") continue;
      const std::string metric = sr.name + (sr.rank ? " of each rank" : "");
      const std::string series = sr.rank ? s + " · rank " + std::to_string(*sr.rank) : s;
      each_point(sr, &series_stats::median, [&](const std::string& kind, int step, double v) {
        series_of_recorder[label].insert(series);
        by_recorder[label].push_back({{"metric", metric}, {"series", series}, {"kind", kind}, {"step", step}, {"value", v}});
      });
    }
  }
  int n = 0;
  for (auto& [label, rows] : by_recorder) {
    const size_t n_series = series_of_recorder[label].size();
    if (n_series > 40) continue;
    // One panel per metric (vconcat, not a facet, so each panel picks its own
    // y scale: logarithmic where positive values span over three decades, as
    // a gradient norm does after an exponent flip; otherwise linear).
    std::map<std::string, std::pair<double, double>> range;  // metric -> min, max
    for (const auto& row : rows) {
      auto [it, fresh] = range.try_emplace(row["metric"], row["value"].get<double>(), row["value"].get<double>());
      it->second = {std::min(it->second.first, row["value"].get<double>()), std::max(it->second.second, row["value"].get<double>())};
    }
    json panels = json::array();
    for (const auto& [metric, mm] : range) {
      const bool log = mm.first > 0 && mm.second / mm.first > 1e3;
      json y = {{"field", "value"}, {"type", "quantitative"}, {"axis", {{"format", log ? ".0e" : "~g"}}},
                {"title", log ? "median over episodes (log)" : "median over episodes"}};
      y["scale"] = log ? json{{"type", "log"}} : json{{"zero", false}};
      panels.push_back(
          {{"title", {{"text", metric}, {"anchor", "start"}, {"fontSize", 12}}},
           {"width", 560},
           {"height", 150},
           {"transform", {{{"filter", {{"field", "metric"}, {"equal", metric}}}}}},
           {"mark", {{"type", "line"}, {"point", {{"size", 12}}}, {"strokeWidth", 1.3}}},
           {"encoding",
            {{"x", {{"field", "step"}, {"type", "quantitative"}, {"axis", {{"tickMinStep", 1}, {"format", "d"}}},
                    {"title", "step of the episode (after the shared warm-up)"}}},
             {"y", y},
             {"color", {{"field", "series"}, {"type", "nominal"}, {"title", "series"},
                        {"scale", {{"scheme", n_series > 10 ? "category20" : "category10"}}}}},
             {"strokeDash", {{"field", "kind"}, {"type", "nominal"}, {"title", "episodes"},
                             {"legend", nullptr},  // a stroke legend draws no symbol here: the subtitle says it
                             {"scale", {{"domain", {"clean", "faulty"}}, {"range", {json::array(), {5, 3}}}}}}},
             {"tooltip", {{{"field", "metric"}}, {{"field", "series"}}, {{"field", "kind"}}, {{"field", "step"}},
                          {{"field", "value"}, {"format", ".5g"}}}}}}});
    }
    json spec = frame(fmt::format("Curves over the episode's steps: {}", label),
                      fmt::format("solid: clean episodes, dashed: faulty episodes; one panel per metric, series: {}",
                                  varying_axes(r).empty() ? "one cell" : fmt::format("{}", fmt::join(varying_axes(r), " · "))));
    spec["data"] = {{"values", rows}};
    spec["vconcat"] = panels;
    out.push_back(make_chart(fmt::format("{}-steps-{}", id, n++), spec["title"]["text"],
                             "Per step of the episode, the recorder's metric: the median over the cell's clean episodes "
                             "(solid) and over its faulty episodes (dashed); one colour per cell (the suite's varying axes) "
                             "or per rank. Each panel has its own y scale, not starting at zero; a panel whose positive "
                             "values span more than three decades is logarithmic (its axis title says so).",
                             spec));
  }
}

}  // namespace sdc::report
