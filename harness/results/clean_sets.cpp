#include "harness/results/clean_sets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "protocol/workload.hpp"

namespace sdc {

using json = nlohmann::json;

std::vector<std::string> fault_axes_before_v4(const json& suite_block) {
  if (suite_block.value("workload", "") != "training") return {};
  return {"site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin"};
}

json expected_clean_set(const json& record, const std::vector<std::string>& fault_axes) {
  if (fault_axes.empty() || !record.value("skipped", json()).is_null() || !record.contains("axes")) return nullptr;
  std::vector<std::pair<std::string, std::string>> axes;
  for (auto it = record["axes"].begin(); it != record["axes"].end(); ++it)
    axes.emplace_back(it.key(), it->is_string() ? it->get<std::string>() : it->dump());
  return clean_set_id(axes, fault_axes);
}

void check_clean_sets(const json& j, std::vector<std::string>& problems) {
  std::vector<std::string> fault_axes;
  for (const auto& a : j["suite"]["fault_axes"]) fault_axes.push_back(a.get<std::string>());
  for (const char* part : {"cells", "recordings"}) {
    const char* role = std::string(part) == "cells" ? "detector" : "recorder";
    std::map<std::pair<std::string, std::string>, size_t> first;  // (label, set) -> the first record naming it
    const auto& recs = j[part];
    for (size_t i = 0; i < recs.size(); ++i) {
      const auto& r = recs[i];
      // fmt, not operator+: in some unity files GCC 12 warns falsely (-Wstringop-overflow) on the concatenation.
      const std::string at = fmt::format("/{}/{}/clean_set", part, i);
      const json want = expected_clean_set(r, fault_axes);
      if (r["clean_set"] != want) {
        problems.push_back(at + ": expected " + want.dump() + " (the record's axes but the suite's fault_axes); got " + r["clean_set"].dump());
        continue;
      }
      if (want.is_null()) continue;
      const auto key = std::make_pair(r[role]["label"].get<std::string>(), want.get<std::string>());
      const auto [it, added] = first.emplace(key, i);
      if (added) continue;
      const auto& o = recs[it->second];
      // Every part a clean episode feeds: the clean block, the clean metrics
      // (the detector's and the workload's), the series' clean side, and a
      // compared recorder's clean episodes.
      auto clean_side = [](const json& x) {
        json m = json::object();
        for (const char* block : {"metrics", "workload_metrics"})
          if (x.contains(block))
            for (auto e = x[block].begin(); e != x[block].end(); ++e)
              if (e.key().starts_with("clean")) m[std::string(block) + "/" + e.key()] = *e;
        json series = json::array();
        if (x.contains("series"))
          for (const auto& s : x["series"]) series.push_back({s.value("name", json()), s.value("rank", json()), s.value("clean", json())});
        const json episodes = x.contains("episodes") ? x["episodes"].value("clean", json()) : json();
        return json{x.value("clean", json()), m, series, episodes};
      };
      if (clean_side(r) != clean_side(o))
        problems.push_back(at + ": names the clean set of /" + std::string(part) + "/" + std::to_string(it->second) +
                           " but its clean side differs (one clean set, one set of clean episodes)");
    }
  }
}

bool clean_pool::first(const std::optional<std::string>& clean_set, const std::string& pool) {
  if (!clean_set) return true;
  return seen_.emplace(pool, *clean_set).second;
}

}  // namespace sdc
