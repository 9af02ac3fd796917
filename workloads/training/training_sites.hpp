// Where a fault goes in a training step, and the step_observer that puts it
// there at the moment the site's tensor exists:
//   weight:NAME    a parameter of the rank's replica, before the step (000 section 5.1's model dump);
//                  NAME = all (weight, adam_m, adam_v, grad): every parameter as one, the element drawn over all
//   adam_m:NAME    AdamW's first moment of NAME, before the step
//   adam_v:NAME    its second moment
//   grad:NAME      NAME's gradient on the rank, before the all-reduce
//   bucket         the rank's own copy of the reduced gradients (flat), after the all-reduce
//   act:LAYER      the forward output of a linear layer (MindSpore's GenerateEodMaskV2 after a matmul)
//   actgrad:LAYER  the gradient a linear layer's backward passes to its input
//   gemm:LAYER     every GEMM of LAYER (forward and both backward) on the rank, each
//   gemm:all       corrupting its output with probability q: a defective rank
//   wcode:LAYER    precision mxfp8 (trainer/mx_linear.hpp): an E4M3 code of LAYER's weight as
//   wscale:LAYER   its forward GEMM quantized it (B = w^T, K x N), or an E8M0 block scale
//   xcode:LAYER    (ceil(K/32) x N); the same in the forward GEMM's activation operand
//   xscale:LAYER   (A = x, tokens x K; scales tokens x ceil(K/32)), before the product reads it
//   attn_POINT:blocks.L  the tensor at attention_point POINT of block L's
//                  attention (trainer/model.hpp): attn_scores, attn_softmax_in,
//                  attn_row_max, attn_row_sum (explicit softmax), attn_probs,
//                  attn_context, attn_scores_grad, attn_probs_grad, attn_context_grad
// The element within the tensor is the plan's site rule (uniform, at(I,J),
// row, col, max_abs) over its 2-D view (rows = numel / last dimension).
#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

#include "injectors/block_target.hpp"

#include "protocol/workload.hpp"
#include "workloads/training/trainer/trainer.hpp"

namespace sdc::train {

struct fault_site {
  enum class kind { weight, adam_m, adam_v, grad, bucket, act, actgrad, gemm, wcode, wscale, xcode, xscale, attention };
  kind k = kind::grad;
  std::string name;  // parameter or layer; "all" for gemm:all; the block (blocks.L) for attention
  attention_point point = attention_point::scores;  // attention: where in the block's attention
  std::string text() const;
  bool in_gemm() const { return k == kind::act || k == kind::actgrad || k == kind::gemm || mx(); }
  // In an MXFP8 GEMM's quantized operand (the weight's or the activation's codes or block scales).
  bool mx() const { return k == kind::wcode || k == kind::wscale || k == kind::xcode || k == kind::xscale; }
  // attn_row_max:, attn_row_sum: exist only in the explicit softmax.
  bool in_softmax() const {
    return k == kind::attention && (point == attention_point::row_max || point == attention_point::row_sum);
  }
  // Stored state (weight:, adam_m:, adam_v:): a fault there stays until the next write.
  bool stored() const { return k == kind::weight || k == kind::adam_m || k == kind::adam_v; }
};
fault_site parse_fault_site(const std::string& text);  // value_error on bad syntax
// "" when the site names a parameter / layer of the model; else why not.
std::string check_site(const fault_site& s, const model_config& m);
// The format faults at the site see: bf16 for GEMM outputs (and the
// attention products and their gradients) under bf16 precision, E4M3 for
// MXFP8 codes, E8M0 for their block scales, else fp32.
const format& site_format(const fault_site& s, const model_config& m);
// The model an episode at the site trains: explicit_softmax set for a site inside the softmax.
model_config model_for_site(const fault_site& s, model_config m);

// Where an attention fault landed: the tensor's [B, H, T, X] coordinates
// (model.hpp, attention_point: col is the key position for scores,
// softmax_in, probs and their gradients, the head's feature for context and
// its gradient, 0 for row_max and row_sum) and the bits it changed.
struct attention_fault {
  int layer = -1;
  attention_point point = attention_point::scores;
  int64_t batch = -1, head = -1, row = -1, col = -1;
  uint64_t old_bits = 0, new_bits = 0;
};

// A libtorch tensor as a fault target (fp32 or bf16, contiguous), viewed 2-D.
class torch_target final : public fault_target {
 public:
  explicit torch_target(torch::Tensor t);
  const format& fmt() const override { return *fmt_; }
  int64_t rows() const override { return rows_; }
  int64_t cols() const override { return cols_; }
  uint64_t bits_at(int64_t i) const override;
  void set_bits(int64_t i, uint64_t bits) override;

 private:
  torch::Tensor t_;
  const format* fmt_;
  int64_t rows_, cols_;
};

// Applies a step's plan at its site, through the driver's step_injector.
class site_injector final : public step_observer, public gemm_hook {
 public:
  site_injector(const fault_site& s, const model_config& m, double gemm_q);
  void arm(step_injector* inj) { inj_ = inj; }
  void step_begins(int64_t step, int rank, replica& r) override;
  gemm_hook* gemm_hook_for(int64_t step, int rank) override;
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override;
  void grads_ready(int64_t step, int rank, replica& r) override;
  void reduced(int64_t step, int rank, torch::Tensor& bucket) override;
  void quantized(int linear, gemm_pass pass, int operand, block_tensor& q) override;
  // An mx site's faults so far, each naming its part and the elements whose
  // dequantized value it moved (injectors/block_target.hpp).
  const std::vector<block_injection_record>& block_records() const { return block_records_; }
  bool wants_attention(int layer, attention_point p) override;
  void at_attention(int layer, attention_point p, torch::Tensor& t) override;
  // Every attention fault the driver's injector recorded, in order (a replay records none).
  const std::vector<attention_fault>& attention_faults() const { return attention_faults_; }

 private:
  void apply(torch::Tensor t);
  void apply_to(const std::vector<torch::Tensor>& tensors);  // the named one, or all as one
  fault_site s_;
  int64_t param_ = -1, layer_ = -1;  // index of the named parameter / linear layer
  double q_;
  step_injector* inj_ = nullptr;
  std::vector<block_injection_record> block_records_;
  std::vector<attention_fault> attention_faults_;
};

}  // namespace sdc::train
