// The training model's numerics that make its bits CPU-independent
// (workloads/training/trainer/fixed_gemm.hpp, torch_numerics.hpp): its GEMMs against
// the fixed-order kernel's triple-loop twin, bit for bit, forward and
// backward, fp32 and bf16; libtorch's products as a loose cross-check; and the
// pin of ATen's capability and oneDNN read back from libtorch itself.
#include <gtest/gtest.h>

#include <ATen/CPUGeneratorImpl.h>

#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "workloads/training/trainer/fixed_gemm.hpp"
#include "workloads/training/trainer/torch_numerics.hpp"

namespace {

using namespace sdc::train;
using torch::Tensor;

// Batched C = A B by the twin, in fp32, over the leading dimensions.
Tensor twin(const Tensor& a, const Tensor& b) {
  const Tensor af = a.to(torch::kFloat).contiguous(), bf = b.to(torch::kFloat).contiguous();
  auto sizes = a.sizes().vec();
  sizes.back() = b.size(-1);
  Tensor c = torch::empty(sizes);
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1), batch = c.numel() / (m * n);
  for (int64_t i = 0; i < batch; ++i)
    sdc::gemm_reference(af.data_ptr<float>() + i * m * k, bf.data_ptr<float>() + i * k * n, c.data_ptr<float>() + i * m * n,
                        {m, n, k}, {});
  return c;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() && torch::equal(a, b);
}

TEST(TrainingGemm, FixedMmIsTheTwinBitForBitOnAnyStrides) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
  for (auto [m, k, n] : {std::tuple{1, 1, 1}, {13, 24, 7}, {96, 32, 128}, {5, 300, 3}}) {
    const Tensor a = torch::randn({m, k}, gen), bt = torch::randn({n, k}, gen);
    const Tensor c = fixed_mm(a, bt.t());  // a transposed view, as the linear layer passes W^T
    EXPECT_TRUE(same_bits(c, twin(a, bt.t()))) << m << "x" << k << "x" << n;
    EXPECT_TRUE(torch::allclose(c, torch::mm(a, bt.t()), 1e-5, 1e-5));  // libtorch's order, loosely
  }
  EXPECT_TRUE(same_bits(fixed_mm(torch::ones({2, 0}), torch::ones({0, 3})), torch::zeros({2, 3})));  // empty sum
  EXPECT_THROW(fixed_mm(torch::ones({2, 3}), torch::ones({4, 2})), std::invalid_argument);
  EXPECT_THROW(fixed_mm(torch::ones({2, 3}, torch::kDouble), torch::ones({3, 2}, torch::kDouble)), std::invalid_argument);
}

TEST(TrainingGemm, FixedBmmIsTheTwinPerBatchAndChecksItsShapes) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(6);
  const Tensor a = torch::randn({2, 3, 5, 6}, gen), b = torch::randn({2, 3, 4, 6}, gen).transpose(-2, -1);
  EXPECT_TRUE(same_bits(fixed_bmm(a, b), twin(a, b)));
  EXPECT_THROW(fixed_bmm(a, torch::randn({3, 2, 6, 4})), std::invalid_argument);
  EXPECT_THROW(fixed_bmm(a, torch::randn({2, 3, 5, 4})), std::invalid_argument);
}

// The attention products' autograd: dA = dC B^T and dB = A^T dC on the same
// kernel; under bf16, products of the bf16 operands in fp32, the output
// rounded once to bf16 and the gradients arriving as bf16 (the casts' own).
TEST(TrainingGemm, MixedMatmulForwardAndBackwardAreTheTwin) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(7);
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    const Tensor a = torch::randn({2, 2, 9, 8}, gen).to(dtype).set_requires_grad(true);
    const Tensor b = torch::randn({2, 2, 8, 9}, gen).to(dtype).set_requires_grad(true);
    const Tensor g = torch::randn({2, 2, 9, 9}, gen).to(dtype);
    const Tensor c = mixed_matmul(a, b);
    c.backward(g);
    EXPECT_TRUE(same_bits(c, twin(a.detach(), b.detach()).to(dtype))) << dtype;
    EXPECT_TRUE(same_bits(a.grad(), twin(g, b.detach().transpose(-2, -1)).to(dtype))) << dtype;
    EXPECT_TRUE(same_bits(b.grad(), twin(a.detach().transpose(-2, -1), g).to(dtype))) << dtype;
    if (dtype == torch::kFloat) {
      EXPECT_TRUE(torch::allclose(c, torch::matmul(a, b), 1e-5, 1e-5));
    }
  }
}

// Read back from libtorch: the capability its kernels run at (show_config)
// and oneDNN's switch; the pin holds on every CPU with AVX2 and FMA.
TEST(TrainingNumerics, AtenRunsThePinnedCapabilityWithOneDnnOff) {
  (void)torch::ones({4}).sum();  // ATen has chosen its kernels
  const auto n = torch_numerics();
  EXPECT_FALSE(n["libtorch_onednn"].get<bool>());
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_EQ(n["aten_cpu_capability"], "AVX2");
    EXPECT_TRUE(n["aten_capability_pinned"].get<bool>());
  } else {
    EXPECT_FALSE(n["aten_capability_pinned"].get<bool>());
  }
}

}  // namespace
