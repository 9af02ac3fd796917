// The goodput planner's model (harness/plan/, METHODOLOGY "Goodput planner"):
// a policy without checks loses exactly the fleet's harmful events, and a
// Monte Carlo simulation of a job (events drawn from the fleet, outcomes from
// the set's episodes, false alarms from its clean episodes) agrees with the
// closed form within the simulation's interval.
#include <gtest/gtest.h>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/poisson_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <algorithm>
#include <cmath>

#include "foundation/errors.hpp"
#include "foundation/random/streams.hpp"
#include "harness/plan/plan_model.hpp"
#include "harness/results/result_set_reader.hpp"

namespace {

using namespace sdc;

plan_job plan_test_job() {
  plan_job j;
  j.name = "test";
  j.accelerators = 4096, j.step_seconds = 5, j.checkpoint_interval_hours = 1, j.checkpoint_seconds = 60;
  j.restart_seconds = 300, j.evict_seconds = 900, j.undetected_notice_hours = 12, j.measured_ranks = 4;
  return j;
}

plan_fleet plan_test_fleet(double rate) {
  plan_fleet f;
  f.name = "test", f.file = "test.json", f.rate = rate, f.per_accelerator = true;
  f.rate_source = f.mix_source = "a test";
  return f;
}

plan_table plan_committed_table(const char* name) {
  std::string file = SDCBENCH_SOURCE_DIR;  // appended: GCC 12 warns falsely on operator+ (bug 105651)
  file += "/results/";
  file += name;
  return make_plan_table(load_result_set(file), file);
}

// Transient faults in three sites.
const plan_table& plan_quick_table() {
  static const plan_table t = plan_committed_table("quick_training-full.json");
  return t;
}
// Intermittent and permanent faults in weights.
const plan_table& plan_recurring_table() {
  static const plan_table t = plan_committed_table("scale_training_weight_recurring-full.json");
  return t;
}

TEST(Plan, APolicyWithoutChecksLosesOnlyTheFleetsHarmfulEvents) {
  const plan_table& t = plan_quick_table();
  const plan_job job = plan_test_job();
  const plan_fleet fleet = plan_test_fleet(1e-6);
  const auto w = plan_cell_weights(t, fleet);
  const plan_counts none = policy_counts(t, {});
  const double lambda = fleet.events_per_hour(job);
  // By hand: every harmful event costs the notice time, half an interval and
  // a restart (and a device on a permanent fault); nothing else is lost but
  // the checkpoints' time.
  double harmful_loss = 0, harmful_share = 0;
  for (size_t i = 0; i < t.cells.size(); ++i) {
    const auto& c = t.cells[i];
    const double p = double(c.harmful) / double(c.trials);
    harmful_share += w[i] * p;
    harmful_loss += w[i] * p * (job.undetected_notice_hours + 0.5 + 300.0 / 3600 + (c.permanent ? 900.0 / 3600 : 0));
  }
  ASSERT_GT(harmful_share, 0);  // the set has harmful episodes: the check is not vacuous
  for (plan_action a : job.actions) {
    const auto e = plan_expectation(none, w, job, lambda, a);
    EXPECT_NEAR(e.goodput, 1 - 60.0 / 3600 - lambda * harmful_loss, 1e-12);
    EXPECT_NEAR(e.missed_harmful_per_day, 24 * lambda * harmful_share, 1e-12);
    EXPECT_EQ(e.false_alarms_per_day, 0);
    EXPECT_EQ(e.overhead, 0);
  }
}

// The simulation: hour by hour, SDC events arrive as a Poisson process; each
// takes a cell by the fleet's weights and one of the cell's episodes (its
// four counts as categories), and costs what the policy's action costs;
// each hour's steps run in clean-episode windows of measured_ranks devices,
// each window one of the clean set's episodes drawn at random.
struct plan_sim_result {
  double mean = 0, half_width = 0;
};

plan_sim_result plan_simulate(const plan_counts& c, const std::vector<double>& w, const plan_job& job, double lambda,
                              plan_action action, int batches, int hours_per_batch) {
  rng g(20261202);
  boost::random::discrete_distribution<size_t> pick_cell(w.begin(), w.end());
  const double o = c.cost.value_or(0), step_h = job.step_seconds / 3600, half = job.checkpoint_interval_hours / 2;
  const double restart_h = job.restart_seconds / 3600, evict_h = job.evict_seconds / 3600;
  std::vector<double> goodputs;
  for (int b = 0; b < batches; ++b) {
    double lost = 0;
    for (int h = 0; h < hours_per_batch; ++h) {
      const int events = boost::random::poisson_distribution<int>(lambda)(g);
      for (int e = 0; e < events; ++e) {
        const auto& k = c.cells[pick_cell(g)];
        const int64_t draw = boost::random::uniform_int_distribution<int64_t>(0, k.trials() - 1)(g);
        const bool detected_h = draw < k.detected_harmful;
        const bool missed_h = !detected_h && draw < k.detected_harmful + k.missed_harmful;
        const bool detected = detected_h || (!missed_h && draw < k.detected_harmful + k.missed_harmful + k.detected_benign);
        const double late = k.latency_steps * step_h;
        double rollback_once = half + restart_h;
        if (missed_h) lost += job.undetected_notice_hours + half + restart_h + (k.permanent ? evict_h : 0);
        if (!detected) continue;
        double evict = rollback_once + evict_h + late;
        double rollback = k.permanent ? rollback_once + evict : rollback_once + late;
        if (action == plan_action::evict) lost += evict;
        else if (action == plan_action::rollback) lost += rollback;
        else {
          lost += step_h;
          const bool fixed = !k.permanent && boost::random::uniform_01<double>()(g) < k.rerun_fixable;
          if (!fixed) lost += k.permanent ? evict : rollback;
        }
      }
      // False alarms: windows of steps_per_episode steps on measured_ranks devices.
      const auto& cl = c.clean[c.cells[pick_cell(g)].clean_set];
      const double windows = (1 / (step_h * (1 + o))) / double(cl.steps_per_episode) * double(job.accelerators) / double(job.measured_ranks);
      const int64_t n = int64_t(windows) + (boost::random::uniform_01<double>()(g) < windows - std::floor(windows));
      const double p = double(cl.alarmed) / double(cl.episodes);
      int64_t alarms = 0;
      for (int64_t i = 0; i < n && p > 0; ++i) alarms += boost::random::uniform_01<double>()(g) < p;
      const double on_alarm = action == plan_action::rerun ? step_h : action == plan_action::rollback ? half + restart_h : half + restart_h + evict_h;
      lost += double(alarms) * on_alarm;
    }
    const double ckpt = job.checkpoint_seconds / (job.checkpoint_interval_hours * 3600);
    goodputs.push_back((1 - ckpt - lost / hours_per_batch) / (1 + o));
  }
  double m = 0, v = 0;
  for (double x : goodputs) m += x;
  m /= double(goodputs.size());
  for (double x : goodputs) v += (x - m) * (x - m);
  v /= double(goodputs.size() - 1);
  // z for a family of 18 comparisons (two sets, three policies, three actions)
  // at 95 % (Bonferroni: 1 - 0.05 / 36, two-sided) = 2.99.
  return {m, 2.99 * std::sqrt(v / double(goodputs.size()))};
}

void plan_check_simulation(const plan_table& t) {
  // A small job with frequent events and short losses, so that events, false
  // alarms and their costs all move goodput, and none drives it to 0.
  plan_job job = plan_test_job();
  job.accelerators = 4, job.step_seconds = 60, job.checkpoint_interval_hours = 0.1, job.checkpoint_seconds = 10;
  job.restart_seconds = 60, job.evict_seconds = 120, job.undetected_notice_hours = 0.5;
  const plan_fleet fleet = plan_test_fleet(0.5);  // 2 events per hour of this job
  const auto w = plan_cell_weights(t, fleet);
  const double lambda = fleet.events_per_hour(job);
  // One check with false alarms and one without, each alone (identified).
  std::vector<size_t> alarming, quiet;
  for (size_t k = 0; k < t.checks.size(); ++k) {
    const auto c = policy_counts(t, {k});
    int64_t alarms = 0;
    for (const auto& s : c.clean) alarms += s.alarmed;
    (alarms > 0 ? alarming : quiet).push_back(k);
  }
  ASSERT_FALSE(quiet.empty());
  std::vector<std::vector<size_t>> policies = {{}, {quiet.front()}};
  if (!alarming.empty()) policies.push_back({alarming.front()});
  for (const auto& checks : policies) {
    const plan_counts c = policy_counts(t, checks);
    ASSERT_TRUE(c.identified);
    for (plan_action a : job.actions) {
      const auto closed = plan_expectation(c, w, job, lambda, a);
      ASSERT_GT(closed.goodput, 0.1);  // not clamped
      ASSERT_LT(closed.goodput, 0.99);
      const auto sim = plan_simulate(c, w, job, lambda, a, 40, 50);
      EXPECT_GT(sim.half_width, 0);
      EXPECT_NEAR(sim.mean, closed.goodput, sim.half_width)
          << t.file << ": policy of " << checks.size() << " checks, action " << plan_action_name(a);
    }
  }
}

TEST(Plan, AMonteCarloJobAgreesWithTheClosedFormWithinItsInterval) {
  plan_check_simulation(plan_quick_table());
  ASSERT_TRUE(std::any_of(plan_recurring_table().cells.begin(), plan_recurring_table().cells.end(),
                          [](const plan_cell& c) { return c.permanent; }));
  plan_check_simulation(plan_recurring_table());
}

TEST(Plan, ACleanSetIsCountedOnceHoweverManyCellsShareIt) {
  const plan_table& t = plan_quick_table();
  ASSERT_EQ(t.clean_sets.size(), 1u);  // quick_training's cells all fork from one checkpoint
  ASSERT_GT(t.cells.size(), 1u);
  const plan_clean_set& s = t.clean_sets[0];
  const plan_job job = plan_test_job();
  const auto w = plan_cell_weights(t, plan_test_fleet(1e-6));
  bool some_alarm = false;
  for (size_t k = 0; k < t.checks.size(); ++k) {
    const plan_counts c = policy_counts(t, {k});
    ASSERT_EQ(c.clean.size(), 1u);
    EXPECT_EQ(c.clean[0].episodes, s.episodes);
    EXPECT_EQ(c.clean[0].alarmed, s.alarmed[k].count());
    some_alarm = some_alarm || c.clean[0].alarmed > 0;
    // Alarms per day: the set's alarmed episodes over its episode-steps, once, whatever the number of cells.
    const double per_step = double(s.alarmed[k].count()) / double(s.episodes * s.steps_per_episode);
    const auto e = plan_expectation(c, w, job, 0, plan_action::rerun);
    EXPECT_NEAR(e.false_alarms_per_day, 24 * 3600 / (job.step_seconds * (1 + e.overhead)) * per_step * 4096 / 4,
                1e-9 * (1 + e.false_alarms_per_day));
  }
  EXPECT_TRUE(some_alarm);  // the check is not vacuous
}

TEST(Plan, TwoChecksNeverMissMoreHarmfulEventsThanEitherAlone) {
  const plan_table& t = plan_quick_table();
  const plan_job job = plan_test_job();
  const plan_fleet fleet = plan_test_fleet(1e-6);
  const auto w = plan_cell_weights(t, fleet);
  for (size_t a = 0; a < t.checks.size(); ++a)
    for (size_t b = a + 1; b < t.checks.size(); ++b) {
      const double both = plan_expectation(policy_counts(t, {a, b}), w, job, 1, plan_action::evict).missed_harmful_per_day;
      for (size_t k : {a, b})
        EXPECT_LE(both, plan_expectation(policy_counts(t, {k}), w, job, 1, plan_action::evict).missed_harmful_per_day + 1e-12);
    }
}

TEST(Plan, RankingIsDeterministicAndItsIntervalsHoldThePointEstimate) {
  const plan_table& t = plan_quick_table();
  plan_job job = plan_test_job();
  job.max_checks = 1;
  const plan_fleet fleet = plan_test_fleet(1e-6);
  const plan_options o{100, 7};
  const auto a = rank_policies(t, job, fleet, o), b = rank_policies(t, job, fleet, o);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 3u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(plan_policy_name(t, a[i].policy), plan_policy_name(t, b[i].policy));
    EXPECT_EQ(a[i].goodput.lo, b[i].goodput.lo);
    EXPECT_LE(a[i].missed_harmful_per_day.lo, a[i].missed_harmful_per_day.hi);
    if (i) {
      EXPECT_GE(a[i - 1].point.goodput, a[i].point.goodput);
    }
  }
}

TEST(Plan, AFleetMixNamingASiteTheSetLacksIsAnError) {
  plan_fleet f = plan_test_fleet(1e-6);
  f.site = std::map<std::string, double>{{"weight:all", 1.0}};  // quick_training has no weight faults
  try {
    plan_cell_weights(plan_quick_table(), f);
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "/mix/site/weight:all");
  }
}

}  // namespace
