// MXFP8 linear GEMMs (model precision `mxfp8`), as NVIDIA TransformerEngine's
// MXFP8BlockScaling recipe runs a Linear (transformer_engine/common/recipe,
// MXFP8BlockScaling(fp8_format=Format.E4M3): E4M3 for every operand, forward
// and backward; docs/features/low_precision_training/mxfp8): each GEMM's two
// operands are quantized from their bf16 values in blocks of 32 along the
// GEMM's reduction dimension, with an E8M0 scale per block, and the product
// is accumulated in fp32 and written in bf16. Blocks along K mean a tensor
// read by two GEMMs along different dimensions is quantized twice from its
// high-precision values (TE: "both versions are computed from the high
// precision input to avoid double quantization errors"): the weight along
// its rows for the forward GEMM (y = x w^T) and down its columns for the
// input gradient (dx = dy w); x and dy along tokens for the weight gradient
// (dw = dy^T x). The scale is TE's float_to_e8m0(amax / 448), rounded up
// (cvt.rp.satfinite.ue8m0x2.f32), the elements rounded to nearest even and
// saturated (cvt.rn.satfinite.e4m3x2.f32) -- foundation/formats/CONFORMANCE.md,
// mx_scale_rule::rceil. Variant `mxfp8_recipe: microxcaling`: microxcaling's
// floor scale and ties-away rounding (the MX formats' emulation). Not
// modelled: TE's HYBRID format (E5M2 gradients), which MXFP8BlockScaling
// does not default to; caching the weight's quantization across micro-batches
// (here every GEMM quantizes its operands: the same codes).
// The product: foundation/kernels/block_gemm's (per output and K-block the
// exact sum of code products times both scales, rounded once to fp32, blocks
// added in fp32 in order), by block_gemm_double (the same bits, faster).
#pragma once
#include <torch/torch.h>

#include "foundation/formats/block_scaled.hpp"
#include "workloads/training/trainer/model.hpp"

namespace sdc::train {

struct mx_recipe {
  const block_format* fmt = nullptr;  // mxfp8_e4m3
  quantize_options opt;
};
// The recipe a model configuration names (TE's by default); static, so the
// backward pass may keep a pointer to it.
const mx_recipe& mx_recipe_of(const model_config& m);

// The operands of an MXFP8 GEMM as it read them: A [m, k] blocked along its
// rows, B [k, n] down its columns (block_gemm's layout), after the hook's
// quantized() (where a fault in a code or scale lands), and their fp32 values.
struct mx_operands {
  block_tensor a, b;
  torch::Tensor a_values, b_values;  // dequantized, fp32 [m, k] and [k, n]; only when asked
};

// out = A B in MXFP8: a [m, k] and b [k, n] (fp32 or bf16, any strides)
// quantized along k, shown to hook->quantized(linear, pass, 0 / 1, ...) when
// hook is not null, multiplied by block_gemm_double; out in a's dtype (bf16
// under mixed precision). `read`, when not null, gets the operands as the GEMM read them.
torch::Tensor mx_mm(const torch::Tensor& a, const torch::Tensor& b, const mx_recipe& r, int linear, gemm_pass pass,
                    gemm_hook* hook, mx_operands* read);

}  // namespace sdc::train
