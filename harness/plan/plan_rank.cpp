// rank_policies (plan_model.hpp): the enumeration of policies and the
// bootstrap over episodes that gives each figure its interval.
#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <set>

#include "foundation/random/streams.hpp"
#include "foundation/scoring/proportions.hpp"
#include "harness/plan/plan_model.hpp"

namespace sdc {

std::string plan_policy_name(const plan_table& t, const plan_policy& p) {
  std::string s;
  for (size_t k : p.checks) s += (s.empty() ? "" : " + ") + t.checks[k].label;
  if (s.empty()) return "no checks";  // nothing alarms: no action is taken
  return s + " -> " + plan_action_name(p.action);
}

namespace {

// Draws x ~ Binomial(n, p) with Boost's exactly specified distribution.
int64_t plan_binomial(rng& g, int64_t n, double p) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  return boost::random::binomial_distribution<int64_t, double>(n, p)(g);
}

// One bootstrap replicate: each cell's faulty episodes and each clean set's
// episodes drawn again with replacement from the policy's episode table
// (the four counts as a multinomial; a clean set once, shared by its cells).
plan_counts plan_resample(const plan_counts& c, rng& g) {
  plan_counts r = c;
  for (auto& k : r.cells) {
    const int64_t n = k.trials();
    int64_t left = n;
    const int64_t counts[4] = {k.detected_harmful, k.missed_harmful, k.detected_benign, k.missed_benign};
    int64_t drawn[4] = {0, 0, 0, 0}, rest = n;
    for (int j = 0; j < 3; ++j) {
      drawn[j] = rest > 0 ? plan_binomial(g, left, double(counts[j]) / double(rest)) : 0;
      left -= drawn[j], rest -= counts[j];
    }
    drawn[3] = left;
    k.detected_harmful = drawn[0], k.missed_harmful = drawn[1], k.detected_benign = drawn[2], k.missed_benign = drawn[3];
    k.detected_harmful_most = drawn[0];  // the identification range is the point estimate's only
  }
  for (auto& s : r.clean) s.alarmed = plan_binomial(g, s.episodes, s.episodes ? double(s.alarmed) / double(s.episodes) : 0.0);
  return r;
}

// The 2.5th and 97.5th percentiles (nearest rank) of a sample.
std::pair<double, double> plan_percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[size_t(std::clamp(std::ceil(q * double(v.size())) - 1, 0.0, double(v.size() - 1)))]; };
  return {at(0.025), at(0.975)};
}

// Every subset of `checks` of at most `size` with one label per detector name.
void plan_subsets(const plan_table& t, size_t from, size_t size, std::vector<size_t>& cur, std::vector<std::vector<size_t>>& out) {
  out.push_back(cur);
  if (cur.size() == size) return;
  for (size_t k = from; k < t.checks.size(); ++k) {
    if (!t.checks[k].cost) continue;  // not timed: its cost is not known
    bool clash = false;
    for (size_t j : cur) clash = clash || t.checks[j].name == t.checks[k].name;
    if (clash) continue;
    cur.push_back(k);
    plan_subsets(t, k + 1, size, cur, out);
    cur.pop_back();
  }
}

// False alarms per day with the Wilson interval of the alarmed clean
// episodes (any of the policy's checks), each clean set that a weighted cell
// uses counted once: a bootstrap of 0 alarms is 0 with no width.
plan_figure plan_false_alarm_figure(const plan_table& t, const plan_counts& c, const std::vector<double>& w, const plan_job& job,
                                    const plan_estimate& point, bool no_checks) {
  if (no_checks) return {0, 0, 0};  // nothing can alarm
  std::set<size_t> used;
  for (size_t i = 0; i < t.cells.size(); ++i)
    if (w[i] > 0) used.insert(t.cells[i].clean_set);
  int64_t alarmed = 0, episodes = 0, steps = 0;
  for (size_t s : used) alarmed += c.clean[s].alarmed, episodes += c.clean[s].episodes, steps += c.clean[s].episodes * c.clean[s].steps_per_episode;
  if (episodes == 0 || steps == 0) return {point.false_alarms_per_day, point.false_alarms_per_day, point.false_alarms_per_day};
  // Per day per alarmed-episode share: 24 h x job steps per hour x devices / measured devices / steps per episode.
  const double per_share = 24 * 3600 / (job.step_seconds * (1 + point.overhead)) * double(job.accelerators) /
                           double(job.measured_ranks) * double(episodes) / double(steps);
  const interval ci = wilson_interval(alarmed, episodes);
  return {point.false_alarms_per_day, per_share * ci.lo, per_share * ci.hi};
}

}  // namespace

