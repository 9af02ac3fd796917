// The LLaMA-style decoder (workloads/training/trainer/model.*: RMSNorm, SwiGLU,
// rotary position embeddings, an untied head, no biases) against a plain
// libtorch twin written here from the LLaMA reference's formulas
// (apply_rotary_emb's rotate_half pairing, theta 10000; FeedForward's
// w2(silu(w1 x) * w3 x); RMSNorm x * rsqrt(mean(x^2) + eps) * w), forward
// and backward; its rotary table against double-precision cos and sin; and
// every GEMM of it through the hook, so GEMM faults and checks reach it.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <map>

#include "workloads/training/trainer/model.hpp"

namespace {

using namespace sdc::train;
namespace F = torch::nn::functional;

model_config llama(bool bf16) {
  model_config m;
  m.layers = 2, m.width = 24, m.heads = 3, m.seq = 10, m.bf16 = bf16;
  m.rmsnorm = true, m.swiglu = true, m.rope = true, m.bias = false, m.tied_head = false;
  return m;
}

TEST(LlamaModel, ParametersAreLlamasAndTheFfnFollowsItsRule) {
  const model_config m = llama(false);
  EXPECT_EQ(m.ffn_width(), 64);  // 8/3 x 24 = 64, a multiple of 8
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  const param_set p = init_params(m, gen);
  EXPECT_EQ(p.index_of("pos_emb"), -1);
  EXPECT_GE(p.index_of("head.weight"), 0);
  for (const auto& n : p.names) EXPECT_EQ(n.find(".bias"), std::string::npos) << n;
  EXPECT_EQ(p.tensors[size_t(p.index_of("blocks.1.mlp.gate.weight"))].sizes(), torch::IntArrayRef({64, 24}));
  EXPECT_EQ(p.tensors[size_t(p.index_of("blocks.1.mlp.down.weight"))].sizes(), torch::IntArrayRef({24, 64}));
  // 2 x (3 x 24^2 qkv + 24^2 proj + 3 x 24 x 64 MLP + 2 x 24 norms) + 2 x 256 x 24 + 24
  EXPECT_EQ(p.numel(), 2 * (4 * 576 + 3 * 24 * 64 + 48) + 2 * 256 * 24 + 24);
}

TEST(LlamaModel, RotaryTableIsCosAndSinCorrectlyRounded) {
  const torch::Tensor t = rope_table(10, 8);
  for (int64_t p = 0; p < 10; ++p)
    for (int64_t i = 0; i < 4; ++i) {
      const double a = double(p) * std::pow(10000.0, -2.0 * double(i) / 8.0);
      EXPECT_NEAR(t[0][p][i].item<float>(), std::cos(a), 6e-8 * std::max(1.0, std::fabs(std::cos(a))));
      EXPECT_NEAR(t[1][p][i].item<float>(), std::sin(a), 6e-8 * std::max(1.0, std::fabs(std::sin(a))));
    }
  // Position 0 is the identity; a rotation keeps each pair's length.
  const torch::Tensor x = torch::randn({1, 1, 10, 8});
  const torch::Tensor y = apply_rope(x, t);
  EXPECT_TRUE(torch::equal(y[0][0][0], x[0][0][0]));
  const auto len = [](const torch::Tensor& v) { return v.slice(-1, 0, 4).pow(2) + v.slice(-1, 4).pow(2); };
  EXPECT_TRUE(torch::allclose(len(y), len(x), 1e-5, 1e-6));
}

// The twin: the same model from torch's own operators.
torch::Tensor twin_forward(const model_config& c, const param_set& p, const torch::Tensor& tokens) {
  auto at = [&](const std::string& n) { return p.tensors[size_t(p.index_of(n))]; };
  const int64_t B = tokens.size(0), T = tokens.size(1), H = c.heads, D = c.width / c.heads;
  auto rms = [&](const torch::Tensor& x, const std::string& n) { return x * torch::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * at(n + ".weight"); };
  const auto pos = torch::arange(T, torch::kDouble).unsqueeze(1);
  const auto inv = torch::pow(10000.0, -torch::arange(0, D, 2, torch::kDouble) / double(D)).unsqueeze(0);
  const auto cosv = torch::cos(pos * inv).to(torch::kFloat), sinv = torch::sin(pos * inv).to(torch::kFloat);
  auto rotate = [&](const torch::Tensor& x) {
    const auto x1 = x.slice(-1, 0, D / 2), x2 = x.slice(-1, D / 2);
    return torch::cat({x1 * cosv - x2 * sinv, x2 * cosv + x1 * sinv}, -1);
  };
  torch::Tensor x = F::embedding(tokens, at("tok_emb"));
  const auto causal = torch::ones({T, T}, torch::kBool).triu(1);
  for (int l = 0; l < c.layers; ++l) {
    const std::string b = "blocks." + std::to_string(l) + ".";
    const auto qkv = F::linear(rms(x, b + "norm1"), at(b + "attn.qkv.weight")).view({B, T, 3, H, D}).permute({2, 0, 3, 1, 4});
    const auto q = rotate(qkv[0]), k = rotate(qkv[1]), v = qkv[2];
    const auto att = torch::softmax((torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(D))).masked_fill(causal, -INFINITY), -1);
    x = x + F::linear(torch::matmul(att, v).transpose(1, 2).reshape({B, T, c.width}), at(b + "attn.proj.weight"));
    const auto h = rms(x, b + "norm2");
    x = x + F::linear(F::silu(F::linear(h, at(b + "mlp.gate.weight"))) * F::linear(h, at(b + "mlp.up.weight")), at(b + "mlp.down.weight"));
  }
  return F::linear(rms(x, "norm_f"), at("head.weight"));
}

