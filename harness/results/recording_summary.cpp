#include "harness/results/recording_summary.hpp"

#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace sdc {

namespace {

std::string mean_of(const metric_map& metrics, const std::string& kind, const std::string& name) {
  const auto it = metrics.find(kind + "." + name + ".mean");
  return it != metrics.end() && it->second ? fmt::format("{:.4g}", *it->second) : "-";
}

}  // namespace

std::string recording_summary_table(const result_set& r) {
  // Axes whose value differs between recordings.
  std::map<std::string, std::set<std::string>> values;
  for (const auto& rec : r.recordings)
    for (const auto& [a, v] : rec.axes) values[a].insert(v);
  std::vector<std::string> axes;
  for (const auto& [a, v] : values)
    if (v.size() > 1) axes.push_back(a);
  std::vector<std::vector<std::string>> rows;
  for (const auto& rec : r.recordings) {
    if (rec.skipped) continue;
    std::vector<std::string> names;  // NAME for which clean or faulty NAME_p50 exists
    for (const auto& [k, v] : rec.metrics) {
      const auto p = k.find("_p50.mean");
      if (p != std::string::npos && k.size() == p + 9) names.push_back(k.substr(k.find('.') + 1, p - k.find('.') - 1));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& n : names) {
      std::vector<std::string> row;
      for (const auto& a : axes) row.push_back(axis_text(rec, a));
      row.push_back(rec.recorder.label);
      row.push_back(n);
      for (const char* kind : {"clean", "faulty"})
        for (const char* q : {"_p50", "_p90"}) row.push_back(mean_of(rec.metrics, kind, n + q));
      rows.push_back(row);
    }
  }
  if (rows.empty()) return "";
  text_table t;
  t.head = axes;
  for (const char* h : {"recorder", "metric (per step, over ranks)", "clean p50", "clean p90", "faulty p50", "faulty p90"}) t.head.push_back(h);
  t.rows = std::move(rows);
  std::string out = "\nover each episode's steps: median (p50) and 90th percentile (p90), mean over episodes\n" + t.render();
  return out;
}

std::string comparison_table(const result_set& r) {
  if (!r.comparisons) return "";
  const paired_comparisons_block& c = *r.comparisons;
  auto num = [](const std::optional<double>& x) { return x ? fmt::format("{:.4g}", *x) : std::string("-"); };
  auto est = [&](const estimate& e) { return num(e.mean) + " [" + num(e.lo) + ", " + num(e.hi) + "]"; };
  std::string out;
  for (const auto& g : c.groups) {
    std::vector<std::string> other;  // the group's axes with more than one value in the suite
    for (const auto& [a, v] : g.axes)
      if (const auto* values = r.suite.axis(a); values && values->size() > 1) other.push_back(a + "=" + v);
    text_table t;
    t.head = {"metric"};
    bool first = true;
    for (const auto& [name, m] : g.metrics) {
      std::vector<std::string> row = {name};
      for (const auto& [v, e] : m.values) {
        if (first) t.head.push_back(v);
        row.push_back(est(e));
      }
      for (const auto& d : m.differences) {
        if (first) t.head.push_back(d.a + " - " + d.b);
        const bool differ = d.e.lo && d.e.hi && (*d.e.lo > 0 || *d.e.hi < 0);
        row.push_back(est(d.e) + (differ ? " differ" : ""));
      }
      first = false;
      t.rows.push_back(row);
    }
    std::string label;
    for (const auto& o : other) label += (label.empty() ? "" : ", ") + o;
    out += fmt::format("\n{} by {} ({} episodes, {} units in {} clusters{}{}): mean [95 % interval], paired differences\n",
                       c.recorder, c.axis, g.kind, g.units, g.clusters, label.empty() ? "" : "; ", label) +
           t.render();
  }
  return out;
}

}  // namespace sdc