std::vector<plan_result> rank_policies(const plan_table& t, const plan_job& job, const plan_fleet& f, const plan_options& o) {
  const auto weights = plan_cell_weights(t, f);
  const double lambda = f.events_per_hour(job);
  std::vector<std::vector<size_t>> subsets;
  std::vector<size_t> cur;
  plan_subsets(t, 0, size_t(job.max_checks), cur, subsets);
  std::vector<plan_result> out;
  for (const auto& checks : subsets) {
    const plan_counts counts = policy_counts(t, checks);
    std::string key;
    for (size_t k : checks) key += t.checks[k].label + "\n";
    // The policy's own stream: its intervals do not depend on which other
    // policies were enumerated.
    rng g = make_stream(o.seed, fnv1a64(key), 0, trial_kind::faulty, stream_purpose::fault);
    std::vector<std::vector<double>> good(job.actions.size()), missed(job.actions.size());
    for (int r = 0; r < o.replicates; ++r) {
      const plan_counts b = plan_resample(counts, g);
      for (size_t a = 0; a < job.actions.size(); ++a) {
        const auto e = plan_expectation(b, weights, job, lambda, job.actions[a]);
        good[a].push_back(e.goodput), missed[a].push_back(e.missed_harmful_per_day);
      }
    }
    // Without checks nothing alarms, so the actions give one policy.
    for (size_t a = 0; a < (checks.empty() ? 1 : job.actions.size()); ++a) {
      plan_result res;
      res.policy = {checks, job.actions[a]};
      res.point = plan_expectation(counts, weights, job, lambda, job.actions[a]);
      res.identified = counts.identified;
      auto fig = [&](double v, const std::vector<double>& s) {
        if (s.empty()) return plan_figure{v, v, v};
        auto [lo, hi] = plan_percentiles(s);
        return plan_figure{v, lo, hi};
      };
      res.missed_harmful_per_day = fig(res.point.missed_harmful_per_day, missed[a]);
      res.false_alarms_per_day = plan_false_alarm_figure(t, counts, weights, job, res.point, checks.empty());
      // The bootstrap resamples the clean episodes too, but 0 alarms resample
      // to 0: the goodput interval also spans the false alarms' Wilson
      // interval, each alarm costing its action (goodput is linear in them).
      const double per_alarm = plan_alarm_cost_hours(job, job.actions[a]) / 24 / (1 + res.point.overhead);
      res.goodput = fig(res.point.goodput, good[a]);
      res.goodput_at_measured_alarms = res.goodput;
      res.goodput.lo = std::clamp(res.goodput.lo - (res.false_alarms_per_day.hi - res.point.false_alarms_per_day) * per_alarm, 0.0, 1.0);
      res.goodput.hi = std::clamp(res.goodput.hi + (res.point.false_alarms_per_day - res.false_alarms_per_day.lo) * per_alarm, 0.0, 1.0);
      out.push_back(std::move(res));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const plan_result& a, const plan_result& b) {
    if (a.point.goodput != b.point.goodput) return a.point.goodput > b.point.goodput;
    if (a.point.missed_harmful_per_day != b.point.missed_harmful_per_day)
      return a.point.missed_harmful_per_day < b.point.missed_harmful_per_day;
    return a.policy.checks.size() < b.policy.checks.size();
  });
  return out;
}

}  // namespace sdc
