// What a cell's episodes add up to (harness/campaign/cell_summary.cpp) where a
// detector computed nothing (issue 66): a score or metric not computed
// (protocol/detector.hpp, not_computed) is null in the result set, never 0,
// and never counted as a NaN the detector saw. The episodes go through the
// episode codec first, as a campaign over processes or a resumed journal
// hands them over.
#include <gtest/gtest.h>

#include <cmath>

#include "detectors/gradient/sample_detector.hpp"
#include "harness/campaign/cell_summary.hpp"
#include "harness/campaign/episode_codec.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

verdict scored(double score) {
  verdict v;
  v.score = score;
  return v;
}

// A clean episode's score is the largest over its steps: any computed score
// ranks above not computed, a NaN seen above every number.
TEST(CellSummary, ACleanEpisodeScoresTheLargestComputedStep) {
  detector_episode de;
  detector_scoring clean(false);
  clean.step(de, scored(not_computed), 0, -1, {});
  clean.step(de, scored(not_computed), 1, -1, {});
  EXPECT_TRUE(is_not_computed(de.score)) << de.score;
  clean.step(de, scored(0.5), 2, -1, {});
  clean.step(de, scored(not_computed), 3, -1, {});
  EXPECT_EQ(de.score, 0.5);
  clean.step(de, scored(-1), 4, -1, {});
  EXPECT_EQ(de.score, 0.5);
  clean.step(de, scored(NAN), 5, -1, {});
  EXPECT_TRUE(std::isnan(de.score) && !is_not_computed(de.score)) << "a NaN seen ranks highest";
  EXPECT_EQ(higher_score(not_computed, -2.0), -2.0);
  EXPECT_TRUE(is_not_computed(higher_score(not_computed, not_computed)));
}

// Two faulty episodes, then three clean ones, of one detector whose score
// was never computed; its metric w1 computed in one faulty episode only, phi
// in every episode (one of them NaN), a series point never.
std::vector<episode_result> episodes() {
  std::vector<episode_result> eps(5);
  for (size_t t = 0; t < eps.size(); ++t) {
    eps[t].steps = 1;
    detector_episode d;
    d.result = t < 2 ? outcome::missed : outcome::clean_pass;
    d.score = not_computed;
    d.metrics = {{"phi", 1.5}, {"w1", not_computed}};
    d.series = {{"w1", series_axis::step, 0, -1, not_computed}};
    eps[t].detectors.push_back(d);
  }
  eps[0].detectors[0].metrics[1].second = 2.0;
  eps[1].detectors[0].metrics[0].second = NAN;
  return eps;
}

json summary(const std::vector<episode_result>& eps) {
  suite s;
  s.faulty_trials = 2, s.clean_trials = 3;
  s.detectors.push_back({find_detector(view_kind::sample, "folding_w1"), "folding_w1", json::object()});
  cell c;
  c.axes = {{"when", "specific(0)"}}, c.key = "when=specific(0)";
  // Through the codec's bytes: the payload that tells not computed from NaN survives them.
  return summarize_cell(s, c, decode_episodes(encode_episodes(eps))).records.at(0);
}

TEST(CellSummary, NothingComputedIsNullNotZeroNorANaN) {
  const json rec = summary(episodes());
  const json& m = rec.at("metrics");
  EXPECT_TRUE(m.at("clean_score_max").is_null()) << m;
  EXPECT_EQ(m.at("clean_score_nan"), 0) << "not computed is no NaN seen";
  EXPECT_TRUE(m.at("faulty_score_median").is_null()) << m;
  // A summary counts computed values only and is null over none.
  EXPECT_EQ(m.at("clean.w1.count"), 0);
  EXPECT_EQ(m.at("clean.w1.nan"), 0);
  for (const char* f : {"median", "mean", "max"}) EXPECT_TRUE(m.at(std::string("clean.w1.") + f).is_null()) << f << " " << m;
  EXPECT_EQ(m.at("faulty.w1.count"), 1);
  EXPECT_EQ(m.at("faulty.w1.max"), 2.0);
  EXPECT_EQ(m.at("faulty.phi.count"), 2);
  EXPECT_EQ(m.at("faulty.phi.nan"), 1);
  EXPECT_EQ(m.at("faulty.phi.median"), 1.5);
  const json& clean_series = rec.at("series").at(0).at("clean");
  EXPECT_EQ(clean_series.at("count").at(0), 0);
  EXPECT_EQ(clean_series.at("nan").at(0), 0);
  EXPECT_TRUE(clean_series.at("max").at(0).is_null());
}

TEST(CellSummary, CleanScoresComputedOrNaNAreCountedAsBefore) {
  auto eps = episodes();
  eps[2].detectors[0].score = 0.25, eps[3].detectors[0].score = NAN;
  eps[0].detectors[0].score = 3.0;
  const json m = summary(eps).at("metrics");
  EXPECT_EQ(m.at("clean_score_max"), 0.25);
  EXPECT_EQ(m.at("clean_score_nan"), 1);
  EXPECT_EQ(m.at("faulty_score_median"), 3.0) << "the median of the computed faulty scores";
}

}  // namespace
}  // namespace sdc
