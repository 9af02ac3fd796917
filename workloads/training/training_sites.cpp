#include "workloads/training/training_sites.hpp"

#include <bit>
#include <fmt/format.h>

#include "foundation/errors.hpp"

namespace sdc::train {
namespace {

struct site_name {
  const char* prefix;
  fault_site::kind k;
};
constexpr site_name k_sites[] = {{"weight:", fault_site::kind::weight}, {"adam_m:", fault_site::kind::adam_m},
                                 {"adam_v:", fault_site::kind::adam_v}, {"grad:", fault_site::kind::grad},
                                 {"act:", fault_site::kind::act},       {"actgrad:", fault_site::kind::actgrad},
                                 {"gemm:", fault_site::kind::gemm},     {"wcode:", fault_site::kind::wcode},
                                 {"wscale:", fault_site::kind::wscale}, {"xcode:", fault_site::kind::xcode},
                                 {"xscale:", fault_site::kind::xscale}};

bool mx_scale_site(const fault_site& s) { return s.k == fault_site::kind::wscale || s.k == fault_site::kind::xscale; }
constexpr attention_point k_attention_points[] = {
    attention_point::scores,      attention_point::softmax_in, attention_point::row_max,
    attention_point::row_sum,     attention_point::probs,      attention_point::context,
    attention_point::scores_grad, attention_point::probs_grad, attention_point::context_grad};
std::string attention_prefix(attention_point p) { return fmt::format("attn_{}:", attention_point_name(p)); }

// L of "blocks.L", or -1.
int block_of(const std::string& name) {
  const std::string p = "blocks.";
  if (name.rfind(p, 0) != 0 || name.size() == p.size() || name.size() > p.size() + 4) return -1;
  if (name[p.size()] == '0' && name.size() > p.size() + 1) return -1;  // one spelling per block
  int l = 0;
  for (size_t i = p.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    l = l * 10 + (name[i] - '0');
  }
  return l;
}

}  // namespace

std::string fault_site::text() const {
  if (k == kind::bucket) return "bucket";
  if (k == kind::attention) return attention_prefix(point) + name;
  for (const auto& s : k_sites)
    if (s.k == k) return s.prefix + name;
  return "?";
}

fault_site parse_fault_site(const std::string& text) {
  fault_site s;
  if (text == "bucket") {
    s.k = fault_site::kind::bucket;
    return s;
  }
  for (const auto point : k_attention_points) {
    const std::string p = attention_prefix(point);
    if (text.rfind(p, 0) == 0 && text.size() > p.size()) {
      s.k = fault_site::kind::attention, s.point = point, s.name = text.substr(p.size());
      return s;
    }
  }
  for (const auto& n : k_sites) {
    const std::string p = n.prefix;
    if (text.rfind(p, 0) == 0 && text.size() > p.size()) {
      s.k = n.k, s.name = text.substr(p.size());
      return s;
    }
  }
  throw value_error("expected weight:PARAM, adam_m:PARAM, adam_v:PARAM, grad:PARAM (PARAM = all: every parameter as one), "
                    "bucket, act:LAYER, actgrad:LAYER, gemm:LAYER, gemm:all, attn_POINT:blocks.L (POINT = scores, softmax_in, "
                    "row_max, row_sum, probs, context, scores_grad, probs_grad or context_grad), or (precision mxfp8) "
                    "wcode:LAYER, wscale:LAYER, xcode:LAYER, xscale:LAYER; got '" + text + "'");
}

std::string check_site(const fault_site& s, const model_config& m) {
  if (s.mx() && !m.mxfp8) return s.text() + " is in an MXFP8 GEMM's operand: only with model precision mxfp8";
  if (s.mx() && s.name == "all") return s.text() + ": expected a linear layer's name (all is gemm:'s only)";
  if (s.k == fault_site::kind::attention) {
    const int l = block_of(s.name);
    if (l >= 0 && l < m.layers) return "";
    return fmt::format("{} names no block of the model (expected blocks.L, L from 0 to {})", s.text(), m.layers - 1);
  }
  if (s.k == fault_site::kind::bucket || s.name == "all") return "";
  if (s.in_gemm()) {
    const auto names = linear_names(m);
    if (std::find(names.begin(), names.end(), s.name) != names.end()) return "";
    return fmt::format("{} names no linear layer of the model (layers: {})", s.text(), fmt::join(names, ", "));
  }
  auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
  const param_set p = init_params(m, gen);
  if (p.index_of(s.name) >= 0) return "";
  return fmt::format("{} names no parameter of the model (parameters: {})", s.text(), fmt::join(p.names, ", "));
}

const format& site_format(const fault_site& s, const model_config& m) {
  if (s.mx()) return mx_scale_site(s) ? e8m0() : element_format(elem_type::fp8_e4m3);
  if (s.k != fault_site::kind::attention) return s.in_gemm() && m.bf16 ? bf16() : fp32();
  switch (s.point) {  // the attention products and their gradients are in the GEMMs' format
    case attention_point::scores:
    case attention_point::context:
    case attention_point::scores_grad:
    case attention_point::context_grad: return m.bf16 ? bf16() : fp32();
    default: return fp32();
  }
}

model_config model_for_site(const fault_site& s, model_config m) {
  m.explicit_softmax = s.in_softmax();
  return m;
}

torch_target::torch_target(torch::Tensor t) : t_(std::move(t)) {
  if (!t_.is_contiguous()) throw std::logic_error("torch_target: the site's tensor is not contiguous");
  if (t_.scalar_type() == torch::kFloat) fmt_ = &fp32();
  else if (t_.scalar_type() == torch::kBFloat16) fmt_ = &bf16();
  else throw std::logic_error("torch_target: fp32 or bf16 tensors only");
  cols_ = t_.dim() == 0 ? 1 : t_.size(-1);
  rows_ = cols_ == 0 ? 0 : t_.numel() / cols_;
}

uint64_t torch_target::bits_at(int64_t i) const {
  if (fmt_ == &fp32()) return std::bit_cast<uint32_t>(t_.data_ptr<float>()[i]);
  return t_.data_ptr<at::BFloat16>()[i].x;
}

void torch_target::set_bits(int64_t i, uint64_t b) {
  if (fmt_ == &fp32()) t_.data_ptr<float>()[i] = std::bit_cast<float>(uint32_t(b));
  else t_.data_ptr<at::BFloat16>()[i].x = uint16_t(b);
}

site_injector::site_injector(const fault_site& s, const model_config& m, double gemm_q) : s_(s), q_(gemm_q) {
  if (s.in_gemm()) {
    const auto names = linear_names(m);
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == s.name) layer_ = int64_t(i);
  } else if (s.k == fault_site::kind::attention) {
    layer_ = block_of(s.name);
  } else if (s.k != fault_site::kind::bucket) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(0);
    param_ = init_params(m, gen).index_of(s.name);
  }
}

