// sdcbench.result/1 -> 2 -> 3 -> 4 (see result_set.hpp), and reading any version as 4.
#include <cmath>
#include <string>

#include "foundation/errors.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/paired.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/series.hpp"
#include "foundation/scoring/proportions.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

void set_rate(json& b, const char* hits) {
  const int64_t n = b["trials"], x = b[hits];
  const interval ci = wilson_interval(x, n);
  b["rate"] = n > 0 ? json(double(x) / double(n)) : json(nullptr);
  b["ci95"] = {ci.lo, ci.hi};
}

json rate_of(int64_t x, int64_t n, const char* hits) {
  json b = {{"trials", n}, {hits, x}};
  set_rate(b, hits);
  return b;
}

// v1 stamped the workload's ground truth into every detector's metrics.
const char* k_moved[][2] = {{"fault_err_ulps_median", "faulty.err_ulps.median"},
                            {"fault_err_rel_median", "faulty.err_rel.median"},
                            {"fault_err_over_noise_median", "faulty.err_over_noise.median"}};

const char* k_workload_judged[] = {"residual_ulps", "corrected_within_envelope", "rsum_err_rel_max", "csum_err_rel_max",
                                   "false_alarm_from_rsum", "delta_crit", "position", "delta"};

json migrate_cell(json c) {
  if (!c["skipped"].is_null()) {
    c.erase("faulty"), c.erase("clean"), c.erase("by_significance"), c.erase("metrics");
    return c;
  }
  auto& f = c["faulty"];
  auto& m = c["metrics"];
  const int64_t det = f["detected"], n = f["trials"];
  // v1's GEMM runner judged located corrections per trial: their count is the
  // located detections, their mean the share at the right element.
  int64_t located = 0, right = 0;
  if (m.contains("faulty.located_correctly.count") && m["faulty.located_correctly.mean"].is_number()) {
    located = int64_t(m["faulty.located_correctly.count"].get<double>());
    right = int64_t(std::llround(m["faulty.located_correctly.mean"].get<double>() * double(located)));
  }
  set_rate(f, "detected");
  f["outcome_counts"] = {{"detected_right_location", right}, {"detected_wrong_location", located - right},
                         {"detected_unlocated", det - located}, {"missed", n - det}};
  f["localization"] = rate_of(right, located, "right");
  f["latency_steps"] = {{"detections", det}, {"p50", det ? json(0.0) : json(nullptr)}, {"p90", det ? json(0.0) : json(nullptr)},
                        {"max", det ? json(0.0) : json(nullptr)}};
  f["early_flags"] = 0;
  auto& cl = c["clean"];
  const int64_t fa = cl["flagged"], nc = cl["trials"];
  set_rate(cl, "flagged");
  cl["outcome_counts"] = {{"false_alarm", fa}, {"clean_pass", nc - fa}};
  cl["steps"] = rate_of(fa, nc, "flagged");
  json wm = json::object();
  for (const auto& [from, to] : k_moved)
    if (m.contains(from)) wm[to] = m[from], m.erase(from);
  // Per-trial numbers v1 stamped into verdicts that are the workload's, not the detector's.
  json kept = json::object();
  for (auto it = m.begin(); it != m.end(); ++it) {
    const std::string& k = it.key();
    bool moved = false;
    for (const char* name : k_workload_judged) {
      const std::string mid = std::string(".") + name + ".";
      if (k.find(mid) != std::string::npos && (k.starts_with("faulty.") || k.starts_with("clean."))) moved = true;
    }
    if (k.find(".located_correctly.") != std::string::npos) continue;  // now the localization outcome
    (moved ? wm : kept)[k] = *it;
  }
  m = kept;
  c["workload_metrics"] = wm;
  return c;
}

// Version 1 -> 2.
json migrate_v1(const json& v1) {
  json out = v1;
  out["schema"] = k_result_schema_v2;
  out["suite"]["recorders"] = json::array();
  out["suite"]["truth_metrics"] = json::array();
  out["suite"]["migrated_from"] = k_result_schema_v1;
  out["recordings"] = json::array();
  json cells = json::array();
  for (const auto& c : v1["cells"]) cells.push_back(migrate_cell(c));
  out["cells"] = cells;
  return out;
}

// Version 2 -> 3: per-step and per-bin scalars become typed series.
json migrate_v2(json v2) {
  v2["schema"] = k_result_schema_v3;
  if (!v2["suite"].contains("migrated_from")) v2["suite"]["migrated_from"] = k_result_schema_v2;
  for (const char* part : {"cells", "recordings"})
    for (auto& c : v2[part]) {
      if (!c["skipped"].is_null()) continue;
      c["series"] = c.contains("metrics") ? series_from_v2_metrics(c["metrics"]) : json::array();
    }
  return v2;
}

// Version 3 -> 4: the clean set each record's clean side reports
// (clean_sets.hpp); check_clean_sets then refuses a set whose records of one
// clean set disagree.
json migrate_v3(json v3) {
  v3["schema"] = k_result_schema;
  if (!v3["suite"].contains("migrated_from")) v3["suite"]["migrated_from"] = k_result_schema_v3;
  const auto fault_axes = fault_axes_before_v4(v3["suite"]);
  v3["suite"]["fault_axes"] = fault_axes;
  for (const char* part : {"cells", "recordings"})
    for (auto& r : v3[part]) r["clean_set"] = expected_clean_set(r, fault_axes);
  // Version 3's paired comparisons were a cluster bootstrap: recomputed with
  // version 4's cluster-level t (paired.hpp) from the same recordings.
  if (v3.contains("comparisons")) v3["comparisons"] = paired_comparisons(v3["suite"], v3["recordings"]);
  return v3;
}

// A valid version 1, 2 or 3 set as version 4, checked.
json migrate_valid(const json& old, const std::string& file) {
  json out = old["schema"] == k_result_schema_v3 ? old : migrate_v2(old["schema"] == k_result_schema_v1 ? migrate_v1(old) : old);
  out = migrate_v3(std::move(out));
  if (auto p = validate_result_set(out); !p.empty()) throw input_error(file, p.front(), "migration produced an invalid result set");
  return out;
}

}  // namespace

json migrate_result_set(const json& old, const std::string& file) {
  const std::string version = old.is_object() && old.contains("schema") && old["schema"].is_string() ? old["schema"].get<std::string>() : "";
  if (version != k_result_schema_v1 && version != k_result_schema_v2 && version != k_result_schema_v3)
    throw input_error(file, "/schema", std::string("expected a \"") + k_result_schema_v1 + "\", \"" + k_result_schema_v2 + "\" or \"" +
                                           k_result_schema_v3 + "\" result set to migrate");
  if (auto p = validate_result_set(old); !p.empty()) throw input_error(file, p.front(), "expected a valid " + version + " result set");
  return migrate_valid(old, file);
}

json load_result_document(const std::string& file) {
  json j = read_json_file(file);
  if (auto p = validate_result_set(j); !p.empty()) throw input_error(file, p.front(), "expected a valid result set");
  return j["schema"] == k_result_schema ? j : migrate_valid(j, file);  // validated once above, not again
}

}  // namespace sdc
