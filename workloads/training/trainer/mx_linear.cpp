#include "workloads/training/trainer/mx_linear.hpp"

#include <stdexcept>

#include "foundation/kernels/block_gemm/block_gemm.hpp"

namespace sdc::train {
namespace {

using torch::Tensor;

// t as contiguous fp32 values (bf16 converts exactly).
std::vector<float> mx_rows_of(const Tensor& t) {
  const Tensor c = t.detach().to(torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

Tensor mx_values_of(const block_tensor& q) {
  std::vector<float> v = dequantize(q);
  return torch::from_blob(v.data(), {q.rows, q.cols}, torch::kFloat).clone();
}

}  // namespace

const mx_recipe& mx_recipe_of(const model_config& m) {
  static const mx_recipe te{&block_format_by_name("mxfp8_e4m3"), {block_rounding::even, mx_scale_rule::rceil}};  // TE's cvt.rn / cvt.rp
  static const mx_recipe microxcaling{&block_format_by_name("mxfp8_e4m3"), {block_rounding::ties_away, mx_scale_rule::floor}};
  return m.mx_microxcaling ? microxcaling : te;
}

Tensor mx_mm(const Tensor& a, const Tensor& b, const mx_recipe& r, int linear, gemm_pass pass, gemm_hook* hook,
             mx_operands* read) {
  if (a.dim() != 2 || b.dim() != 2 || a.size(1) != b.size(0)) throw std::invalid_argument("mx_mm: expected 2-D A [m, k] and B [k, n]");
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  mx_operands local;
  mx_operands& q = read ? *read : local;
  q.a = quantize(mx_rows_of(a), m, k, 1, *r.fmt, r.opt);
  q.b = quantize(mx_rows_of(b), k, n, 0, *r.fmt, r.opt);
  if (hook) hook->quantized(linear, pass, 0, q.a), hook->quantized(linear, pass, 1, q.b);
  Tensor out = torch::empty({m, n}, torch::kFloat);
  if (m > 0 && n > 0) {
    if (k == 0) out.zero_();
    else block_gemm_double(q.a, q.b, out.data_ptr<float>());
  }
  if (read) q.a_values = mx_values_of(q.a), q.b_values = mx_values_of(q.b);
  return out.to(a.scalar_type());
}

}  // namespace sdc::train
