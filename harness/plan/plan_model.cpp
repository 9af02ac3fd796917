#include "harness/plan/plan_model.hpp"

#include <algorithm>
#include <map>

#include "foundation/errors.hpp"

namespace sdc {

namespace {

// A lower bound on the share of a check's detections at latency 0, from its
// nearest-rank percentiles (the sets keep no latency per episode).
double plan_zero_latency_share(const plan_cell_check& k) {
  auto zero = [](const std::optional<double>& v) { return v && *v == 0; };
  if (zero(k.latency_max)) return 1.0;
  if (zero(k.latency_p90)) return 0.9;
  if (zero(k.latency_p50)) return 0.5;
  return 0.0;
}

}  // namespace

plan_counts policy_counts(const plan_table& t, const std::vector<size_t>& checks) {
  plan_counts out;
  out.cost = 0.0;
  for (size_t k : checks) {
    if (!t.checks[k].cost) out.cost.reset();
    if (out.cost) *out.cost += *t.checks[k].cost;
  }
  for (const auto& c : t.cells) {
    int64_t union_count = 0, max_dh = 0, sum_dh = 0;
    double fixable = 0, latency = 0;
    if (!checks.empty()) {
      size_t nbits = 0;
      for (size_t k : checks) nbits = std::max(nbits, c.checks[k].detected.size());
      for (size_t e = 0; e < nbits; ++e) {
        bool any = false;
        for (size_t k : checks) any = any || (e < c.checks[k].detected.size() && c.checks[k].detected.get(e));
        union_count += any;
      }
      for (size_t k : checks) {
        const auto& ck = c.checks[k];
        max_dh = std::max(max_dh, ck.harmful_detected), sum_dh += ck.harmful_detected;
        fixable = std::max(fixable, double(ck.detections) * plan_zero_latency_share(ck));
        if (ck.detections > 0 && ck.latency_max) latency = std::max(latency, *ck.latency_max);
      }
    }
    const int64_t benign = c.trials - c.harmful;
    // The fewest harmful detections the counts allow, and the most.
    const int64_t lo = std::max(max_dh, union_count - benign);
    const int64_t hi = std::min({c.harmful, sum_dh, union_count});
    if (hi != lo) out.identified = false;
    plan_cell_counts pc;
    pc.detected_harmful = lo;
    pc.detected_harmful_most = std::max(hi, lo);
    pc.missed_harmful = c.harmful - lo;
    pc.detected_benign = union_count - lo;
    pc.missed_benign = benign - pc.detected_benign;
    pc.rerun_fixable = union_count ? std::min(1.0, fixable / double(union_count)) : 0.0;
    pc.latency_steps = latency;
    pc.permanent = c.permanent;
    pc.clean_set = c.clean_set;
    out.cells.push_back(pc);
  }
  for (const auto& s : t.clean_sets) {
    plan_clean_counts cc{0, s.episodes, s.steps_per_episode};
    for (int64_t e = 0; e < s.episodes; ++e) {
      bool any = false;
      for (size_t k : checks) any = any || (size_t(e) < s.alarmed[k].size() && s.alarmed[k].get(size_t(e)));
      cc.alarmed += any;
    }
    out.clean.push_back(cc);
  }
  return out;
}

std::vector<double> plan_cell_weights(const plan_table& t, const plan_fleet& f, std::vector<std::string>* missing) {
  auto axis_weights = [&](const plan_weights& w, const std::vector<std::string>& values, const char* axis) {
    std::map<std::string, double> out;
    if (!w) {
      for (const auto& v : values) out[v] = 1.0 / double(values.size());
      return out;
    }
    double total = 0;
    for (const auto& [k, v] : *w) {
      if (v > 0 && std::find(values.begin(), values.end(), k) == values.end()) {
        std::string have;
        for (const auto& x : values) have += (have.empty() ? "" : ", ") + x;
        throw input_error(f.file, std::string("/mix/") + axis + "/" + k, std::string("a ") + axis + " of the result set " + t.file + ": one of " + have);
      }
      total += v;
    }
    for (const auto& [k, v] : *w) out[k] = v / total;
    return out;
  };
  const auto ws = axis_weights(f.site, t.sites, "site"), wl = axis_weights(f.lifetime, t.lifetimes, "lifetime");
  std::map<std::pair<std::string, std::string>, int> cells_of;
  for (const auto& c : t.cells) ++cells_of[{c.site, c.lifetime}];
  // A pair the set did not run (every episode skipped) is an error when the
  // fleet weighs both; where an axis is uniform by default, the pairs the set
  // ran share the weight (and `missing` names the others).
  for (const auto& [s, a] : ws)
    for (const auto& [l, b] : wl)
      if (a * b > 0 && !cells_of.count({s, l})) {
        if (f.site && f.lifetime)
          throw input_error(f.file, "/mix", "weight only on sites and lifetimes the set ran: no faulty episode of site " + s + ", lifetime " + l);
        if (missing) missing->push_back(s + " x " + l);
      }
  std::vector<double> w;
  double total = 0;
  for (const auto& c : t.cells) {
    auto a = ws.find(c.site), b = wl.find(c.lifetime);
    const double x = (a == ws.end() ? 0 : a->second) * (b == wl.end() ? 0 : b->second);
    w.push_back(x / double(cells_of[{c.site, c.lifetime}]));
    total += w.back();
  }
  if (!(total > 0)) throw input_error(f.file, "/mix", "weight on some site and lifetime the set ran");
  for (double& x : w) x /= total;
  return w;
}

double plan_alarm_cost_hours(const plan_job& job, plan_action action) {
  const double rollback_loss = job.checkpoint_interval_hours / 2 + job.restart_seconds / 3600;
  if (action == plan_action::rerun) return job.step_seconds / 3600;
  return action == plan_action::rollback ? rollback_loss : rollback_loss + job.evict_seconds / 3600;
}

plan_estimate plan_expectation(const plan_counts& c, const std::vector<double>& weights, const plan_job& job,
                               double events_per_hour, plan_action action) {
  plan_estimate e;
  const double o = c.cost.value_or(0.0);
  const double step_h = job.step_seconds / 3600, restart_h = job.restart_seconds / 3600, evict_h = job.evict_seconds / 3600;
  const double half_interval = job.checkpoint_interval_hours / 2;
  const double rollback_loss = half_interval + restart_h;  // back to the last checkpoint: half an interval on average
  double loss_per_event = 0, missed_h = 0, missed_fewest = 0, detected = 0, alarm_rate = 0;  // alarm_rate: false alarms per job step
  for (size_t i = 0; i < c.cells.size(); ++i) {
    const auto& k = c.cells[i];
    const double n = double(k.trials()), w = weights[i];
    if (n == 0 || w == 0) continue;
    const double p_detect = double(k.detected_harmful + k.detected_benign) / n, p_missed_h = double(k.missed_harmful) / n;
    const double late = k.latency_steps * step_h;
    // A detected event: evict replaces the blamed device; a rollback clears a
    // transient fault, while a permanent one fires again and is evicted then;
    // a rerun repairs a transient fault caught in its step, else it escalates.
    const double evict_cost = rollback_loss + evict_h + late;
    const double rollback_cost = k.permanent ? 2 * rollback_loss + evict_h + late : rollback_loss + late;
    const double rerun_cost = step_h + (k.permanent ? evict_cost : (1 - k.rerun_fixable) * rollback_cost);
    const double on_detect = action == plan_action::evict ? evict_cost : action == plan_action::rollback ? rollback_cost : rerun_cost;
    // A harmful event no check caught: the training since the last
    // checkpoint before it, until someone notices (the job's figure).
    const double on_missed = job.undetected_notice_hours + half_interval + restart_h + (k.permanent ? evict_h : 0);
    loss_per_event += w * (p_detect * on_detect + p_missed_h * on_missed);
    missed_h += w * p_missed_h, detected += w * p_detect;
    missed_fewest += w * double(k.missed_harmful + k.detected_harmful - k.detected_harmful_most) / n;
    const auto& cl = c.clean[k.clean_set];
    if (cl.episodes > 0 && cl.steps_per_episode > 0)
      alarm_rate += w * double(cl.alarmed) / double(cl.episodes * cl.steps_per_episode);
  }
  // False alarms per step were measured on measured_ranks devices; a job of
  // N devices runs N / measured_ranks times the checks.
  const double steps_per_hour = 1 / (step_h * (1 + o));
  const double alarms_per_hour = alarm_rate * double(job.accelerators) / double(job.measured_ranks) * steps_per_hour;
  const double on_alarm = plan_alarm_cost_hours(job, action);
  const double checkpointing = job.checkpoint_seconds / (job.checkpoint_interval_hours * 3600);
  const double lost = checkpointing + events_per_hour * loss_per_event + alarms_per_hour * on_alarm;
  e.goodput = std::clamp((1 - lost) / (1 + o), 0.0, 1.0);
  e.overhead = o;
  e.missed_harmful_per_day = 24 * events_per_hour * missed_h;
  e.missed_harmful_per_day_fewest = 24 * events_per_hour * missed_fewest;
  e.detected_per_day = 24 * events_per_hour * detected;
  e.false_alarms_per_day = 24 * alarms_per_hour;
  return e;
}

}  // namespace sdc
