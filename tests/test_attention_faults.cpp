// The softmax of a block's attention under faults (trainer/attention.hpp): a
// NaN score turns its row's probabilities into NaN and leaves every other row
// as it was; a NaN in a masked (future) position is masked away; a NaN row
// maximum or row sum of the explicit softmax turns its row into NaN; a huge
// score makes its row one-hot; the explicit softmax is torch's up to rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "workloads/training/trainer/attention.hpp"

namespace {

using namespace sdc::train;

struct attn_fault_scores {
  torch::Tensor scores, causal;
};

attn_fault_scores attn_fault_input() {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(11);
  return {torch::randn({2, 3, 8, 8}, gen), torch::ones({8, 8}, torch::kBool).triu(1)};
}

// Rows (batch, head, query) of p that are all NaN, and whether every other row equals `clean`'s.
void expect_only_row_nan(const torch::Tensor& p, const torch::Tensor& clean, int64_t b, int64_t h, int64_t i) {
  for (int64_t bb = 0; bb < p.size(0); ++bb)
    for (int64_t hh = 0; hh < p.size(1); ++hh)
      for (int64_t ii = 0; ii < p.size(2); ++ii) {
        const torch::Tensor row = p[bb][hh][ii], clean_row = clean[bb][hh][ii];
        if (bb == b && hh == h && ii == i) EXPECT_TRUE(torch::isnan(row).all().item<bool>()) << "row " << ii;
        else EXPECT_TRUE(torch::equal(row, clean_row)) << bb << " " << hh << " " << ii;
      }
}

// Sets one element of the tensor at `point` to NaN: a stand-in for a site.
struct nan_at_point final : gemm_hook {
  attention_point point;
  std::vector<int64_t> at;
  void after_gemm(int, gemm_pass, const torch::Tensor&, const torch::Tensor&, torch::Tensor&) override {}
  bool wants_attention(int, attention_point p) override { return p == point; }
  void at_attention(int, attention_point, torch::Tensor& t) override {
    torch::NoGradGuard ng;
    t.index_put_({at[0], at[1], at[2], at[3]}, NAN);
  }
};

TEST(AttentionFaults, ANaNScoreTurnsItsRowIntoNaN) {
  const auto in = attn_fault_input();
  for (bool expl : {false, true}) {
    SCOPED_TRACE(expl ? "explicit softmax" : "torch softmax");
    const torch::Tensor clean = attention_probs(in.scores, in.causal, 4, 0, nullptr, expl);
    torch::Tensor s = in.scores.clone();
    s[1][2][5][3] = NAN;  // key 3 <= query 5: attended
    expect_only_row_nan(attention_probs(s, in.causal, 4, 0, nullptr, expl), clean, 1, 2, 5);
    torch::Tensor future = in.scores.clone();
    future[1][2][5][6] = NAN;  // key 6 > query 5: masked
    EXPECT_TRUE(torch::equal(attention_probs(future, in.causal, 4, 0, nullptr, expl), clean));
    nan_at_point h;  // the softmax's input, through its site
    h.point = attention_point::softmax_in, h.at = {0, 1, 7, 0};
    expect_only_row_nan(attention_probs(in.scores, in.causal, 4, 0, &h, expl), clean, 0, 1, 7);
  }
}

// An exponent flip that makes an attended score huge concentrates its row on that key.
TEST(AttentionFaults, AHugeScoreConcentratesItsRowOnOneKey) {
  const auto in = attn_fault_input();
  for (bool expl : {false, true}) {
    const torch::Tensor clean = attention_probs(in.scores, in.causal, 4, 0, nullptr, expl);
    torch::Tensor s = in.scores.clone();
    s[0][0][6][2] = 1e30f;
    const torch::Tensor p = attention_probs(s, in.causal, 4, 0, nullptr, expl);
    EXPECT_TRUE(torch::equal(p[0][0][6], torch::one_hot(torch::tensor(int64_t(2)), 8).to(torch::kFloat))) << expl;
    p[0][0][6] = clean[0][0][6];
    EXPECT_TRUE(torch::equal(p, clean)) << expl;  // no other row moved
  }
}

TEST(AttentionFaults, ANaNRowMaxOrSumTurnsItsRowIntoNaN) {
  const auto in = attn_fault_input();
  const torch::Tensor clean = attention_probs(in.scores, in.causal, 4, 0, nullptr, true);
  for (auto point : {attention_point::row_max, attention_point::row_sum}) {
    SCOPED_TRACE(attention_point_name(point));
    nan_at_point h;
    h.point = point, h.at = {1, 0, 4, 0};
    expect_only_row_nan(attention_probs(in.scores, in.causal, 4, 0, &h, true), clean, 1, 0, 4);
    // torch's softmax has no row max or sum: the site is never offered.
    const torch::Tensor torch_p = attention_probs(in.scores, in.causal, 4, 0, nullptr, false);
    EXPECT_TRUE(torch::equal(attention_probs(in.scores, in.causal, 4, 0, &h, false), torch_p));
  }
}

TEST(AttentionFaults, TheExplicitSoftmaxIsTorchsUpToRounding) {
  const auto in = attn_fault_input();
  const torch::Tensor a = attention_probs(in.scores, in.causal, 4, 0, nullptr, false);
  const torch::Tensor b = attention_probs(in.scores, in.causal, 4, 0, nullptr, true);
  EXPECT_TRUE(torch::allclose(a, b, 1e-6, 1e-7));
}

}  // namespace
