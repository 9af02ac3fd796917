// rank_policies (plan_model.hpp): the enumeration of policies and the
// bootstrap over episodes that gives each figure its interval.
#include <algorithm>
#include <boost/random/binomial_distribution.hpp>
#include <cmath>
#include <set>

#include "foundation/random/streams.hpp"
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
    std::vector<std::vector<double>> good(job.actions.size()), missed(job.actions.size()), alarms(job.actions.size());
    for (int r = 0; r < o.replicates; ++r) {
      const plan_counts b = plan_resample(counts, g);
      for (size_t a = 0; a < job.actions.size(); ++a) {
        const auto e = plan_expectation(b, weights, job, lambda, job.actions[a]);
        good[a].push_back(e.goodput), missed[a].push_back(e.missed_harmful_per_day), alarms[a].push_back(e.false_alarms_per_day);
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
      res.goodput = fig(res.point.goodput, good[a]);
      res.missed_harmful_per_day = fig(res.point.missed_harmful_per_day, missed[a]);
      res.false_alarms_per_day = fig(res.point.false_alarms_per_day, alarms[a]);
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
