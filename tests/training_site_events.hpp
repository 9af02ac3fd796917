// What the training-site tests share (test_training_sites.cpp,
// test_fault_lifetime.cpp): an injector that applies a plan as the trial
// driver does and records what it did, and an observer that records every
// event of a step (a rank's weights and moments as its step begins, every GEMM
// output, every attention point, its gradients before the all-reduce, its copy of the reduced
// bucket), with the site under test applied first; and the small job they run.
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

#include "injectors/inject.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "workloads/training/training_sites.hpp"

namespace sdc::testing {

using namespace sdc::train;

struct event {
  std::string what;
  int64_t step;
  int rank;
  torch::Tensor value;
};

// A fault spec as a suite would give it: MODEL (e.g. "bitflip") with the bit
// choice BIT resolved for the site's format F, elements chosen by RULE.
inline fault_spec spec_for(const std::string& model_text, const std::string& bit, const format& f, site_rule rule = {}) {
  std::string why, axis;
  const auto model = parse_fault_model(model_text);
  return {model, *resolve_fault_bits(model, parse_bit_choice(bit), f, &why, &axis), rule};
}

// Applies the plan like the trial driver does, recording what it did.
struct test_injector final : step_injector {
  fault_plan plan;
  int64_t step = -1, fire_at = 0;
  rng g{7};
  std::vector<injection_record> done;
  std::vector<size_t> per_apply;  // records each apply() made
  bool fires(int rank) const override { return step == fire_at && rank == plan.rank; }
  bool apply(fault_target& t) override {
    auto r = plan.spec.site.multi() ? inject_pattern(t, plan.spec, g)
                                                           : std::vector<injection_record>{inject(t, plan.spec, g)};
    for (const auto& x : r)
      if (!x.applied) return false;
    done.insert(done.end(), r.begin(), r.end());
    per_apply.push_back(r.size());
    return true;
  }
  double uniform01() override { return 0.0; }  // q > 0: every GEMM of the faulty rank is hit
  const std::vector<injection_record>& records() const override { return done; }
};

// The site first, then a copy of the tensor as the site left it.
struct recorder final : step_observer, gemm_hook {
  site_injector* site = nullptr;
  std::vector<event> events;
  int64_t step = 0;
  int rank = 0;
  void step_begins(int64_t s, int r, replica& rep) override {
    if (site) site->step_begins(s, r, rep);
    step = s, rank = r;
    for (size_t i = 0; i < rep.params.tensors.size(); ++i) {
      events.push_back({"weight:" + rep.params.names[i], s, r, rep.params.tensors[i].detach().clone()});
      events.push_back({"adam_m:" + rep.params.names[i], s, r, rep.exp_avg[i].clone()});
      events.push_back({"adam_v:" + rep.params.names[i], s, r, rep.exp_avg_sq[i].clone()});
    }
  }
  gemm_hook* gemm_hook_for(int64_t, int) override { return this; }
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    if (site && site->gemm_hook_for(step, rank)) site->after_gemm(linear, pass, a, b, out);
    events.push_back({fmt::format("gemm {} {}", linear, gemm_pass_name(pass)), step, rank, out.detach().clone()});
  }
  // Precision mxfp8: each quantized operand, its values, codes and scales.
  void quantized(int linear, gemm_pass pass, int operand, block_tensor& q) override {
    if (site && site->gemm_hook_for(step, rank)) site->quantized(linear, pass, operand, q);
    const std::string what = fmt::format("quant {} {} {}", linear, gemm_pass_name(pass), operand);
    std::vector<float> v = dequantize(q);
    events.push_back({what, step, rank, torch::from_blob(v.data(), {q.rows, q.cols}, torch::kFloat).clone()});
    events.push_back({what + " code", step, rank, torch::from_blob(q.codes.data(), {int64_t(q.codes.size())}, torch::kByte).clone()});
    events.push_back({what + " block_scale", step, rank, torch::from_blob(q.scales.data(), {int64_t(q.scales.size())}, torch::kByte).clone()});
  }
  // Every attention point (forward and backward) is an event.
  bool wants_attention(int, attention_point) override { return true; }
  void at_attention(int layer, attention_point p, torch::Tensor& t) override {
    if (site && site->gemm_hook_for(step, rank)) site->at_attention(layer, p, t);
    events.push_back({fmt::format("attn {} {}", layer, attention_point_name(p)), step, rank, t.detach().clone()});
  }
  void grads_ready(int64_t s, int r, replica& rep) override {
    if (site) site->grads_ready(s, r, rep);
    for (size_t i = 0; i < rep.params.tensors.size(); ++i)
      events.push_back({"grad:" + rep.params.names[i], s, r, rep.params.tensors[i].grad().clone()});
  }
  void reduced(int64_t s, int r, torch::Tensor& b) override {
    if (site) site->reduced(s, r, b);
    events.push_back({"bucket", s, r, b.clone()});
  }
};

inline train_config config(bool bf16, bool mxfp8 = false) {
  train_config c;
  c.model.layers = 2, c.model.width = 16, c.model.heads = 2, c.model.seq = 64, c.model.bf16 = bf16 || mxfp8;
  c.model.mxfp8 = mxfp8;
  c.dp.ranks = 3, c.dp.micro_batch = 2;
  c.examples = 60, c.eval_examples = 4, c.steps = 3, c.optim.total = 3, c.optim.warmup = 1;
  return c;
}

}  // namespace sdc::testing
