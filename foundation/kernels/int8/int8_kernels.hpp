// Quantized kernels of 004_0d1fcb03aeacfeeb.txt (DLRM inference).
//
// int8 GEMM: C (int32, m x n, leading dimension ldc) = A (u8, m x k) x B (s8,
//   k x n, leading dimension ldb), the integer product C_temp of Figure 1; the
//   requantization that follows stays outside (section IV-B).
//   gemm_u8s8s32:           the kernel the workload runs: oneDNN where it is
//                           exact, else the widened kernel.
//   gemm_u8s8s32_onednn:    oneDNN's dnnl_gemm_u8s8s32, one thread. Exact only
//                           with VNNI (vpdpbusd): without it oneDNN sums pairs
//                           of u8 x s8 products in saturating int16
//                           (vpmaddubsw; oneDNN's "Nuances of int8
//                           computations"), so 255 x -128 twice is -32768.
//   gemm_u8s8s32_widened:   ours, B widened to int16 pairs and summed with
//                           vpmaddwd into int32 (exact), run at the SIMD level
//                           chosen at run time; slower than oneDNN's VNNI kernel.
//   gemm_u8s8s32_reference: the plain triple loop, the test twin (int64 sums).
//   Integer arithmetic is exact, so every exact kernel agrees bit for bit.
//
// EmbeddingBag (torch.nn.EmbeddingBag, mode "sum", with per_sample_weights for
//   weighted sum): row-wise quantized table, each row d codes (u8, or u4 packed
//   two per byte, low nibble first) with an fp32 scale alpha and bias beta, the
//   layout of PyTorch's embedding_bag_byte/4bit_rowwise_offsets (FBGEMM's fused
//   rowwise format with scale and bias kept beside the codes). Bag b pools
//   indices[offsets[b] .. offsets[b+1]) (the last bag ends at indices.size()):
//     R_b[j] = sum_i w_i (alpha_i q_ij + beta_i)
//   computed in fp32 in index order as  acc_j = fma(w_i alpha_i, q_ij, acc_j + w_i beta_i)
//   (w_i = 1 without weights, so w_i alpha_i and w_i beta_i are exact).
//   embedding_bag_fast: vectorized dequantize-and-add with prefetch of the
//     rows `prefetch` indices ahead (0: none).
// The vectorized kernels (row_sum_i32, requantize_u8, embedding_bag_fast) run
// the SIMD level chosen at run time (foundation/simd/simd_level.hpp: AVX-512
// intrinsics, else plain loops compiled for AVX2 or the x86-64 baseline);
// the _at versions run one given level (the tests run each level the CPU has).
//   embedding_bag_reference: the same arithmetic, one element at a time; equal bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                  int32_t* C, int64_t ldc);
// True where oneDNN's int8 ISA has VNNI, so gemm_u8s8s32_onednn is exact.
bool onednn_int8_exact();
// "oneDNN u8s8s32, avx512_core_vnni" or "sdcbench widened u8s8s32, avx2 (...)".
std::string int8_gemm_kernel_name();
void gemm_u8s8s32_widened(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                          int32_t* C, int64_t ldc);
void gemm_u8s8s32_widened_at(simd_level l, int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                             const int8_t* B, int64_t ldb, int32_t* C, int64_t ldc);
void gemm_u8s8s32_onednn(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                         int32_t* C, int64_t ldc);
void gemm_u8s8s32_reference(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B,
                            int64_t ldb, int32_t* C, int64_t ldc);
// sum_j c[j] in int64 (no int32 wrap): the row sums the int8 ABFT checks.
// row_sum_i32: AVX-512 (16 lanes widened to int64); row_sum_i32_reference: the plain loop. Equal (integers).
int64_t row_sum_i32(const int32_t* c, int64_t n);
int64_t row_sum_i32_at(simd_level l, const int32_t* c, int64_t n);
int64_t row_sum_i32_reference(const int32_t* c, int64_t n);

