#include "workloads/training/gemm_guards.hpp"

#include <cstring>

#include "foundation/timing.hpp"

namespace sdc::train {
namespace {

sdc::gemm_call call_of(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, bool bf16) {
  sdc::gemm_call g;
  g.linear = linear, g.pass = int(pass), g.bf16 = bf16;
  g.m = a.size(0), g.k = a.size(1), g.n = b.size(1);
  return g;
}

}  // namespace

void rank_guards::add_work(std::vector<double>& by_slot, double& total) const {
  if (armed_.empty()) return;
  total += shared_;
  for (const auto& kv : armed_) {
    const auto it = own_.find(kv.first);
    const double own = it == own_.end() ? 0.0 : it->second;
    if (kv.first < by_slot.size()) by_slot[kv.first] += shared_ + own;
    total += own;
  }
}

bool rank_guards::run_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) {
  producer_ = nullptr;
  if (armed_.empty() || a.scalar_type() != torch::kFloat || b.scalar_type() != torch::kFloat) return false;
  a_ = a.contiguous(), b_ = b.contiguous();
  sdc::gemm_call g = call_of(linear, pass, a_, b_, false);
  g.a = a_.data_ptr<float>(), g.b = b_.data_ptr<float>();
  out = torch::empty({g.m, g.n}, a.options().requires_grad(false));
  if (g.m * g.n == 0 || g.k == 0) return false;  // mixed_mm's own zeros
  const auto& [slot, first] = *armed_.begin();
  const auto t0 = clock_type::now();
  first->prepare(g);
  own_[slot] += seconds_since(t0);
  if (!first->product(g, out.data_ptr<float>())) return false;
  producer_ = first;
  return true;
}

void rank_guards::before_fault(const torch::Tensor& out, bool fault_may_land) {
  const auto t0 = clock_type::now();
  before_ = producer_ && fault_may_land ? out.clone() : torch::Tensor();
  shared_ += seconds_since(t0);
}

void rank_guards::stored(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out) {
  if (armed_.empty()) return;
  auto t0 = clock_type::now();
  const bool bf16 = out.scalar_type() == torch::kBFloat16;
  // The operands and output as fp32 row-major copies (as a gemm_record holds
  // them), except the product's own operands and output, already so.
  const bool own = producer_ != nullptr;
  const torch::Tensor af = own ? a_ : a.detach().to(torch::kFloat).contiguous();
  const torch::Tensor bf = own ? b_ : b.detach().to(torch::kFloat).contiguous();
  const torch::Tensor cf = out.detach().to(torch::kFloat).contiguous();
  sdc::gemm_call g = call_of(linear, pass, af, bf, bf16);
  g.a = af.data_ptr<float>(), g.b = bf.data_ptr<float>();
  const bool changed = own && before_.defined() &&
                       std::memcmp(before_.data_ptr<float>(), cf.data_ptr<float>(), size_t(g.m * g.n) * sizeof(float)) != 0;
  shared_ += seconds_since(t0);
  for (const auto& [slot, guard] : armed_) {
    t0 = clock_type::now();
    guard->stored(g, cf.data_ptr<float>(), guard == producer_ && changed);
    own_[slot] += seconds_since(t0);
  }
  producer_ = nullptr, a_ = b_ = before_ = torch::Tensor();
}

}  // namespace sdc::train