void site_injector::apply(torch::Tensor t) {
  torch::NoGradGuard ng;
  torch_target target(std::move(t));
  inj_->apply(target);
}

void site_injector::apply_to(const std::vector<torch::Tensor>& tensors) {
  if (param_ >= 0) return apply(tensors[size_t(param_)]);
  // NAME = all: every tensor as one vector, the element drawn over all of them.
  torch::NoGradGuard ng;
  std::vector<tensor_view> views;
  for (const auto& t : tensors) views.push_back({&fp32(), t.data_ptr<float>(), 1, t.numel()});
  tensor_list_target target(std::move(views));
  inj_->apply(target);
}

void site_injector::step_begins(int64_t, int rank, replica& r) {
  if (!inj_ || !inj_->fires(rank)) return;
  if (s_.k == fault_site::kind::weight) apply_to(r.params.tensors);
  if (s_.k == fault_site::kind::adam_m) apply_to(r.exp_avg);
  if (s_.k == fault_site::kind::adam_v) apply_to(r.exp_avg_sq);
}

gemm_hook* site_injector::gemm_hook_for(int64_t, int rank) {
  return inj_ && (s_.in_gemm() || s_.k == fault_site::kind::attention) && inj_->fires(rank) ? this : nullptr;
}

void site_injector::after_gemm(int linear, gemm_pass pass, const torch::Tensor&, const torch::Tensor&, torch::Tensor& out) {
  const bool layer = layer_ < 0 || linear == layer_;  // layer_ < 0: gemm:all
  if (!layer || s_.k == fault_site::kind::attention) return;
  if (s_.k == fault_site::kind::act && pass == gemm_pass::forward) apply(out);
  if (s_.k == fault_site::kind::actgrad && pass == gemm_pass::grad_input) apply(out);
  if (s_.k == fault_site::kind::gemm && inj_->uniform01() < q_) apply(out);
}

// The forward GEMM's operand of the site (0: x, the activation; 1: w^T, the
// weight), its codes or block scales; records what moved.
void site_injector::quantized(int linear, gemm_pass pass, int operand, block_tensor& q) {
  if (!inj_ || !s_.mx() || linear != layer_ || pass != gemm_pass::forward) return;
  const bool weight = s_.k == fault_site::kind::wcode || s_.k == fault_site::kind::wscale;
  if (operand != (weight ? 1 : 0)) return;
  const block_part part = mx_scale_site(s_) ? block_part::block_scale : block_part::code;
  const std::vector<float> before = dequantize(q);
  const size_t first = inj_->records().size();
  block_part_target target(q, part);
  inj_->apply(target);
  for (size_t r = first; r < inj_->records().size(); ++r) {
    block_injection_record b;
    b.part = part, b.fault = inj_->records()[r];
    for (int64_t e : block_part_reach(q, part, b.fault.index)) {
      const float now = dequantize_at(q, e);
      if (std::bit_cast<uint32_t>(now) == std::bit_cast<uint32_t>(before[size_t(e)])) continue;
      b.moved.push_back(e), b.old_values.push_back(before[size_t(e)]), b.new_values.push_back(now);
    }
    block_records_.push_back(std::move(b));
  }
}

void site_injector::grads_ready(int64_t, int rank, replica& r) {
  if (!inj_ || s_.k != fault_site::kind::grad || !inj_->fires(rank)) return;
  std::vector<torch::Tensor> grads;
  for (auto& t : r.params.tensors) grads.push_back(t.mutable_grad());
  apply_to(grads);
}

void site_injector::reduced(int64_t, int rank, torch::Tensor& bucket) {
  if (inj_ && s_.k == fault_site::kind::bucket && inj_->fires(rank)) apply(bucket);
}

bool site_injector::wants_attention(int layer, attention_point p) {
  return inj_ && s_.k == fault_site::kind::attention && layer == layer_ && p == s_.point;
}

void site_injector::at_attention(int layer, attention_point p, torch::Tensor& t) {
  if (!wants_attention(layer, p)) return;
  const size_t before = inj_->records().size();
  apply(t);
  // The element's [B, H, T, X] coordinates from its row-major index.
  const auto& recs = inj_->records();
  const int64_t X = t.size(3), T = t.size(2), H = t.size(1);
  for (size_t i = before; i < recs.size(); ++i) {
    const int64_t at = recs[i].index;
    attention_faults_.push_back({layer, p, at / (X * T * H), at / (X * T) % H, at / X % T, at % X, recs[i].old_bits, recs[i].new_bits});
  }
}

}  // namespace sdc::train