// Requantization of C_temp (004 Figure 1), symmetric (zero points of A and B
// are 0): out[i][j] = clamp(round(float(C[i][j]) * multiplier) + zero_point, 0, 255)
// (round half to even). With row_sums non-null it also returns each row's
// int64 sum of C: the ABFT row check fused into the pass that reads C anyway,
// as FBGEMM's output pipeline does. requantize_u8 is AVX-512; requantize_u8_reference
// is the plain loop; equal bit for bit.
void requantize_u8(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                   uint8_t* out, int64_t* row_sums);
void requantize_u8_at(simd_level l, const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier,
                      int32_t zero_point, uint8_t* out, int64_t* row_sums);
void requantize_u8_reference(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                             uint8_t* out, int64_t* row_sums);

// "avx512_core_vnni", ... : the instruction set oneDNN dispatches to here.
const char* onednn_isa_name();

// Rows in the fused layout of FBGEMM / PyTorch: the codes, then alpha and beta
// (fp32), then, in a table encoded for ABFT (004 Algorithm 2), the row's code
// sum C_T[i] (int32), so one row's lookup touches one contiguous span.
struct quantized_table {
  int64_t rows = 0, dim = 0;
  int bits = 8;                 // 8: one u8 code per byte; 4: two u4 codes per byte, low nibble first
  bool with_row_sums = false;   // C_T[i] stored after beta
  std::vector<uint8_t> data;    // rows x stride()

  int64_t code_bytes() const { return bits == 8 ? dim : (dim + 1) / 2; }
  int64_t stride() const { return code_bytes() + 8 + (with_row_sums ? 4 : 0); }
  const uint8_t* row(int64_t i) const { return data.data() + i * stride(); }
  uint8_t* row(int64_t i) { return data.data() + i * stride(); }
  int code(int64_t i, int64_t j) const {
    const uint8_t* r = row(i);
    return bits == 8 ? r[j] : (j & 1 ? r[j / 2] >> 4 : r[j / 2] & 15);
  }
  float alpha(int64_t i) const { return load<float>(row(i) + code_bytes()); }
  float beta(int64_t i) const { return load<float>(row(i) + code_bytes() + 4); }
  int32_t row_sum(int64_t i) const { return load<int32_t>(row(i) + code_bytes() + 8); }
  float* alpha_ptr(int64_t i) { return reinterpret_cast<float*>(row(i) + code_bytes()); }

  template <class T>
  static T load(const uint8_t* p) {
    T v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
  }
};

// Quantizes a rows x dim fp32 matrix row-wise (alpha = (max - min) / (2^bits - 1),
// beta = min, q = round((x - beta) / alpha), as PyTorch's rowwise quantizers do);
// with_row_sums stores C_T[i].
quantized_table quantize_rowwise(const float* x, int64_t rows, int64_t dim, int bits, bool with_row_sums);
// Recomputes and stores C_T[i] (table must have with_row_sums).
void store_row_sums(quantized_table& t);

struct bag_batch {
  std::vector<int64_t> indices;
  std::vector<int64_t> offsets;  // one per bag: start of the bag in `indices`
  std::vector<float> weights;    // empty: plain sum; else one per index
  int64_t bags() const { return int64_t(offsets.size()); }
  int64_t end(int64_t b) const { return b + 1 < bags() ? offsets[std::size_t(b + 1)] : int64_t(indices.size()); }
};

// out: bags x dim fp32.
void embedding_bag_reference(const quantized_table& t, const bag_batch& b, float* out);
void embedding_bag_fast(const quantized_table& t, const bag_batch& b, float* out, int prefetch = 16);
void embedding_bag_fast_at(simd_level l, const quantized_table& t, const bag_batch& b, float* out, int prefetch);

// C_T[i] = sum_j q_ij.
int32_t code_sum(const quantized_table& t, int64_t i);

}  // namespace sdc
