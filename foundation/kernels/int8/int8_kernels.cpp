#include "foundation/kernels/int8/int8_kernels.hpp"

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "foundation/kernels/int8/int8_kernels_dispatch.hpp"

namespace sdc {

SDC_DECLARE_LEVEL_TABLES(int8_kernels, int8_kernels_table)

const int8_kernels& int8_kernels_for(simd_level l) {
  return table_for_level(l, "int8 kernels", simd_scalar::int8_kernels_table, simd_avx2::int8_kernels_table,
                         simd_avx512::int8_kernels_table);
}

namespace {
const int8_kernels& active_int8() {
  static const int8_kernels& k = int8_kernels_for(active_simd_level());
  return k;
}
}  // namespace

void gemm_u8s8s32_onednn(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                         int32_t* C, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(C + i * ldc, C + i * ldc + n, 0);
    return;
  }
  // One thread: the engine parallelizes over trials, the benchmarks time one core.
  if (omp_get_max_threads() != 1) omp_set_num_threads(1);
  const int32_t co = 0;
  const dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'N', 'F', m, n, k, 1.0f, A, lda, 0, B, ldb, 0, 0.0f, C, ldc, &co);
  if (st != dnnl_success) throw std::runtime_error("dnnl_gemm_u8s8s32 failed with status " + std::to_string(int(st)));
}

bool onednn_int8_exact() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx512_core_vnni:
    case dnnl_cpu_isa_avx512_core_bf16:
    case dnnl_cpu_isa_avx512_core_amx:
    case dnnl_cpu_isa_avx2_vnni: return true;
    default: return false;
  }
}

void gemm_u8s8s32_widened_at(simd_level l, int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda,
                             const int8_t* B, int64_t ldb, int32_t* C, int64_t ldc) {
  if (m == 0 || n == 0) return;
  // A and B as pairs of k (int8_kernels_dispatch.hpp), once per call, so the
  // kernel's inner loop only loads and multiplies.
  thread_local std::vector<int32_t> a_pairs;
  thread_local std::vector<int16_t> b_pairs;
  const int64_t kp = (k + 1) / 2;
  a_pairs.assign(size_t(m * kp), 0), b_pairs.assign(size_t(kp * 2 * n), 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) a_pairs[size_t(i * kp + p / 2)] |= int32_t(A[i * lda + p]) << (16 * (p % 2));
  for (int64_t p = 0; p < k; ++p) {
    int16_t* row = b_pairs.data() + (p / 2) * 2 * n + (p % 2);
    for (int64_t j = 0; j < n; ++j) row[2 * j] = B[p * ldb + j];
  }
  int8_kernels_for(l).gemm_u8_s16pairs(m, n, kp, a_pairs.data(), b_pairs.data(), C, ldc);
}

void gemm_u8s8s32_widened(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                          int32_t* C, int64_t ldc) {
  gemm_u8s8s32_widened_at(active_simd_level(), m, n, k, A, lda, B, ldb, C, ldc);
}

void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                  int32_t* C, int64_t ldc) {
  static const bool exact = onednn_int8_exact();
  if (exact) gemm_u8s8s32_onednn(m, n, k, A, lda, B, ldb, C, ldc);
  else gemm_u8s8s32_widened(m, n, k, A, lda, B, ldb, C, ldc);
}

std::string int8_gemm_kernel_name() {
  if (onednn_int8_exact()) return std::string("oneDNN u8s8s32, ") + onednn_isa_name();
  return std::string("sdcbench widened u8s8s32, ") + simd_name(active_simd_level()) + " (oneDNN's " +
         onednn_isa_name() + " kernel would saturate)";
}

void gemm_u8s8s32_reference(int64_t m, int64_t n, int64_t k, const uint8_t* A, int64_t lda, const int8_t* B,
                            int64_t ldb, int32_t* C, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int64_t p = 0; p < k; ++p) s += int64_t(A[i * lda + p]) * int64_t(B[p * ldb + j]);
      C[i * ldc + j] = int32_t(s);
    }
}

int64_t row_sum_i32_reference(const int32_t* c, int64_t n) {
  int64_t s = 0;
  for (int64_t j = 0; j < n; ++j) s += c[j];
  return s;
}

int64_t row_sum_i32(const int32_t* c, int64_t n) { return active_int8().row_sum_i32(c, n); }
int64_t row_sum_i32_at(simd_level l, const int32_t* c, int64_t n) { return int8_kernels_for(l).row_sum_i32(c, n); }

