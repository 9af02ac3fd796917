#include "harness/campaign/cell_summary.hpp"

#include "harness/campaign/episode_stats.hpp"
#include "harness/campaign/label_summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "foundation/scoring/proportions.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// A verdict decided by a non-finite value says so with a metric nonfinite_norms > 0
// (the sample tests of 000: gradient_tests.cpp nonfinite_verdict).
bool decided_by_nonfinite(const std::vector<std::pair<std::string, double>>& metrics) {
  for (const auto& [name, v] : metrics)
    if (name == "nonfinite_norms" && v > 0) return true;
  return false;
}

// A compared recorder's episode-level metrics (not its series), one value per
// trial in trial order, null where the episode was skipped or the value is
// NaN: the units of harness/results/paired.hpp.
json episode_values(const std::vector<episode_result>& results, int64_t nf, size_t k) {
  json out = {{"faulty", json::object()}, {"clean", json::object()}};
  for (int64_t t = 0; t < int64_t(results.size()); ++t) {
    const auto& r = results[size_t(t)];
    const bool faulty = t < nf;
    const int64_t i = faulty ? t : t - nf;
    if (r.skipped) continue;
    for (const auto& [name, v] : r.recordings[k].metrics) {
      json& arr = out[faulty ? "faulty" : "clean"][name];
      const int64_t n = faulty ? nf : int64_t(results.size()) - nf;
      if (arr.is_null()) arr = json(std::vector<json>(size_t(n), nullptr));
      arr[size_t(i)] = finite_or_null(v);
    }
  }
  return out;
}

json head(const suite& /*s*/, const cell& c, const detector_choice& d, const char* role) {
  json rec;
  rec["cell"] = c.index;
  rec["key"] = c.key;
  rec["axes"] = c.axes_json();
  rec[role] = {{"label", d.label}, {"name", d.info->name}, {"params", d.params}};
  if (!d.wrap.empty()) rec[role]["wrap"] = d.wrap;
  rec["skipped"] = nullptr;
  rec["clean_set"] = c.clean_set.empty() ? json(nullptr) : json(c.clean_set);
  return rec;
}

}  // namespace

json rate_block(int64_t hits, int64_t n, const char* hits_name) {
  const interval ci = wilson_interval(hits, n);
  json b;
  b["trials"] = n;
  b[hits_name] = hits;
  b["rate"] = n > 0 ? json(double(hits) / double(n)) : json(nullptr);
  b["ci95"] = {ci.lo, ci.hi};
  return b;
}

