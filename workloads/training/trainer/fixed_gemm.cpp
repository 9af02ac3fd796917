#include "workloads/training/trainer/fixed_gemm.hpp"

#include <stdexcept>

#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc::train {
namespace {

using torch::Tensor;

void require_f32(const Tensor& t, const char* what) {
  if (t.scalar_type() != torch::kFloat) throw std::invalid_argument(std::string("fixed_gemm: ") + what + " must be fp32");
}

// t as contiguous fp32 in one pass (a bf16 operand read transposed is
// converted and laid out at once, not converted and then copied); t itself
// when it already is.
Tensor dense_f32(const Tensor& t) {
  return t.to(t.options().dtype(torch::kFloat), false, false, torch::MemoryFormat::Contiguous);
}

// One product on contiguous fp32 storage, in the sequential order.
void product(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
    return;
  }
  gemm_fixed_order(a, b, c, gemm_shape{m, n, k}, accumulation_order{});
}

struct matmul_fn : torch::autograd::Function<matmul_fn> {
  static Tensor forward(torch::autograd::AutogradContext* ctx, Tensor a, Tensor b) {
    ctx->save_for_backward({a, b});
    return fixed_bmm(a, b);
  }
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list g) {
    const auto s = ctx->get_saved_variables();
    const Tensor& a = s[0];
    const Tensor& b = s[1];
    return {fixed_bmm(g[0], b.transpose(-2, -1)), fixed_bmm(a.transpose(-2, -1), g[0])};
  }
};

}  // namespace

Tensor fixed_mm(const Tensor& a, const Tensor& b) {
  require_f32(a, "A"), require_f32(b, "B");
  if (a.dim() != 2 || b.dim() != 2 || a.size(1) != b.size(0))
    throw std::invalid_argument("fixed_mm: expected 2-D A [m, k] and B [k, n]");
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  Tensor c = torch::empty({a.size(0), b.size(1)}, a.options().requires_grad(false));
  product(ac.data_ptr<float>(), bc.data_ptr<float>(), c.data_ptr<float>(), a.size(0), b.size(1), a.size(1));
  return c;
}

Tensor fixed_bmm(const Tensor& a, const Tensor& b) {
  require_f32(a, "A"), require_f32(b, "B");
  if (a.dim() < 3 || a.dim() != b.dim() || a.sizes().slice(0, a.dim() - 2) != b.sizes().slice(0, b.dim() - 2) ||
      a.size(-1) != b.size(-2))
    throw std::invalid_argument("fixed_bmm: expected A [..., m, k] and B [..., k, n] with the same batch dimensions");
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  auto sizes = a.sizes().vec();
  sizes.back() = n;
  Tensor c = torch::empty(sizes, a.options().requires_grad(false));
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < a.dim(); ++d) batch *= a.size(d);
  for (int64_t i = 0; i < batch; ++i)
    product(ac.data_ptr<float>() + i * m * k, bc.data_ptr<float>() + i * k * n, c.data_ptr<float>() + i * m * n, m, n, k);
  return c;
}

Tensor mixed_mm(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != torch::kBFloat16) return fixed_mm(a, b);
  return fixed_mm(dense_f32(a), dense_f32(b)).to(torch::kBFloat16);
}

Tensor mixed_matmul(const Tensor& a, const Tensor& b) {
  if (a.scalar_type() != torch::kBFloat16) return matmul_fn::apply(a, b);
  return matmul_fn::apply(dense_f32(a), dense_f32(b)).to(torch::kBFloat16);
}

}  // namespace sdc::train
