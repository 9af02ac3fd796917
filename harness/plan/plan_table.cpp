#include "harness/plan/plan_table.hpp"

#include <algorithm>
#include <map>

#include "foundation/errors.hpp"

namespace sdc {

bool harmful_label(const std::string& label) {
  return label == "spike_and_degrade" || label == "silent_degradation" || label == "gradual_drift" || label == "non_finite";
}

namespace {

int64_t plan_harmful_count(const std::map<std::string, label_count>& by_label, bool detected) {
  int64_t n = 0;
  for (const auto& [l, c] : by_label)
    if (harmful_label(l)) n += detected ? c.detected : c.trials;
  return n;
}

std::string plan_axis_or_fail(const cell_record& r, const char* name, const std::string& file) {
  const std::string* v = r.axis(name);
  if (!v) throw input_error(file, std::string("cells[") + std::to_string(r.cell) + "].axes." + name, "a training cell with this axis");
  return *v;
}

}  // namespace

plan_table make_plan_table(const result_set& rs, const std::string& file) {
  plan_table t;
  t.file = file;
  std::map<std::string, size_t> check_index;
  for (const auto& d : rs.suite.detectors) {
    check_index[d.label] = t.checks.size();
    t.checks.push_back({d.label, d.name, std::nullopt});
  }
  // Cost: the detector's summed seconds over the summed step seconds of the
  // cells it was timed in (METHODOLOGY "Overhead"; the harness's cost).
  std::vector<double> det_s(t.checks.size(), 0), step_s(t.checks.size(), 0);
  for (const auto& e : rs.timing) {
    auto it = check_index.find(e.detector);
    if (it == check_index.end()) continue;
    det_s[it->second] += e.detector_seconds, step_s[it->second] += e.kernel_seconds;
  }
  for (size_t i = 0; i < t.checks.size(); ++i)
    if (step_s[i] > 0) t.checks[i].cost = det_s[i] / step_s[i];
  if (const auto* s = rs.suite.axis("site")) t.sites = *s;
  if (const auto* l = rs.suite.axis("lifetime")) t.lifetimes = *l;
  else t.lifetimes = {"transient"};

  std::map<int64_t, size_t> cell_index;
  std::map<std::string, size_t> set_index;
  for (const auto& r : rs.cells) {
    if (r.skipped || !r.faulty || !r.clean) continue;
    if (!r.by_label) throw input_error(file, "cells[].by_label", "outcome labels: plan reads a training set");
    auto ci = cell_index.find(r.cell);
    if (ci == cell_index.end()) {
      if (r.faulty->detected.trials == 0) continue;
      plan_cell c;
      c.cell = r.cell;
      c.site = plan_axis_or_fail(r, "site", file);
      const std::string* life = r.axis("lifetime");
      c.lifetime = life ? *life : "transient";
      c.permanent = c.lifetime == "permanent";
      c.trials = r.faulty->detected.trials;
      c.harmful = plan_harmful_count(*r.by_label, false);
      const std::string sid = r.clean_set.value_or("cell " + std::to_string(r.cell));
      auto si = set_index.find(sid);
      if (si == set_index.end()) {
        plan_clean_set s;
        s.id = sid;
        s.episodes = r.clean->flagged.trials;
        s.steps_per_episode = s.episodes ? r.clean->steps.trials / s.episodes : 0;
        s.alarmed.resize(t.checks.size());
        si = set_index.emplace(sid, t.clean_sets.size()).first;
        t.clean_sets.push_back(std::move(s));
      }
      c.clean_set = si->second;
      c.checks.resize(t.checks.size());
      ci = cell_index.emplace(r.cell, t.cells.size()).first;
      t.cells.push_back(std::move(c));
    }
    plan_cell& c = t.cells[ci->second];
    const size_t k = check_index.at(r.detector.label);
    if (plan_harmful_count(*r.by_label, false) != c.harmful)
      throw input_error(file, "cells[" + std::to_string(r.cell) + "].by_label", "the same labels for every detector of a cell");
    const size_t nf = size_t(r.faulty->detected.trials + r.faulty->skipped);
    plan_cell_check& pc = c.checks[k];
    pc.detected = outcome_bits::from_hex(r.faulty->outcomes, nf);
    pc.harmful_detected = plan_harmful_count(*r.by_label, true);
    pc.detections = r.faulty->detected.count;
    pc.latency_p50 = r.faulty->latency_steps.p50, pc.latency_p90 = r.faulty->latency_steps.p90;
    pc.latency_max = r.faulty->latency_steps.max;
    plan_clean_set& s = t.clean_sets[c.clean_set];
    // A clean set's clean side is the same in every record of a detector
    // (validate checks it): taken once, from the first.
    if (s.alarmed[k].size() == 0) s.alarmed[k] = outcome_bits::from_hex(r.clean->outcomes, size_t(s.episodes));
  }
  if (t.cells.empty()) throw input_error(file, "cells", "a training set with faulty episodes");
  return t;
}

}  // namespace sdc