void requantize_u8_reference(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                             uint8_t* out, int64_t* row_sums) {
  for (int64_t i = 0; i < m; ++i) {
    int64_t s = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int32_t c = C[i * ldc + j];
      s += c;
      const float q = std::nearbyint(float(c) * multiplier);
      const float v = std::clamp(q + float(zero_point), 0.0f, 255.0f);
      out[i * n + j] = uint8_t(v);
    }
    if (row_sums) row_sums[i] = s;
  }
}

void requantize_u8(const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier, int32_t zero_point,
                   uint8_t* out, int64_t* row_sums) {
  active_int8().requantize_u8(C, ldc, m, n, multiplier, zero_point, out, row_sums);
}
void requantize_u8_at(simd_level l, const int32_t* C, int64_t ldc, int64_t m, int64_t n, float multiplier,
                      int32_t zero_point, uint8_t* out, int64_t* row_sums) {
  int8_kernels_for(l).requantize_u8(C, ldc, m, n, multiplier, zero_point, out, row_sums);
}

const char* onednn_isa_name() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    default: return "other";
  }
}

int32_t code_sum(const quantized_table& t, int64_t i) {
  int32_t s = 0;
  for (int64_t j = 0; j < t.dim; ++j) s += t.code(i, j);
  return s;
}

void store_row_sums(quantized_table& t) {
  for (int64_t i = 0; i < t.rows; ++i) {
    const int32_t s = code_sum(t, i);
    __builtin_memcpy(t.row(i) + t.code_bytes() + 8, &s, 4);
  }
}

quantized_table quantize_rowwise(const float* x, int64_t rows, int64_t dim, int bits, bool with_row_sums) {
  if (bits != 8 && bits != 4) throw std::invalid_argument("quantize_rowwise: bits must be 8 or 4");
  quantized_table t;
  t.rows = rows, t.dim = dim, t.bits = bits, t.with_row_sums = with_row_sums;
  t.data.assign(size_t(rows * t.stride()), 0);
  const int levels = (1 << bits) - 1;
  for (int64_t i = 0; i < rows; ++i) {
    const float* xr = x + i * dim;
    const auto [lo, hi] = std::minmax_element(xr, xr + dim);
    const float beta = *lo;
    const float alpha = *hi > *lo ? (*hi - *lo) / float(levels) : 1.0f;
    uint8_t* r = t.row(i);
    for (int64_t j = 0; j < dim; ++j) {
      const int q = std::clamp(int(std::nearbyint((xr[j] - beta) / alpha)), 0, levels);
      if (bits == 8) r[j] = uint8_t(q);
      else r[j / 2] |= uint8_t(j & 1 ? q << 4 : q);
    }
    __builtin_memcpy(r + t.code_bytes(), &alpha, 4);
    __builtin_memcpy(r + t.code_bytes() + 4, &beta, 4);
  }
  if (with_row_sums) store_row_sums(t);
  return t;
}

void embedding_bag_reference(const quantized_table& t, const bag_batch& b, float* out) {
  const bool weighted = !b.weights.empty();
  for (int64_t bag = 0; bag < b.bags(); ++bag) {
    float* o = out + bag * t.dim;
    std::fill(o, o + t.dim, 0.0f);
    for (int64_t p = b.offsets[size_t(bag)]; p < b.end(bag); ++p) {
      const int64_t i = b.indices[size_t(p)];
      const float w = weighted ? b.weights[size_t(p)] : 1.0f;
      const float s = w * t.alpha(i), c = w * t.beta(i);
      for (int64_t j = 0; j < t.dim; ++j) o[j] = std::fma(s, float(t.code(i, j)), o[j] + c);
    }
  }
}

namespace {
embedding_bag_args args_of(const quantized_table& t, const bag_batch& b) {
  return {t.data.data(), t.stride(), t.code_bytes(), t.dim, t.bits, b.indices.data(), b.offsets.data(),
          b.weights.empty() ? nullptr : b.weights.data(), b.bags(), int64_t(b.indices.size())};
}
}  // namespace

void embedding_bag_fast(const quantized_table& t, const bag_batch& b, float* out, int prefetch) {
  active_int8().embedding_bag(args_of(t, b), out, prefetch);
}
void embedding_bag_fast_at(simd_level l, const quantized_table& t, const bag_batch& b, float* out, int prefetch) {
  int8_kernels_for(l).embedding_bag(args_of(t, b), out, prefetch);
}

}  // namespace sdc
