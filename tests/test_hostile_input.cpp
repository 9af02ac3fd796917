// Inputs that make no sense end with exit 2 and a message naming what was
// expected, and degenerate data gets a stated answer (issue 15's list of
// defects found by an independent comparison, the ones fixed so far).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "cli_runner.hpp"
#include "foundation/io/npy.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

TEST(HostileInput, NonsenseDetectorParametersAreRefused) {
  const auto d = scratch_dir("hostile-params");
  std::vector<double> A(12, 1.0), B(12, 2.0);
  sdc::write_npy(d + "/a.npy", "<f8", {3, 4}, A.data(), A.size() * 8);
  sdc::write_npy(d + "/b.npy", "<f8", {4, 3}, B.data(), B.size() * 8);
  const std::string gemm = "check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --dtype fp64 --detector ";
  for (const char* bad : {"vabft:e_max=-1", "vabft:e_max=0", "vabft:c_sigma=-2"}) {
    const auto r = run_cli(gemm + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("expected a number > 0"), std::string::npos) << r.output;
  }
  for (const char* bad : {"vabft:e_max=nan", "vabft:c_sigma=inf"}) {
    const auto r = run_cli(gemm + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("a finite number"), std::string::npos) << r.output;
  }
  EXPECT_EQ(run_cli(gemm + "vabft:e_max=1e-15").code, 0);
}