TEST(LlamaModel, ForwardAndBackwardMatchTheTorchTwin) {
  torch::manual_seed(3);
  const model_config m = llama(false);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(2);
  const param_set p = init_params(m, gen), q = p.clone();
  const auto tokens = torch::randint(0, 256, {2, 10}, torch::kLong);
  forward_options o;
  o.training = false;
  const auto ours = forward(m, p, tokens, o), twin = twin_forward(m, q, tokens);
  // Our GEMMs sum in a fixed order, ATen's in its own: equal to fp32 rounding.
  EXPECT_TRUE(torch::allclose(ours, twin, 1e-4, 1e-5)) << (ours - twin).abs().max().item<float>();
  ours.pow(2).sum().backward();
  twin.pow(2).sum().backward();
  for (size_t i = 0; i < p.tensors.size(); ++i)
    EXPECT_TRUE(torch::allclose(p.tensors[i].grad(), q.tensors[i].grad(), 1e-3, 1e-5)) << p.names[i];
}

struct llama_counting_hook final : gemm_hook {
  std::map<std::pair<int, gemm_pass>, int> calls;
  std::vector<sdc::gemm_record> attention;
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor&, const torch::Tensor&, torch::Tensor&) override { ++calls[{linear, pass}]; }
  void after_attention(int layer, int pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out) override {
    attention.push_back(batched_record_of(layer, pass, a, b, out));
  }
};

// The hook's view of one forward and backward of the LLaMA-style model on 2 x
// 10 tokens; p holds the parameters and their gradients.
llama_counting_hook hooked_pass(const model_config& m, param_set& p) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
  p = init_params(m, gen);
  llama_counting_hook h;
  forward_options o;
  o.hook = &h, o.training = false;
  forward(m, p, torch::randint(0, 256, {2, 10}, torch::kLong), o).sum().backward();
  return h;
}

// What torch_npu's CheckSum sees of the model (HF eager attention's two
// torch.matmul calls per block): Q K^T and P V, forward only, batched over
// [B, H], with two bf16 operands under bf16 precision; each record's C is its
// A B on the training kernel (rounded to bf16), batch by batch.
TEST(LlamaModel, TheForwardShowsBothAttentionProductsOfEveryBlock) {
  for (const bool bf16 : {false, true}) {
    const model_config m = llama(bf16);
    param_set p;
    llama_counting_hook h = hooked_pass(m, p);
    ASSERT_EQ(h.attention.size(), 4u) << "bf16 " << bf16;
    for (size_t i = 0; i < h.attention.size(); ++i) {
      const auto& g = h.attention[i];
      EXPECT_EQ(g.linear, int(i / 2));
      EXPECT_EQ(g.pass, i % 2 == 0 ? sdc::k_attention_scores : sdc::k_attention_context);
      EXPECT_EQ(g.bf16, bf16);
      EXPECT_EQ(g.batch, 2 * 3);  // B x H
      EXPECT_EQ(g.m, 10);
      EXPECT_EQ(g.n, i % 2 == 0 ? 10 : 8);
      const auto a = torch::from_blob(const_cast<float*>(g.a.data()), {g.batch, g.m, g.k});
      const auto b = torch::from_blob(const_cast<float*>(g.b.data()), {g.batch, g.k, g.n});
      auto c = torch::matmul(a.to(torch::kDouble), b.to(torch::kDouble)).to(torch::kFloat);
      if (bf16) c = c.to(torch::kBFloat16).to(torch::kFloat);
      const auto got = torch::from_blob(const_cast<float*>(g.c.data()), {g.batch, g.m, g.n});
      EXPECT_TRUE(torch::allclose(got, c, bf16 ? 1e-2 : 1e-5, 1e-5)) << i;
    }
  }
}

TEST(LlamaModel, EveryGemmGoesThroughTheHookInFp32AndBf16) {
  for (const bool bf16 : {false, true}) {
    const model_config m = llama(bf16);
    param_set p;
    llama_counting_hook h = hooked_pass(m, p);
    const auto names = linear_names(m);
    ASSERT_EQ(names.size(), 11u);  // per block qkv, proj, gate, up, down; the head
    EXPECT_EQ(names[2], "blocks.0.mlp.gate");
    for (int l = 0; l < int(names.size()); ++l)
      for (auto pass : {gemm_pass::forward, gemm_pass::grad_input, gemm_pass::grad_weight})
        EXPECT_EQ((h.calls[{l, pass}]), 1) << names[size_t(l)] << " " << gemm_pass_name(pass) << " bf16 " << bf16;
    for (const auto& t : p.tensors) EXPECT_TRUE(t.grad().defined() && torch::isfinite(t.grad()).all().item<bool>());
  }
}

}  // namespace
