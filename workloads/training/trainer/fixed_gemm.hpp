// The training model's GEMMs on sdcbench's fixed-order kernel
// (foundation/kernels/gemm/gemm_kernels.hpp: acc = fma(a_k, b_k, acc) for k = 0..K-1 per
// output element, the same bits at every SIMD level), so a training episode
// gives the same bits on every x86-64 CPU. libtorch's own products do not:
// torch::mm calls OpenBLAS, whose kernel (and so its k-blocking) is chosen by
// the CPU model (measured on an AMD EPYC with AVX-512: the SkylakeX, Haswell
// and Sandybridge kernels give three different pretrained checkpoints), and
// bf16 products go to oneDNN only on AVX-512 CPUs. METHODOLOGY.md, "Same bits
// on every CPU".
#pragma once
#include <torch/torch.h>

namespace sdc::train {

// C = A B for 2-D fp32 tensors (any strides: made contiguous first); no autograd.
torch::Tensor fixed_mm(const torch::Tensor& a, const torch::Tensor& b);

// C = A B over matching leading (batch) dimensions, 3-D or more, fp32; no autograd.
torch::Tensor fixed_bmm(const torch::Tensor& a, const torch::Tensor& b);

// Mixed precision as the model runs it: a bf16 product is the fp32 product of
// the bf16 operands (exact in fp32), accumulated in fp32 and rounded once to
// bf16; fp32 operands stay fp32. No autograd (the linear layer's custom
// function calls it for its three GEMMs).
torch::Tensor mixed_mm(const torch::Tensor& a, const torch::Tensor& b);

// The attention products: mixed-precision batched matmul with autograd, its
// backward (dA = dC B^T, dB = A^T dC, in fp32) on the same kernel.
torch::Tensor mixed_matmul(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace sdc::train