TEST(HostileInput, DeltaCritTakesFiniteValuesAndEchoesThemAsGiven) {
  auto r = run_cli("delta-crit --sigma inf");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--sigma: inf: expected a finite sigma > 0"), std::string::npos) << r.output;
  r = run_cli("delta-crit --sigma -1e-9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("--sigma: -1e-09:"), std::string::npos) << r.output;  // not "-0.000000"
  r = run_cli("delta-crit --sigma 1 --p nan");
  EXPECT_EQ(r.code, 2) << r.output;
}

TEST(HostileInput, StatSaysConstantSampleFlattenedArraysAndOneBasedPositions) {
  const auto d = scratch_dir("hostile-stat");
  std::ofstream(d + "/c.txt") << "5 5 5 5 5 5 5 5\n";
  for (const char* test : {"folding", "folding_w1", "w1", "robust_z", "dip", "silverman", "uu_test"}) {
    const auto r = run_cli(std::string("stat ") + test + " " + d + "/c.txt");
    ASSERT_EQ(r.code, 0) << test << ": " << r.output;
    const json j = json::parse(r.output);
    EXPECT_EQ(j["decision"], "constant sample") << test;
    EXPECT_TRUE(j["statistic"].is_null()) << test;  // no pivot 0, no "0 segments" beside "unimodal"
  }
  std::ofstream(d + "/n.txt") << "1 2\n3 nan 5\n";
  auto r = run_cli("stat dip " + d + "/n.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("n.txt: value 4: expected finite numbers"), std::string::npos) << r.output;  // the 4th value
  std::vector<double> m = {1, 2, 3, 4, 5, 9, 2, 7};
  sdc::write_npy(d + "/m.npy", "<f8", {2, 4}, m.data(), m.size() * 8);
  r = run_cli("stat dip " + d + "/m.npy");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(json::parse(r.output)["note"].get<std::string>().find("shape 2x4"), std::string::npos) << r.output;
}

// 001's checks on fp64 entries near 1e150: C is finite but the error bounds
// overflow. The verdict says so (cannot_check), never a false alarm with a
// made-up location; an Inf in C on ordinary data is still a detection.
TEST(HostileInput, AnOverflowingThresholdCannotCheckButAnInfFaultIsDetected) {
  const auto d = scratch_dir("hostile-overflow");
  const int64_t m = 4, k = 8, n = 3;
  std::vector<double> A(size_t(m * k)), B(size_t(k * n));
  for (size_t i = 0; i < A.size(); ++i) A[i] = (1.0 + 0.1 * double(i % 5)) * 1e150;
  for (size_t i = 0; i < B.size(); ++i) B[i] = (1.0 + 0.07 * double(i % 3)) * 1e150;
  sdc::write_npy(d + "/a.npy", "<f8", {m, k}, A.data(), A.size() * 8);
  sdc::write_npy(d + "/b.npy", "<f8", {k, n}, B.data(), B.size() * 8);
  // (A-ABFT's default y = 21 is the paper's constant for data in [-1, 1]: its
  // threshold stays finite and does not scale, a parameter choice, not an overflow.)
  for (const char* det : {"vabft", "vabft_exact_variance"}) {
    const auto r = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --dtype fp64 --detector " + det);
    ASSERT_EQ(r.code, 0) << r.output;
    const json v = json::parse(r.output)["verdict"];
    EXPECT_TRUE(v["cannot_check"].get<bool>()) << det << " " << v;
    EXPECT_FALSE(v["flagged"].get<bool>()) << det;
    EXPECT_TRUE(v["located_row"].is_null()) << det;
  }
  // Ordinary data, C given with one element Inf: every policy flags it.
  for (auto& x : A) x *= 1e-150;
  for (auto& x : B) x *= 1e-150;
  std::vector<double> C(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t q = 0; q < k; ++q) C[size_t(i * n + j)] += A[size_t(i * k + q)] * B[size_t(q * n + j)];
  C[4] = INFINITY;
  sdc::write_npy(d + "/a.npy", "<f8", {m, k}, A.data(), A.size() * 8);
  sdc::write_npy(d + "/b.npy", "<f8", {k, n}, B.data(), B.size() * 8);
  sdc::write_npy(d + "/c.npy", "<f8", {m, n}, C.data(), C.size() * 8);
  for (const char* det : {"vabft", "aabft", "higham", "fixed_rel"}) {
    const auto r = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --c " + d + "/c.npy --dtype fp64 --detector " + det);
    ASSERT_EQ(r.code, 0) << r.output;
    const json v = json::parse(r.output)["verdict"];
    EXPECT_TRUE(v["flagged"].get<bool>()) << det << " " << v;
    EXPECT_FALSE(v["cannot_check"].get<bool>()) << det;
  }
}

}  // namespace

namespace {

// Found by the 10-minute fuzz runs: a JSON number beyond a double (nlohmann
// throws out_of_range, not a parse error) in a suite, a tensor header or a
// result set, and journal bytes that are not bytes, are refused with exit 2.
TEST(HostileInput, NumbersBeyondADoubleAreRefusedNamingTheFile) {
  const auto d = scratch_dir("hostile-numbers");
  std::ofstream(d + "/s.json") << R"({"schema": "sdcbench.suite/1", "name": "x", "seed": 1e999})";
  auto r = run_cli("run " + d + "/s.json --quiet --out " + d + "/o.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("s.json: file: expected numbers a double can hold"), std::string::npos) << r.output;
  std::ofstream(d + "/r.json") << R"({"schema_version": -4e664})";
  for (const char* cmd : {"validate ", "show "}) {
    r = run_cli(cmd + d + "/r.json");
    EXPECT_EQ(r.code, 2) << cmd << r.output;
    EXPECT_NE(r.output.find("r.json: file: expected numbers a double can hold"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(d + "/o.json"));
  r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/dlrm_eb_table3.json --quiet --out " + d +
              "/o.json --axis batch=10x111111111111111111111");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--axis: batch"), std::string::npos) << r.output;
  json set = read_json(std::string(SDCBENCH_TEST_DATA) + "/fixtures/compare_a.json");
  set["shard"] = {{"index", 3}, {"count", 1}};  // validate accepted it; merge then found shard 0/1 missing
  std::ofstream(d + "/shard.json") << set.dump();
  r = run_cli("validate " + d + "/shard.json");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("/shard: index must be below count"), std::string::npos) << r.output;
}

}  // namespace
