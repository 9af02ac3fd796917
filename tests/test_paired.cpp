// Paired comparisons (harness/results/paired.hpp) on hand-made recordings:
// a shift shared by every episode is found with an interval that excludes 0
// although each value's own interval is wide (pairing removes the episode-to-
// episode spread), no shift gives an interval around 0, units need a number
// under every value, clusters are drawn as wholes, and the result does not
// depend on the recordings' order.
#include <gtest/gtest.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>

#include "harness/results/paired.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

json suite_block() {
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
  const json out = paired_comparisons(suite_block(), recs, 1000);
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
  EXPECT_EQ(paired_comparisons(suite_block(), json{recs[2], recs[0], recs[1]}, 1000), out);
}

TEST(Paired, UnitsNeedANumberUnderEveryValueAndNoCompareBlockGivesNull) {
  std::vector<json> a = {1.0, 2.0, nullptr, 4.0}, b = {1.5, 2.5, 3.5, 4.5}, c = {1.0, 2.0, 3.0, nullptr};
  const json out = paired_comparisons(suite_block(), json{recording("A", a), recording("B", b), recording("C", c)}, 200);
  EXPECT_EQ(out["groups"][0]["units"], 2);  // trials 0 and 1
  EXPECT_DOUBLE_EQ(out["groups"][0]["metrics"]["m"]["differences"][0]["mean"].get<double>(), 0.5);
  json plain = suite_block();
  plain["compare"] = nullptr;
  EXPECT_TRUE(paired_comparisons(plain, json::array(), 200).is_null());
}

// Clusters are drawn as wholes: with one cluster shifted by +10 and three not,
// the interval of the mean spans the cluster-level spread, not the tiny
// within-cluster one.
TEST(Paired, ClustersAreResampledAsWholes) {
  std::vector<json> a, b;
  for (int t = 0; t < 40; ++t) {
    const double shift = t % 4 == 0 ? 10.0 : 0.0;  // cluster 0 (trials 0, 4, 8, ...)
    a.push_back(shift + 0.001 * t), b.push_back(shift + 0.001 * t);
  }
  json s = suite_block();
  s["axes"]["policy"] = {"A", "B"};
  const json out = paired_comparisons(s, json{recording("A", a), recording("B", b)}, 2000);
  const json& ci = out["groups"][0]["metrics"]["m"]["values"]["A"]["ci95"];
  EXPECT_LT(ci[0].get<double>(), 1.0);  // no cluster 0 drawn: mean ~0
  EXPECT_GT(ci[1].get<double>(), 4.0);  // cluster 0 drawn twice or more
}

}  // namespace
}  // namespace sdc
