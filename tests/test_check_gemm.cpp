// `sdcbench check-gemm` on matrices written as .npy: thresholds against an
// independent evaluation of 001 Algorithm 1, a corrupted C located, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "cli_runner.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/random/streams.hpp"

using namespace sdc::testing;
using json = nlohmann::json;

namespace {

// Algorithm 1 written out directly from the paper, in long double.
long double vabft_row(const std::vector<double>& a_row, const std::vector<std::vector<double>>& b_rows, double e_max,
                      double c_sigma) {
  auto stats = [](const std::vector<double>& x) {
    long double mu = 0;
    for (double v : x) mu += v;
    mu /= x.size();
    const long double mx = *std::max_element(x.begin(), x.end()), mn = *std::min_element(x.begin(), x.end());
    return std::pair<long double, long double>(mu, (mx - mu) * (mu - mn));
  };
  const auto [mu_a, var_a] = stats(a_row);
  const long double n = b_rows[0].size();
  long double s_abs_mu = 0, s_var = 0, s_mu2 = 0;
  for (const auto& b : b_rows) {
    const auto [mu, var] = stats(b);
    s_abs_mu += std::fabs(mu), s_var += var, s_mu2 += mu * mu;
  }
  const long double t_det = n * std::fabs(mu_a) * s_abs_mu;
  const long double t23 = c_sigma * std::sqrt(n * mu_a * mu_a * s_var + n * n * var_a * s_mu2);
  const long double t4 = c_sigma * std::sqrt(n) * std::sqrt(var_a) * std::sqrt(s_var);
  return e_max * (t_det + t23 + t4);
}

}  // namespace

TEST(CheckGemm, ThresholdsMatchAnIndependentAlgorithm1) {
  const auto d = scratch_dir("check-gemm");
  const int64_t m = 5, k = 37, n = 6;
  sdc::rng g = sdc::make_stream(3, 3, 3, sdc::trial_kind::clean, sdc::stream_purpose::data);
  boost::random::normal_distribution<double> nd(0.5, 1.0);
  std::vector<double> A(size_t(m * k)), B(size_t(k * n));
  for (auto& x : A) x = nd(g);
  for (auto& x : B) x = nd(g);
  sdc::write_npy(d + "/a.npy", "<f8", {m, k}, A.data(), A.size() * 8);
  sdc::write_npy(d + "/b.npy", "<f8", {k, n}, B.data(), B.size() * 8);
  auto r = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --dtype fp64 --detector vabft:e_max=1e-15,c_sigma=2.5");
  ASSERT_EQ(r.code, 0) << r.output;
  const json out = json::parse(r.output);
  EXPECT_FALSE(out["verdict"]["flagged"].get<bool>());
  std::vector<std::vector<double>> b_rows(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(n)));
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) b_rows[size_t(kk)][size_t(j)] = B[size_t(kk * n + j)];
  for (int64_t i = 0; i < m; ++i) {
    std::vector<double> a_row(A.begin() + i * k, A.begin() + (i + 1) * k);
    const double want = double(vabft_row(a_row, b_rows, 1e-15, 2.5));
    EXPECT_NEAR(out["checks"]["rows"][size_t(i)]["threshold"].get<double>() / want, 1.0, 1e-12) << "row " << i;
  }
  // Column checks: the same formula on the transposed product.
  std::vector<std::vector<double>> a_cols(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(m)));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) a_cols[size_t(kk)][size_t(i)] = A[size_t(i * k + kk)];
  for (int64_t j = 0; j < n; ++j) {
    std::vector<double> b_col(static_cast<size_t>(k));
    for (int64_t kk = 0; kk < k; ++kk) b_col[size_t(kk)] = B[size_t(kk * n + j)];
    const double want = double(vabft_row(b_col, a_cols, 1e-15, 2.5));
    EXPECT_NEAR(out["checks"]["columns"][size_t(j)]["threshold"].get<double>() / want, 1.0, 1e-12) << "column " << j;
  }

  // A given C with one corrupted element: flagged and located.
  std::vector<double> C(size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t kk = 0; kk < k; ++kk) C[size_t(i * n + j)] = std::fma(A[size_t(i * k + kk)], B[size_t(kk * n + j)], C[size_t(i * n + j)]);
  C[size_t(3 * n + 4)] += 0.5;
  sdc::write_npy(d + "/c.npy", "<f8", {m, n}, C.data(), C.size() * 8);
  auto rc = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --c " + d + "/c.npy --dtype fp64 --detector higham");
  ASSERT_EQ(rc.code, 0) << rc.output;
  const json oc = json::parse(rc.output);
  EXPECT_TRUE(oc["verdict"]["flagged"].get<bool>());
  EXPECT_EQ(oc["verdict"]["located_row"], 3);
  EXPECT_EQ(oc["verdict"]["located_col"], 4);
  EXPECT_TRUE(oc["checks"]["rows"][3]["failed"].get<bool>());
  EXPECT_FALSE(oc["checks"]["rows"][2]["failed"].get<bool>());

  // Bad input: mismatched shapes and unknown detectors are clear errors.
  auto bad = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/a.npy --dtype fp64");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("header.shape"), std::string::npos) << bad.output;
  auto unknown = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --detector vabft_magic");
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  auto badparam = run_cli("check-gemm --a " + d + "/a.npy --b " + d + "/b.npy --detector vabft:c_sigma=abc");
  EXPECT_EQ(badparam.code, 2) << badparam.output;
  EXPECT_NE(badparam.output.find("c_sigma"), std::string::npos) << badparam.output;
}

