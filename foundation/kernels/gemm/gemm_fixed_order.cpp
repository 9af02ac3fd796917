// The fixed-order GEMM's entry points: the kernels of the active SIMD level
// (foundation/kernels/gemm/gemm_dispatch.hpp) with a per-thread workspace, and the
// row and column recomputations built on them.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_dispatch.hpp"

namespace sdc {

SDC_DECLARE_LEVEL_TABLES(fixed_order_tables<float>, gemm_kernels_f32)
SDC_DECLARE_LEVEL_TABLES(fixed_order_tables<double>, gemm_kernels_f64)

std::string gemm_kernel_variant::text() const {
  return std::string(simd_name(level)) + (tuning == gemm_tuning::intel ? "+intel" : "");
}

namespace {

gemm_tuning choose_tuning() {
  if (const char* env = std::getenv("SDCBENCH_GEMM_TUNING"); env && *env) {
    const std::string_view e(env);
    if (e == "generic") return gemm_tuning::generic;
    if (e == "intel") return gemm_tuning::intel;
    throw input_error("environment", "SDCBENCH_GEMM_TUNING", "generic or intel; got '" + std::string(e) + "'");
  }
  __builtin_cpu_init();
  return __builtin_cpu_is("intel") ? gemm_tuning::intel : gemm_tuning::generic;
}

}  // namespace

gemm_kernel_variant active_gemm_variant() {
  static const gemm_kernel_variant v{active_simd_level(), choose_tuning()};
  return v;
}

std::vector<gemm_kernel_variant> supported_gemm_variants() {
  std::vector<gemm_kernel_variant> out;
  for (const simd_level l : supported_simd_levels())
    for (const gemm_tuning t : {gemm_tuning::generic, gemm_tuning::intel}) out.push_back({l, t});
  return out;
}

template <class T>
const fixed_order_kernels<T>& fixed_order_kernels_for(gemm_kernel_variant v) {
  const char* const family = "fixed-order GEMM";
  const fixed_order_tables<T>* t;
  if constexpr (std::is_same_v<T, float>)
    t = &table_for_level(v.level, family, simd_scalar::gemm_kernels_f32, simd_avx2::gemm_kernels_f32,
                         simd_avx512::gemm_kernels_f32);
  else
    t = &table_for_level(v.level, family, simd_scalar::gemm_kernels_f64, simd_avx2::gemm_kernels_f64,
                         simd_avx512::gemm_kernels_f64);
  return v.tuning == gemm_tuning::intel ? t->intel : t->generic;
}
template const fixed_order_kernels<float>& fixed_order_kernels_for<float>(gemm_kernel_variant);
template const fixed_order_kernels<double>& fixed_order_kernels_for<double>(gemm_kernel_variant);

template <class T>
T* gemm_workspace(int64_t need) {
  thread_local std::vector<T> work;
  return line_aligned(work, need);
}
template float* gemm_workspace<float>(int64_t);
template double* gemm_workspace<double>(int64_t);

namespace {

template <class T>
void fixed_order_with(const fixed_order_kernels<T>& k, const T* A, const T* B, T* C, gemm_shape s,
                      accumulation_order o) {
  const bool pairwise = o.k == accumulation_order::kind::pairwise;
  const int64_t block = o.k == accumulation_order::kind::kblock ? o.block : 0;
  const int64_t need = pairwise ? k_pairwise_workspace : k.blocked_workspace(block);
  T* const w = gemm_workspace<T>(need);
  if (pairwise) k.pairwise(A, B, C, s, w);
  else k.blocked(A, B, C, s, block, w);
}

template <class T>
void fixed_order_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  static const fixed_order_kernels<T>& k = fixed_order_kernels_for<T>(active_gemm_variant());
  fixed_order_with(k, A, B, C, s, o);
}

// C row i = A_i B: a 1 x n x k product on row i alone.
template <class T>
void row_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t i) {
  fixed_order_impl(A + i * s.k, B, C + i * s.n, gemm_shape{1, s.n, s.k}, o);
}

// C column j = A B_j: m dot products sharing B_j. Eight rows run as
// independent FMA chains side by side, each in its own element's order
// (sequential, or k-blocks with partial sums); pairwise falls back to the
// reference dot product. Bit-identical to the same column of a full product (tested).
template <class T>
void col_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o, int64_t j) {
  thread_local std::vector<T> bcol;
  bcol.resize(size_t(s.k));
  for (int64_t k = 0; k < s.k; ++k) bcol[size_t(k)] = B[k * s.n + j];
  if (o.k == accumulation_order::kind::pairwise) {
    for (int64_t i = 0; i < s.m; ++i) C[i * s.n + j] = dot_in_order(A + i * s.k, 1, bcol.data(), 1, s.k, o);
    return;
  }
  constexpr int lanes = 8;
  const bool sequential = o.k != accumulation_order::kind::kblock;
  const int64_t block = sequential ? s.k : o.block;
  for (int64_t i0 = 0; i0 < s.m; i0 += lanes) {
    const int rows = int(std::min<int64_t>(lanes, s.m - i0));
    T total[lanes] = {}, part[lanes];
    for (int64_t k0 = 0; k0 < s.k; k0 += block) {
      for (int r = 0; r < lanes; ++r) part[r] = 0;
      const int64_t k1 = std::min(s.k, k0 + block);
      for (int64_t k = k0; k < k1; ++k)
        for (int r = 0; r < rows; ++r) part[r] = std::fma(A[(i0 + r) * s.k + k], bcol[size_t(k)], part[r]);
      // Sequential order is one chain: its partial is the result. kblock adds
      // each partial into the total, as the reference does (0 + -0 is +0).
      for (int r = 0; r < rows; ++r) total[r] = sequential ? part[r] : total[r] + part[r];
    }
    for (int r = 0; r < rows; ++r) C[(i0 + r) * s.n + j] = total[r];
  }
}

}  // namespace

void gemm_row_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_row_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t i) {
  row_impl(A, B, C, s, o, i);
}
void gemm_col_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}
void gemm_col_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o, int64_t j) {
  col_impl(A, B, C, s, o, j);
}

void gemm_fixed_order(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}
void gemm_fixed_order(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o) {
  fixed_order_impl(A, B, C, s, o);
}

void gemm_fixed_order_at(gemm_kernel_variant v, const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  fixed_order_with(fixed_order_kernels_for<float>(v), A, B, C, s, o);
}
void gemm_fixed_order_at(gemm_kernel_variant v, const double* A, const double* B, double* C, gemm_shape s,
                         accumulation_order o) {
  fixed_order_with(fixed_order_kernels_for<double>(v), A, B, C, s, o);
}

}  // namespace sdc
