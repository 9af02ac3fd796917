// A small decoder-only transformer language model on bytes, written over
// libtorch as plain functions of a named parameter list (not torch::nn
// modules): replicas are copied, checkpointed, flattened into all-reduce
// buckets and faulted by parameter name, and every random draw (init,
// dropout) comes from a generator the caller owns, so two replicas given the
// same seed are bit-identical whatever thread runs them.
//
// Token and position embeddings (learned, or rotary on q and k); pre-norm
// blocks (LayerNorm or RMSNorm, causal multi-head attention, a GELU MLP or
// LLaMA's SwiGLU); a final norm; a head tied to the token embedding or
// separate; biases in the linear layers or none. The LLaMA-style decoder is
// RMSNorm + SwiGLU + RoPE + an untied head + no biases. Mixed precision as torch.autocast("cpu",
// bfloat16) does it: the GEMMs (linear layers, attention products) run in
// bf16, norms, softmax and the loss in fp32; master weights are fp32.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/views/training_view.hpp"
#include "workloads/training/trainer/training_config.hpp"

namespace sdc {
struct block_tensor;
}

namespace sdc::train {

// Parameters in a fixed order, each with its name ("blocks.0.attn.qkv.weight").
struct param_set {
  std::vector<std::string> names;
  std::vector<torch::Tensor> tensors;  // fp32, requires_grad
  int64_t index_of(const std::string& name) const;  // -1 if absent
  int64_t numel() const;
  param_set clone() const;  // deep copy, requires_grad kept
};

param_set init_params(const model_config& c, at::Generator& gen);

// Where a GEMM of a linear layer is: its layer index (linear_names order) and pass.
enum class gemm_pass { forward, grad_input, grad_weight };
const char* gemm_pass_name(gemm_pass p);

// The tensors of a block's attention a fault can land in (issue 70), each
// [B, H, T, X] (batch, head, query row, X = key column; 1 for row_max and
// row_sum; the head's feature for context): forward, Q K^T as computed (bf16
// under bf16 precision), the softmax's input (scaled, causally masked, fp32),
// its row maxima and row sums (the explicit softmax only: model_config's
// explicit_softmax), its probabilities (fp32, before dropout), the product
// with V; backward, the gradients of Q K^T, the probabilities and P V.
enum class attention_point { scores, softmax_in, row_max, row_sum, probs, context, scores_grad, probs_grad, context_grad };
const char* attention_point_name(attention_point p);

// Called after every linear layer's GEMM out = a b (2-D: tokens x features for
// forward and grad_input, out x in for grad_weight; a and b as the GEMM read
// them, possibly transposed views; the forward bias is added after), which it
// may change in place: forward activations, activation gradients and
// defective-GEMM faults land here, and GEMM checks (003's CheckSum, 001's
// V-ABFT) read a, b and the output here.
class gemm_hook {
 public:
  virtual ~gemm_hook() = default;
  // Before the GEMM: the hook may compute out = a b itself (a check fused
  // into the GEMM, issue 34), bit for bit what mixed_mm gives; false: mixed_mm runs.
  virtual bool run_gemm(int /*linear*/, gemm_pass, const torch::Tensor& /*a*/, const torch::Tensor& /*b*/, torch::Tensor& /*out*/) {
    return false;
  }
  virtual void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) = 0;
  // Precision mxfp8 (mx_linear.hpp): each operand of the GEMM once quantized
  // (operand 0: A, blocked along its rows; 1: B, down its columns), before
  // the product, which reads it as the hook leaves it (a fault in a code or
  // a block scale lands here). after_gemm then gets the operands' fp32
  // values as read, and run_gemm is not asked.
  virtual void quantized(int /*linear*/, gemm_pass, int /*operand*/, sdc::block_tensor& /*q*/) {}
  // After each attention product of the forward pass of block `layer`, out =
  // a b batched over [B, H] (pass: k_attention_scores, Q K^T; then
  // k_attention_context, P V), read only, before an attention site changes
  // them. HF's eager attention computes these two with torch.matmul, where
  // torch_npu's CheckSum looks (workloads/training/training_episode.cpp
  // records them).
  virtual void after_attention(int /*layer*/, int /*pass*/, const torch::Tensor& /*a*/, const torch::Tensor& /*b*/,
                               const torch::Tensor& /*out*/) {}
  // Whether at_attention wants the tensor at `point` of block `layer`; then
  // at_attention may change it in place (contiguous; a gradient through an
  // autograd hook on the forward tensor, the changed copy passed on).
  virtual bool wants_attention(int /*layer*/, attention_point) { return false; }
  virtual void at_attention(int /*layer*/, attention_point, torch::Tensor& /*t*/) {}
};

// A hooked GEMM as GEMM checks read it (protocol/views/training_view.hpp):
// fp32 copies of a, b and out, whatever their format and strides.
sdc::gemm_record gemm_record_of(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b,
                                const torch::Tensor& out);
// A batched product (a [..., m, k], b [..., k, n], out [..., m, n]) as one
// record of `batch` products: an attention product's.
sdc::gemm_record batched_record_of(int layer, int pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out);

// y = x w^T + b for a 2-D x (b may be empty: numel 0), its forward and both
// backward GEMMs shown to `hook` (may be null) as linear layer `id`. The same
// products as torch::nn::functional::linear, its reference twin in the tests;
// with `mx` (not null), the three GEMMs in MXFP8 (mx_linear.hpp).
struct mx_recipe;
torch::Tensor hooked_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, int id, gemm_hook* hook,
                            const mx_recipe* mx = nullptr);

// The model's linear layers by name ("blocks.0.mlp.fc1"), in call order.
std::vector<std::string> linear_names(const model_config& c);

// Rotary position embeddings (LLaMA, theta 10000): cos and sin [2, seq, D/2]
// of t * 10000^(-2i/D), correctly rounded to fp32 (MPFR); and x [B, H, T, D]
// rotated by them in fp32, pairing element i with i + D/2 (rotate_half).
torch::Tensor rope_table(int64_t seq, int64_t head_width);
torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& table);

struct forward_options {
  gemm_hook* hook = nullptr;
  at::Generator* dropout_gen = nullptr;  // required when dropout > 0 and training
  bool training = true;
};

// Logits [B, T, vocab] of tokens [B, T] (int64).
torch::Tensor forward(const model_config& c, const param_set& p, const torch::Tensor& tokens,
                      const forward_options& o);

// Mean cross-entropy over the positions where mask is 1 (targets and mask [B, T]).
torch::Tensor masked_loss(const torch::Tensor& logits, const torch::Tensor& targets, const torch::Tensor& mask);

}  // namespace sdc::train