// --dtype int8: the modular check of 004 on the user's own quantized matrices;
// a corrupted C_temp element is found in its row; out-of-range values are refused.
TEST(CheckGemm, Int8ModularCheckFindsTheCorruptedRow) {
  const auto d = scratch_dir("check_gemm_int8");
  const int64_t m = 5, k = 33, n = 17;
  sdc::rng g = sdc::make_stream(3, 3, 3, sdc::trial_kind::clean, sdc::stream_purpose::data);
  std::vector<uint8_t> A(size_t(m * k));
  std::vector<int8_t> B(size_t(k * n));
  for (auto& x : A) x = uint8_t(g() % 256);
  for (auto& x : B) x = int8_t(uint8_t(g() % 256));
  std::vector<int32_t> C(size_t(m * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) C[size_t(i * n + j)] += int32_t(A[size_t(i * k + p)]) * B[size_t(p * n + j)];
  sdc::write_npy(d + "/a.npy", "|u1", {m, k}, A.data(), A.size());
  sdc::write_npy(d + "/b.npy", "|i1", {k, n}, B.data(), B.size());
  sdc::write_npy(d + "/c.npy", "<i4", {m, n}, C.data(), C.size() * 4);
  C[size_t(2 * n + 3)] ^= 1 << 20;
  sdc::write_npy(d + "/cbad.npy", "<i4", {m, n}, C.data(), C.size() * 4);

  for (const char* det : {"abft_int8", "abft_int8_exact"}) {
    for (const char* c : {"", " --c c.npy"}) {
      auto r = run_cli(std::string("check-gemm --a ") + d + "/a.npy --b " + d + "/b.npy --dtype int8 --detector " + det +
                       (std::string(c).empty() ? "" : " --c " + d + "/c.npy"));
      ASSERT_EQ(r.code, 0) << r.output;
      EXPECT_FALSE(json::parse(r.output)["verdict"]["flagged"].get<bool>()) << det << c;
    }
    auto r = run_cli(std::string("check-gemm --a ") + d + "/a.npy --b " + d + "/b.npy --c " + d +
                     "/cbad.npy --dtype int8 --detector " + det);
    ASSERT_EQ(r.code, 0) << r.output;
    const json j = json::parse(r.output);
    EXPECT_TRUE(j["verdict"]["flagged"].get<bool>()) << det;
    std::vector<int64_t> flagged;
    for (const auto& row : j["checks"]["rows"])
      if (row["failed"].get<bool>()) flagged.push_back(row["index"]);  // one vocabulary with the float checks
    EXPECT_EQ(flagged, std::vector<int64_t>{2}) << det;
  }
  // A written as s8 with negative values: not u8.
  std::vector<int8_t> Aneg(A.size(), -3);
  sdc::write_npy(d + "/aneg.npy", "|i1", {m, k}, Aneg.data(), Aneg.size());
  auto bad = run_cli("check-gemm --a " + d + "/aneg.npy --b " + d + "/b.npy --dtype int8");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("aneg.npy: element (0, 0)"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("integers in [0, 255]"), std::string::npos) << bad.output;
}