cell_records summarize_cell(const suite& s, const cell& c, const std::vector<episode_result>& results) {
  const int64_t nf = s.faulty_trials, nc = s.clean_trials;
  cell_records out;
  double kernel_s = 0;
  int64_t kernel_runs = 0, checked = 0;
  for (const auto& r : results)  // the episodes that ran in this cell (a shared clean set's ran in another)
    if (!r.shared) kernel_s += r.kernel_seconds, kernel_runs += r.kernel_ran, checked += !r.skipped;
  std::vector<int64_t> skipped_trials;
  std::map<std::string, std::vector<double>> truth[2];
  series_values truth_curves;
  for (int64_t t = 0; t < nf; ++t) {
    const auto& r = results[size_t(t)];
    if (r.skipped) {
      skipped_trials.push_back(t);
      continue;
    }
    for (const auto& [name, v] : r.truth.metrics) truth[1][name].push_back(v);
    gather_series(r.truth.series, true, truth_curves);
  }
  const bool labelled = has_labels(results, nf);
  for (size_t d = 0; d < s.detectors.size(); ++d) {
    outcome_bits fbits{size_t(nf)}, cbits{size_t(nc)};
    int64_t counts[k_outcome_count] = {}, band_n[k_significance_count] = {}, band_d[k_significance_count] = {};
    int64_t clean_steps = 0, clean_flagged_steps = 0, early = 0, hits_nonfinite = 0, alarms_nonfinite = 0;
    double det_s = 0, clean_score_max = -INFINITY;
    int64_t clean_score_nan = 0;  // NaN scores (a detector that saw NaN) are counted, not dropped
    std::vector<double> faulty_scores, latencies;
    std::map<std::string, std::vector<double>> named[2], judged[2];
    series_values curves;
    for (int64_t t = 0; t < nf + nc; ++t) {
      const auto& r = results[size_t(t)];
      const bool faulty = t < nf;
      if (r.skipped) {
        ++counts[int(outcome::skipped)];
        continue;
      }
      const auto& e = r.detectors[d];
      if (!r.shared) det_s += e.seconds;
      ++counts[int(e.result)];
      for (const auto& [name, v] : e.metrics) named[faulty][name].push_back(v);
      for (const auto& [name, v] : e.judged) judged[faulty][name].push_back(v);
      gather_series(e.series, faulty, curves);
      const bool by_nonfinite = decided_by_nonfinite(e.metrics);
      if (faulty) {
        const bool hit = is_detection(e.result);
        hits_nonfinite += hit && by_nonfinite;
        fbits.set(size_t(t), hit);
        band_n[int(r.truth.band)]++, band_d[int(r.truth.band)] += hit;
        faulty_scores.push_back(e.score);
        if (hit) latencies.push_back(double(e.latency));
        early += e.early_flags;
      } else {
        cbits.set(size_t(t - nf), e.result == outcome::false_alarm);
        alarms_nonfinite += e.result == outcome::false_alarm && by_nonfinite;
        clean_steps += r.steps, clean_flagged_steps += e.flagged_steps;
        if (is_not_computed(e.score)) continue;  // neither NaN nor a number: a max over none computed is null
        if (std::isnan(e.score)) ++clean_score_nan;
        else clean_score_max = std::max(clean_score_max, e.score);
      }
    }
    const auto& det = s.detectors[d];
    json rec = head(s, c, det, "detector");
    const int64_t right = counts[int(outcome::detected_right_location)], wrong = counts[int(outcome::detected_wrong_location)];
    const int64_t detected = right + wrong + counts[int(outcome::detected_unlocated)];
    const int64_t applied = detected + counts[int(outcome::missed)];
    json f = rate_block(detected, applied, "detected");
    f["skipped"] = int64_t(skipped_trials.size());
    f["outcomes"] = fbits.hex();
    if (!skipped_trials.empty()) {
      f["skipped_trials"] = skipped_trials;
      f["skip_reason"] = results[size_t(skipped_trials.front())].skip_reason;
    }
    json oc = json::object();
    for (outcome o : {outcome::detected_right_location, outcome::detected_wrong_location, outcome::detected_unlocated, outcome::missed})
      oc[outcome_name(o)] = counts[int(o)];
    f["outcome_counts"] = oc;
    f["localization"] = rate_block(right, right + wrong, "right");
    f["latency_steps"] = {{"detections", int64_t(latencies.size())},
                          {"p50", finite_or_null(nearest_rank_quantile(latencies, 0.5))},
                          {"p90", finite_or_null(nearest_rank_quantile(latencies, 0.9))},
                          {"max", finite_or_null(latencies.empty() ? NAN : *std::max_element(latencies.begin(), latencies.end()))}};
    f["early_flags"] = early;
    // Detections by reason: the test's own, and those decided by a non-finite value.
    f["by_reason"] = {{"nonfinite", hits_nonfinite}, {"own", rate_block(detected - hits_nonfinite, applied, "detected")}};
    rec["faulty"] = f;
    const int64_t fa = counts[int(outcome::false_alarm)], pass = counts[int(outcome::clean_pass)];
    json cl = rate_block(fa, fa + pass, "flagged");
    cl["outcomes"] = cbits.hex();
    cl["outcome_counts"] = {{"false_alarm", fa}, {"clean_pass", pass}};
    cl["steps"] = rate_block(clean_flagged_steps, clean_steps, "flagged");
    cl["by_reason"] = {{"nonfinite", alarms_nonfinite}};
    rec["clean"] = cl;
    json sig = json::object();
    for (int b = 0; b < k_significance_count; ++b)
      sig[significance_name(significance(b))] = {{"trials", band_n[b]}, {"detected", band_d[b]}};
    rec["by_significance"] = sig;
    json m = {{"clean_score_max", nc > 0 ? finite_or_null(clean_score_max) : json(nullptr)},
              {"clean_score_nan", nc > 0 ? json(clean_score_nan) : json(nullptr)},
              {"faulty_score_median", finite_or_null(nearest_rank_quantile(faulty_scores, 0.5))}};
    summarize_named(named, m);
    rec["metrics"] = m;
    rec["series"] = series_json(curves);
    json wm = json::object();
    summarize_named(truth, wm);
    summarize_named(judged, wm);
    rec["workload_metrics"] = wm;
    if (labelled) rec["by_label"] = by_label_json(results, nf, d), rec["workload_series"] = series_json(truth_curves);
    rec["reference"] = reference_for(s, c, det.label);
    out.records.push_back(rec);
    out.timing.push_back({{"cell", c.index},
                          {"detector", det.label},
                          {"kernel_seconds", kernel_s},
                          {"detector_seconds", det_s},
                          {"overhead", kernel_s > 0 && checked > 0
                                           ? json((det_s / double(checked)) / (kernel_s / double(std::max<int64_t>(1, kernel_runs))))
                                           : json(nullptr)}});
  }
  for (size_t k = 0; k < s.recorders.size(); ++k) {
    std::map<std::string, std::vector<double>> named[2];
    series_values curves;
    for (int64_t t = 0; t < nf + nc; ++t) {
      const auto& r = results[size_t(t)];
      if (r.skipped) continue;
      for (const auto& [name, v] : r.recordings[k].metrics) named[t < nf][name].push_back(v);
      gather_series(r.recordings[k].series, t < nf, curves);
    }
    json rec = head(s, c, s.recorders[k], "recorder");
    json m = json::object();
    summarize_named(named, m);
    rec["metrics"] = m;
    rec["series"] = series_json(curves);
    if (!s.compare.is_null() && s.compare["recorder"] == s.recorders[k].label) rec["episodes"] = episode_values(results, nf, k);
    out.recordings.push_back(rec);
  }
  return out;
}

cell_records skipped_cell(const suite& s, const cell& c, const skip_info& why) {
  cell_records out;
  for (const auto& det : s.detectors) {
    json rec = head(s, c, det, "detector");
    rec["skipped"] = why.axis + ": " + why.reason;
    rec["clean_set"] = nullptr;  // no clean episode ran
    rec["reference"] = reference_for(s, c, det.label);
    out.records.push_back(rec);
  }
  for (const auto& r : s.recorders) {
    json rec = head(s, c, r, "recorder");
    rec["skipped"] = why.axis + ": " + why.reason;
    rec["clean_set"] = nullptr;
    out.recordings.push_back(rec);
  }
  return out;
}

}  // namespace sdc
