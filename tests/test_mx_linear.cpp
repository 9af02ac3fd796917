// Precision mxfp8's linear layer (workloads/training/trainer/mx_linear.hpp):
// its forward and both backward GEMMs against a plain reference built from the
// reference quantizer and the block-scaled GEMM's MPFR twin
// (foundation/formats/block_scaled_reference.hpp,
// foundation/kernels/block_gemm/block_gemm.hpp), bit for bit, with each
// operand blocked along its GEMM's K (the weight along its rows forward and
// down its columns for the input gradient); the recipes' scale and rounding;
// and a flipped weight scale moving exactly its block's elements and output column.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include "foundation/formats/block_scaled_reference.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"
#include "workloads/training/trainer/mx_linear.hpp"

namespace {

using namespace sdc;
using namespace sdc::train;
using torch::Tensor;

// C = A B: A and B's fp32 values quantized by the reference twin along K,
// multiplied by the MPFR twin, rounded to bf16.
Tensor mxl_reference(const Tensor& a, const Tensor& b, const mx_recipe& r) {
  const Tensor af = a.to(torch::kFloat).contiguous(), bf = b.to(torch::kFloat).contiguous();
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  const block_tensor qa = quantize_reference({af.data_ptr<float>(), size_t(m * k)}, m, k, 1, *r.fmt, r.opt);
  const block_tensor qb = quantize_reference({bf.data_ptr<float>(), size_t(k * n)}, k, n, 0, *r.fmt, r.opt);
  Tensor c = torch::empty({m, n});
  block_gemm_reference(qa, qb, c.data_ptr<float>());
  return c.to(torch::kBFloat16);
}

bool mxl_same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && torch::equal(a, b);
}

struct mxl_case {
  Tensor x, w, b, gy;
};

mxl_case mxl_draw(int64_t tokens, int64_t in, int64_t out, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  mxl_case c;
  c.x = (torch::randn({tokens, in}, gen) * 3).to(torch::kBFloat16).set_requires_grad(true);
  c.w = (torch::randn({out, in}, gen) * 0.1).to(torch::kBFloat16).set_requires_grad(true);
  c.b = torch::randn({out}, gen).to(torch::kBFloat16).set_requires_grad(true);
  c.gy = (torch::randn({tokens, out}, gen) * 1e-3).to(torch::kBFloat16);
  return c;
}

}  // namespace

TEST(MxLinear, ForwardAndBackwardAreThePlainReferenceBitForBit) {
  torch::set_num_threads(1);
  for (bool microxcaling : {false, true}) {
    model_config m;
    m.bf16 = m.mxfp8 = true, m.mx_microxcaling = microxcaling;
    const mx_recipe& r = mx_recipe_of(m);
    for (auto [tokens, in, out] : {std::tuple<int64_t, int64_t, int64_t>{40, 64, 48}, {33, 45, 7}, {8, 16, 96}}) {
      SCOPED_TRACE(std::to_string(tokens) + "x" + std::to_string(in) + "x" + std::to_string(out) + (microxcaling ? " microxcaling" : " TE"));
      mxl_case c = mxl_draw(tokens, in, out, 9 + uint64_t(in));
      const Tensor y = hooked_linear(c.x, c.w, c.b, 0, nullptr, &r);
      const Tensor y_ref = mxl_reference(c.x.detach(), c.w.detach().t(), r) + c.b.detach();
      EXPECT_TRUE(mxl_same(y.detach(), y_ref));
      y.backward(c.gy);
      // dx = dy w: the weight blocked down its columns (along out); dw = dy^T x: both along tokens.
      EXPECT_TRUE(mxl_same(c.x.grad(), mxl_reference(c.gy, c.w.detach(), r)));
      EXPECT_TRUE(mxl_same(c.w.grad(), mxl_reference(c.gy.t(), c.x.detach(), r)));
      // Loosely the unquantized product: MXFP8 E4M3 keeps about 2^-4 relative per element.
      const Tensor y32 = torch::mm(c.x.detach().to(torch::kFloat), c.w.detach().to(torch::kFloat).t());
      EXPECT_LT((y.detach().to(torch::kFloat) - c.b.detach().to(torch::kFloat) - y32).abs().max().item<double>(),
                0.25 * y32.abs().max().item<double>());
    }
  }
}

// The recipes differ where their rules do: a block of 500s (amax above
// E4M3's 448). microxcaling: scale 2^(floor(log2 500) - 8) = 1, 500 saturates
// to 448. TE: 500 / 448 rounded up to a power of two, 2; 250 rounds to 256
// on E4M3's grid of 16 there: 512.
TEST(MxLinear, RecipesFollowTheirOriginalsScaleRules) {
  model_config te, mx;
  te.bf16 = te.mxfp8 = mx.bf16 = mx.mxfp8 = mx.mx_microxcaling = true;
  const Tensor a = torch::full({1, 32}, 500.0f);
  Tensor one = torch::zeros({32, 1});
  one.index_put_({0, 0}, 1.0f);
  mx_operands rt, rm;
  mx_mm(a, one, mx_recipe_of(te), 0, gemm_pass::forward, nullptr, &rt);
  mx_mm(a, one, mx_recipe_of(mx), 0, gemm_pass::forward, nullptr, &rm);
  EXPECT_EQ(rt.a_values[0][0].item<float>(), 512.0f);  // 2 x 256
  EXPECT_EQ(rm.a_values[0][0].item<float>(), 448.0f);  // saturated at scale 1
}

// A fault in a weight block scale (forward GEMM, B = w^T blocked along K)
// moves exactly the block's elements, and the output only in that column.
namespace {
struct mxl_scale_flip final : gemm_hook {
  int64_t block = 0;
  void quantized(int, gemm_pass pass, int operand, block_tensor& q) override {
    if (pass == gemm_pass::forward && operand == 1) q.scales[size_t(block)] ^= 0x01;  // the scale's lowest exponent bit: x2 or /2
  }
  void after_gemm(int, gemm_pass, const Tensor&, const Tensor&, Tensor&) override {}
};
}  // namespace

TEST(MxLinear, AScaleFaultMovesExactlyItsBlock) {
  model_config m;
  m.bf16 = m.mxfp8 = true;
  const mx_recipe& r = mx_recipe_of(m);
  mxl_case c = mxl_draw(6, 70, 5, 4);  // K = 70: blocks 32, 32, 6
  const Tensor wt = c.w.detach().t();
  mx_operands clean, faulty;
  const Tensor y0 = mx_mm(c.x.detach(), wt, r, 0, gemm_pass::forward, nullptr, &clean);
  mxl_scale_flip flip;
  flip.block = 1 * 5 + 3;  // block 1 along K of column 3
  const Tensor y1 = mx_mm(c.x.detach(), wt, r, 0, gemm_pass::forward, &flip, &faulty);
  const auto expect = clean.b.elements_of_block(flip.block);
  const Tensor diff = clean.b_values.ne(faulty.b_values).flatten();
  for (int64_t i = 0; i < diff.numel(); ++i) {
    const bool in_block = std::find(expect.begin(), expect.end(), i) != expect.end();
    const bool zero = clean.b_values.flatten()[i].item<float>() == 0.0f;
    EXPECT_EQ(diff[i].item<bool>(), in_block && !zero) << "element " << i;
  }
  EXPECT_TRUE(torch::equal(clean.a_values, faulty.a_values));
  const Tensor moved_cols = y0.ne(y1).any(0);
  for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(moved_cols[j].item<bool>(), j == 3) << "column " << j;
}
