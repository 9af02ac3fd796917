// The plain reference twin of gemm_fixed_order: one dot product per element,
// written as directly as the order's definition allows.
#include <cblas.h>

#include <cmath>
#include <fmt/format.h>
#include <mutex>

#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {
namespace {

template <class T>
T pairwise(const T* a, int64_t sa, const T* b, int64_t sb, int64_t n) {
  if (n == 1) return a[0] * b[0];
  int64_t h = 1;
  while (h * 2 < n) h *= 2;  // largest power of two strictly below n
  const T left = pairwise(a, sa, b, sb, h);
  const T right = pairwise(a + h * sa, sa, b + h * sb, sb, n - h);
  return left + right;
}

template <class T>
T dot_impl(const T* a, int64_t sa, const T* b, int64_t sb, int64_t n, accumulation_order o) {
  switch (o.k) {
    case accumulation_order::kind::sequential:
    case accumulation_order::kind::openblas: {
      T acc = 0;
      for (int64_t k = 0; k < n; ++k) acc = std::fma(a[k * sa], b[k * sb], acc);
      return acc;
    }
    case accumulation_order::kind::kblock: {
      T total = 0;
      for (int64_t k0 = 0; k0 < n; k0 += o.block) {
        T partial = 0;
        for (int64_t k = k0; k < std::min<int64_t>(n, k0 + o.block); ++k) partial = std::fma(a[k * sa], b[k * sb], partial);
        total = total + partial;
      }
      return total;
    }
    case accumulation_order::kind::pairwise:
      return n == 0 ? T(0) : pairwise(a, sa, b, sb, n);
  }
  return 0;
}

template <class T>
void reference_impl(const T* A, const T* B, T* C, gemm_shape s, accumulation_order o) {
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) C[i * s.n + j] = dot_impl(A + i * s.k, 1, B + j, s.n, s.k, o);
}

void single_thread_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace

std::string gemm_shape::text() const { return fmt::format("{}x{}x{}", m, k, n); }

gemm_shape parse_gemm_shape(std::string_view text) {
  gemm_shape s;
  long long v[3];
  if (std::sscanf(std::string(text).c_str(), "%lldx%lldx%lld", &v[0], &v[1], &v[2]) != 3 ||
      fmt::format("{}x{}x{}", v[0], v[1], v[2]) != text)
    throw value_error("expected a GEMM shape MxKxN (three positive integers, the papers' (M, K, N)); got '" +
                      std::string(text) + "'");
  if (v[0] < 1 || v[1] < 1 || v[2] < 1) throw value_error("GEMM shape dimensions must be >= 1; got '" + std::string(text) + "'");
  s.m = v[0], s.k = v[1], s.n = v[2];
  return s;
}

std::string accumulation_order::text() const {
  switch (k) {
    case kind::sequential: return "sequential";
    case kind::kblock: return fmt::format("kblock({})", block);
    case kind::pairwise: return "pairwise";
    case kind::openblas: return "openblas";
  }
  return "?";
}

accumulation_order parse_accumulation(std::string_view text) {
  accumulation_order o;
  if (text == "sequential") return o;
  if (text == "pairwise") { o.k = accumulation_order::kind::pairwise; return o; }
  if (text == "openblas") { o.k = accumulation_order::kind::openblas; return o; }
  int b = 0;
  if (std::sscanf(std::string(text).c_str(), "kblock(%d)", &b) == 1 && fmt::format("kblock({})", b) == text && b >= 1) {
    o.k = accumulation_order::kind::kblock;
    o.block = b;
    return o;
  }
  throw value_error("expected an accumulation order: sequential, kblock(B) with B >= 1, pairwise, openblas; got '" +
                    std::string(text) + "'");
}

float dot_in_order(const float* a, int64_t sa, const float* b, int64_t sb, int64_t n, accumulation_order o) {
  return dot_impl(a, sa, b, sb, n, o);
}
double dot_in_order(const double* a, int64_t sa, const double* b, int64_t sb, int64_t n, accumulation_order o) {
  return dot_impl(a, sa, b, sb, n, o);
}

void gemm_reference(const float* A, const float* B, float* C, gemm_shape s, accumulation_order o) {
  reference_impl(A, B, C, s, o);
}
void gemm_reference(const double* A, const double* B, double* C, gemm_shape s, accumulation_order o) {
  reference_impl(A, B, C, s, o);
}

void gemm_openblas(const float* A, const float* B, float* C, gemm_shape s) {
  single_thread_blas();
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f, A, int(s.k), B,
              int(s.n), 0.0f, C, int(s.n));
}
void gemm_openblas(const double* A, const double* B, double* C, gemm_shape s) {
  single_thread_blas();
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0, A, int(s.k), B,
              int(s.n), 0.0, C, int(s.n));
}

}  // namespace sdc
