#include "harness/results/recording_summary.hpp"

#include "harness/results/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace sdc {

namespace {

using json = nlohmann::json;

std::string mean_of(const json& metrics, const std::string& kind, const std::string& name) {
  const std::string key = kind + "." + name + ".mean";
  return metrics.contains(key) && metrics[key].is_number() ? fmt::format("{:.4g}", metrics[key].get<double>()) : "-";
}

}  // namespace

std::string recording_summary_table(const json& r) {
  if (!r.contains("recordings")) return "";
  // Axes whose value differs between recordings.
  std::map<std::string, std::set<std::string>> values;
  for (const auto& rec : r["recordings"])
    for (const auto& [a, v] : rec["axes"].items()) values[a].insert(v.get<std::string>());
  std::vector<std::string> axes;
  for (const auto& [a, v] : values)
    if (v.size() > 1) axes.push_back(a);
  std::vector<std::vector<std::string>> rows;
  for (const auto& rec : r["recordings"]) {
    if (!rec["skipped"].is_null()) continue;
    std::vector<std::string> names;  // NAME for which clean or faulty NAME_p50 exists
    for (const auto& [k, v] : rec["metrics"].items()) {
      const auto p = k.find("_p50.mean");
      if (p != std::string::npos && k.size() == p + 9) names.push_back(k.substr(k.find('.') + 1, p - k.find('.') - 1));
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto& n : names) {
      std::vector<std::string> row;
      for (const auto& a : axes) row.push_back(rec["axes"].value(a, "-"));
      row.push_back(rec["recorder"]["label"].get<std::string>());
      row.push_back(n);
      for (const char* kind : {"clean", "faulty"})
        for (const char* q : {"_p50", "_p90"}) row.push_back(mean_of(rec["metrics"], kind, n + q));
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

std::string comparison_table(const json& r) {
  if (!r.contains("comparisons")) return "";
  const json& c = r["comparisons"];
  auto est = [](const json& e) {
    auto num = [](const json& x) { return x.is_number() ? fmt::format("{:.4g}", x.get<double>()) : std::string("-"); };
    return num(e["mean"]) + " [" + num(e["ci95"][0]) + ", " + num(e["ci95"][1]) + "]";
  };
  std::string out;
  for (const auto& g : c["groups"]) {
    std::vector<std::string> other;  // the group's axes with more than one value in the suite
    for (const auto& [a, v] : g["axes"].items())
      if (r["suite"]["axes"].contains(a) && r["suite"]["axes"][a].size() > 1) other.push_back(a + "=" + v.get<std::string>());
    text_table t;
    t.head = {"metric"};
    bool first = true;
    for (const auto& [name, m] : g["metrics"].items()) {
      std::vector<std::string> row = {name};
      for (const auto& [v, e] : m["values"].items()) {
        if (first) t.head.push_back(v);
        row.push_back(est(e));
      }
      for (const auto& d : m["differences"]) {
        if (first) t.head.push_back(d["a"].get<std::string>() + " - " + d["b"].get<std::string>());
        const json& ci = d["ci95"];
        const bool differ = ci[0].is_number() && ci[1].is_number() && (ci[0].get<double>() > 0 || ci[1].get<double>() < 0);
        row.push_back(est(d) + (differ ? " differ" : ""));
      }
      first = false;
      t.rows.push_back(row);
    }
    std::string label;
    for (const auto& o : other) label += (label.empty() ? "" : ", ") + o;
    out += fmt::format("\n{} by {} ({} episodes, {} units in {} clusters{}{}): mean [95 % interval], paired differences\n",
                       c["recorder"].get<std::string>(), c["axis"].get<std::string>(), g["kind"].get<std::string>(),
                       g["units"].get<int64_t>(), g["clusters"].get<int64_t>(), label.empty() ? "" : "; ", label) +
           t.render();
  }
  return out;
}

}  // namespace sdc
