// `sdcbench stat feature_value` and `sdcbench stat consistency` on hand-made
// training signals; bad files and options end with exit 2 naming what is wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "cli_runner.hpp"
#include "detectors/consistency.hpp"
#include "harness/io/npy.hpp"

namespace {

using namespace sdc::testing;

TEST(StatFeatureValue, PerStepStateAlarmsAndStrikeOut) {
  const std::string dir = scratch_dir("stat-fv");
  // 12 steady values, then two far above T_1 a cooldown apart, then NaN.
  std::ofstream(dir + "/fv.txt") << "1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4 1e-4\n0\n500\n2e-4\n5000\nnan\n";
  const auto r = run_cli("stat feature_value " + dir + "/fv.txt --param strikes_num=2 --param cooldown=1 --param seconds_per_step=60");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["steps"].size(), 17u);
  EXPECT_TRUE(j["steps"][9]["warming"].get<bool>());
  EXPECT_FALSE(j["steps"][10]["warming"].get<bool>());
  EXPECT_NEAR(j["steps"][11]["t1"].get<double>(), 100.0, 1e-9);  // avg / (1 - 0.99^nz) = 1e-4, times 1e6
  EXPECT_TRUE(j["steps"][12]["ignored"].get<bool>());
  EXPECT_TRUE(j["steps"][13]["alarm"].get<bool>());   // 500 > T_1 = 100, far from pre
  EXPECT_TRUE(j["steps"][13]["strike"].get<bool>());
  EXPECT_FALSE(j["steps"][14]["alarm"].get<bool>());
  EXPECT_TRUE(j["steps"][15]["strike_out"].get<bool>());  // the second counted alarm, 2 minutes later
  EXPECT_TRUE(j["steps"][16]["alarm"].get<bool>());  // NaN
  EXPECT_EQ(j["alarms"], 3);
  EXPECT_EQ(j["strike_outs"], nlohmann::json::array({15}));
}

TEST(StatConsistency, MetricsAndTheFaultyRankStandsOut) {
  const std::string dir = scratch_dir("stat-cons");
  const int64_t R = 4, P = 64;
  std::vector<float> g(size_t(R * P));
  for (int64_t i = 0; i < R * P; ++i) g[size_t(i)] = float(std::sin(0.37 * double(i)) + (i % P % 4 == 0 ? 1.0 : 0.0));
  g[size_t(2 * P + 5)] = 1e20f;  // rank 2's corrupted element
  sdc::write_npy(dir + "/g.npy", "<f4", {R, P}, g.data(), g.size() * 4);
  std::ofstream(dir + "/l.txt") << "2.0 2.1 1.9 2.0\n";
  const auto r = run_cli("stat consistency --losses " + dir + "/l.txt --grads " + dir + "/g.npy");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  std::vector<std::span<const float>> spans;
  for (int64_t k = 0; k < R; ++k) spans.emplace_back(g.data() + k * P, size_t(P));
  const std::vector<double> losses = {2.0, 2.1, 1.9, 2.0};
  const auto ref = sdc::consistency_reference(losses, spans);
  EXPECT_NEAR(j["cos_mean"].get<double>(), ref.cos_mean, 1e-12);
  EXPECT_NEAR(j["loss_range"].get<double>(), 0.2, 1e-12);
  for (int k = 0; k < R; ++k) EXPECT_NEAR(j["ranks"][k]["cos_to_rest"].get<double>(), ref.cos_to_rest[size_t(k)], 1e-12);
  EXPECT_GT(j["ranks"][2]["z_log_norm"].get<double>(), 100);
}

TEST(StatTraining, BadInputExitsTwoNamingTheFileOrOption) {
  const std::string dir = scratch_dir("stat-bad");
  std::ofstream(dir + "/fv.txt") << "1 2 x\n";
  auto r = run_cli("stat feature_value " + dir + "/fv.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("fv.txt: line 1"), std::string::npos) << r.output;
  std::ofstream(dir + "/ok.txt") << "1 2 3\n";
  r = run_cli("stat feature_value " + dir + "/ok.txt --param upper_thresh1=10 --param upper_thresh2=100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("upper_thresh1"), std::string::npos) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --param tau=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--param: tau"), std::string::npos) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --param cooldown=nan");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("stat feature_value " + dir + "/ok.txt --tau 3");
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("stat folding " + dir + "/ok.txt --param cooldown=1");
  EXPECT_EQ(r.code, 2) << r.output;
  std::vector<float> g(12, 1.0f);
  sdc::write_npy(dir + "/g1.npy", "<f4", {12}, g.data(), 48);
  sdc::write_npy(dir + "/g.npy", "<f4", {3, 4}, g.data(), 48);
  r = run_cli("stat consistency --losses " + dir + "/ok.txt --grads " + dir + "/g1.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("g1.npy: shape: expected 2 dimensions"), std::string::npos) << r.output;
  std::ofstream(dir + "/l2.txt") << "1 2\n";
  r = run_cli("stat consistency --losses " + dir + "/l2.txt --grads " + dir + "/g.npy");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("l2.txt: values: expected one loss per rank"), std::string::npos) << r.output;
  r = run_cli("stat consistency --grads " + dir + "/g.npy");
  EXPECT_EQ(r.code, 2) << r.output;
  std::ofstream(dir + "/trunc.npy") << "\x93NUMPY";
  r = run_cli("stat consistency --losses " + dir + "/ok.txt --grads " + dir + "/trunc.npy");
  EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
