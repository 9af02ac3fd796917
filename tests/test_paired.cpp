// Paired comparisons (harness/results/paired.hpp) on hand-made recordings:
// a shift shared by every episode is found with an interval that excludes 0
// although each value's own interval is wide (pairing removes the episode-to-
// episode spread), no shift gives an interval around 0, units need a number
// under every value, the interval is Student's t over the cluster means (null
// with one cluster), and the result does not depend on the recordings' order.
#include <gtest/gtest.h>

#include <cmath>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "harness/results/paired.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

json paired_suite_json() {
  return {{"seed", 7}, {"axes", {{"policy", {"A", "B", "C"}}, {"forks", {"4"}}}},
          {"compare", {{"axis", "policy"}, {"recorder", "curve"}, {"clusters", "forks"}}}};
}

json recording(const std::string& policy, const std::vector<json>& x) {
  return {{"axes", {{"policy", policy}, {"forks", "4"}}}, {"recorder", {{"label", "curve"}}},
          {"episodes", {{"faulty", json::object()}, {"clean", {{"m", x}}}}}};
}

TEST(Paired, ASharedShiftIsFoundThroughTheEpisodeSpread) {
  boost::random::mt19937_64 g(3);
  boost::random::normal_distribution<double> z;
  std::vector<json> a, b, c;
  for (int t = 0; t < 40; ++t) {
    const double episode = 10 * z(g);  // large spread between episodes, shared by the policies
    a.push_back(episode), b.push_back(episode + 0.5 + 0.05 * z(g)), c.push_back(episode + 0.05 * z(g));
  }
  const json recs = {recording("A", a), recording("B", b), recording("C", c)};
  const json out = paired_comparisons(paired_suite_json(), recs);
  ASSERT_EQ(out["groups"].size(), 1u);
  const json& g0 = out["groups"][0];
  EXPECT_EQ(g0["units"], 40);
  EXPECT_EQ(g0["clusters"], 4);
  const json& m = g0["metrics"]["m"];
  const json& va = m["values"]["A"]["ci95"];
  EXPECT_GT(va[1].get<double>() - va[0].get<double>(), 2.0);  // each value alone: wide
  const json& ba = m["differences"][0];  // B - A
  EXPECT_EQ(ba["a"], "B");
  EXPECT_EQ(ba["b"], "A");
  EXPECT_GT(ba["ci95"][0].get<double>(), 0.4);
  EXPECT_LT(ba["ci95"][1].get<double>(), 0.6);
  const json& ca = m["differences"][1];  // C - A: no shift
  EXPECT_LT(ca["ci95"][0].get<double>(), 0);
  EXPECT_GT(ca["ci95"][1].get<double>(), 0);
  // The same numbers whatever the recordings' order.
  EXPECT_EQ(paired_comparisons(paired_suite_json(), json{recs[2], recs[0], recs[1]}), out);
}

TEST(Paired, UnitsNeedANumberUnderEveryValueAndNoCompareBlockGivesNull) {
  std::vector<json> a = {1.0, 2.0, nullptr, 4.0}, b = {1.5, 2.5, 3.5, 4.5}, c = {1.0, 2.0, 3.0, nullptr};
  const json out = paired_comparisons(paired_suite_json(), json{recording("A", a), recording("B", b), recording("C", c)});
  EXPECT_EQ(out["groups"][0]["units"], 2);  // trials 0 and 1
  EXPECT_DOUBLE_EQ(out["groups"][0]["metrics"]["m"]["differences"][0]["mean"].get<double>(), 0.5);
  json plain = paired_suite_json();
  plain["compare"] = nullptr;
  EXPECT_TRUE(paired_comparisons(plain, json::array()).is_null());
}

// The interval is over clusters: with one cluster of four shifted by +10,
// the cluster means are 10, 0, 0, 0 (plus 0.001 t), and the interval is
// Student's t on 3 degrees of freedom over them, not the tiny within-cluster
// spread.
TEST(Paired, TheIntervalIsStudentsTOverTheClusterMeans) {
  std::vector<json> a, b;
  for (int t = 0; t < 40; ++t) {
    const double shift = t % 4 == 0 ? 10.0 : 0.0;  // cluster 0 (trials 0, 4, 8, ...)
    a.push_back(shift + 0.001 * t), b.push_back(shift + 0.001 * t + (t % 4 == 1 ? 1.0 : 0.0));
  }
  json s = paired_suite_json();
  s["axes"]["policy"] = {"A", "B"};
  const json out = paired_comparisons(s, json{recording("A", a), recording("B", b)});
  EXPECT_EQ(out["method"], k_paired_method);
  EXPECT_EQ(out["groups"][0]["clusters"], 4);
  // Cluster c's mean of A: 10 [c = 0] + 0.001 (c + 18), for c = 0..3; their mean 2.5195.
  const json& va = out["groups"][0]["metrics"]["m"]["values"]["A"];
  const double t3 = 3.182446305284263;  // Student's t, 0.975 quantile, 3 degrees of freedom
  double ss = 0;
  for (double m : {10.018, 0.019, 0.020, 0.021}) ss += (m - 2.5195) * (m - 2.5195);
  const double sd = std::sqrt(ss / 3);
  EXPECT_NEAR(va["mean"].get<double>(), 2.5195, 1e-12);
  EXPECT_NEAR(va["ci95"][0].get<double>(), 2.5195 - t3 * sd / 2, 1e-9);
  EXPECT_NEAR(va["ci95"][1].get<double>(), 2.5195 + t3 * sd / 2, 1e-9);
  // B - A per cluster: 0, 1, 0, 0: mean 0.25, sd 0.5, half-width t3 * 0.5 / 2.
  const json& d = out["groups"][0]["metrics"]["m"]["differences"][0];
  EXPECT_NEAR(d["mean"].get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(d["ci95"][0].get<double>(), 0.25 - t3 * 0.25, 1e-9);
  EXPECT_NEAR(d["ci95"][1].get<double>(), 0.25 + t3 * 0.25, 1e-9);
}

// One cluster carries no interval (C - 1 = 0 degrees of freedom): null, not a number.
TEST(Paired, OneClusterGivesANullInterval) {
  json s = paired_suite_json();
  s["axes"]["policy"] = {"A", "B"};
  s["axes"]["forks"] = {"1"};
  json ra = recording("A", {1.0, 2.0, 3.0}), rb = recording("B", {1.5, 2.5, 3.5});
  ra["axes"]["forks"] = "1", rb["axes"]["forks"] = "1";
  const json out = paired_comparisons(s, json{ra, rb});
  const json& d = out["groups"][0]["metrics"]["m"]["differences"][0];
  EXPECT_DOUBLE_EQ(d["mean"].get<double>(), 0.5);
  EXPECT_TRUE(d["ci95"][0].is_null() && d["ci95"][1].is_null()) << d;
}

}  // namespace
}  // namespace sdc
