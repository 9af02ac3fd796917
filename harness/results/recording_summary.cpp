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

}  // namespace sdc
