#include "foundation/ground_truth/exact_dot.hpp"

#include "foundation/ground_truth/exact_accumulator.hpp"
#include "foundation/simd/reductions.hpp"

#include <cmath>
#include <deque>
#include <limits>

namespace sdc {
namespace {

// Per-thread scratch: product terms at 106 bits and pointer array for mpfr_sum.
struct dot_scratch {
  std::deque<__mpfr_struct> terms;  // deque: elements never move
  std::vector<mpfr_ptr> ptrs;
  void reserve(size_t n) {
    while (terms.size() < n) {
      terms.emplace_back();
      mpfr_init2(&terms.back(), 106);
    }
    ptrs.resize(terms.size());
    for (size_t i = 0; i < terms.size(); ++i) ptrs[i] = &terms[i];
  }
  ~dot_scratch() {
    for (auto& t : terms) mpfr_clear(&t);
  }
};
thread_local dot_scratch t_scratch;

template <class T>
void exact_dot_impl(mpfr_ptr out, const T* a, int64_t sa, const T* b, int64_t sb, int64_t n) {
  t_scratch.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    mpfr_set_d(&t_scratch.terms[size_t(i)], double(a[i * sa]), MPFR_RNDN);  // exact: 53 <= 106 bits
    mpfr_mul_d(&t_scratch.terms[size_t(i)], &t_scratch.terms[size_t(i)], double(b[i * sb]), MPFR_RNDN);  // exact
  }
  mpfr_sum(out, t_scratch.ptrs.data(), (unsigned long)n, MPFR_RNDN);
}

// The fast paths sum exactly in an exact_accumulator and round once, so they
// return the same correctly rounded value as the MPFR twins; a term the
// accumulator cannot hold exactly (a non-finite value, a product that
// overflows or underflows) sends the call to the twin.
template <class T>
void exact_dot_fast(mpfr_ptr out, const T* a, int64_t sa, const T* b, int64_t sb, int64_t n) {
  exact_accumulator acc;
  for (int64_t i = 0; i < n; ++i) acc.add_product(double(a[i * sa]), double(b[i * sb]));
  if (acc.exact()) acc.round_to(out);
  else exact_dot_impl(out, a, sa, b, sb, n);
}

}  // namespace

void exact_dot(mpfr_ptr out, const double* a, int64_t sa, const double* b, int64_t sb, int64_t n) {
  exact_dot_fast(out, a, sa, b, sb, n);
}
void exact_dot(mpfr_ptr out, const float* a, int64_t sa, const float* b, int64_t sb, int64_t n) {
  exact_dot_fast(out, a, sa, b, sb, n);
}
void exact_dot_mpfr(mpfr_ptr out, const double* a, int64_t sa, const double* b, int64_t sb, int64_t n) {
  exact_dot_impl(out, a, sa, b, sb, n);
}

void exact_sum_mpfr(mpfr_ptr out, const double* x, int64_t sx, int64_t n) {
  t_scratch.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) mpfr_set_d(&t_scratch.terms[size_t(i)], x[i * sx], MPFR_RNDN);
  mpfr_sum(out, t_scratch.ptrs.data(), (unsigned long)n, MPFR_RNDN);
}
void exact_sum(mpfr_ptr out, const double* x, int64_t sx, int64_t n) {
  exact_accumulator acc;
  for (int64_t i = 0; i < n; ++i) acc.add(x[i * sx]);
  if (acc.exact()) acc.round_to(out);
  else exact_sum_mpfr(out, x, sx, n);
}

namespace {

template <class T>
void row_check_errors_mpfr(const T* A, const T* B, const T* C, int64_t m, int64_t k, int64_t n, double* out) {
  // Exact row sums of B, each correctly rounded to 256 bits.
  std::deque<mp_value> r;  // deque: mp_value does not move
  for (int64_t kk = 0; kk < k; ++kk) {
    r.emplace_back();
    t_scratch.reserve(size_t(n));
    for (int64_t j = 0; j < n; ++j) mpfr_set_d(&t_scratch.terms[size_t(j)], double(B[kk * n + j]), MPFR_RNDN);
    mpfr_sum(r.back().get(), t_scratch.ptrs.data(), (unsigned long)n, MPFR_RNDN);
  }
  std::deque<mp_value> terms;
  for (int64_t kk = 0; kk < k; ++kk) terms.emplace_back(k_ground_truth_bits + 64);
  std::vector<mpfr_ptr> ptrs;
  for (auto& t : terms) ptrs.push_back(t.get());
  mp_value exact, diff;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) mpfr_mul_d(terms[size_t(kk)].get(), r[size_t(kk)].get(), double(A[i * k + kk]), MPFR_RNDN);
    mpfr_sum(exact.get(), ptrs.data(), (unsigned long)k, MPFR_RNDN);
    const T s = active_reduction_kernels<T>().sum(C + i * n, n);  // as the checksum engine sums the row
    mpfr_set_d(diff.get(), double(s), MPFR_RNDN);
    mpfr_sub(diff.get(), diff.get(), exact.get(), MPFR_RNDN);
    out[i] = std::fabs(mpfr_get_d(diff.get(), MPFR_RNDN));
  }
}

// The same values as row_check_errors_mpfr: B's row sums r_kk rounded to 256
// bits as there, each split into the few doubles it is exactly the sum of
// (each mpfr_get_d takes the next 53 bits or more), so A_i r = sum of
// A_ik d_kk,t, every product split exactly by the accumulator; rounded to
// 256 bits once, the same value as mpfr_sum of the twin's exact products.
// Any term the accumulator cannot hold exactly sends the call to the twin.
template <class T>
void row_check_errors_fast(const T* A, const T* B, const T* C, int64_t m, int64_t k, int64_t n, double* out) {
  std::vector<double> parts;
  std::vector<size_t> first(size_t(k) + 1, 0);
  exact_accumulator acc;
  mp_value r, exact, diff;
  for (int64_t kk = 0; kk < k; ++kk) {
    acc.clear();
    for (int64_t j = 0; j < n; ++j) acc.add(double(B[kk * n + j]));
    if (!acc.exact()) return row_check_errors_mpfr(A, B, C, m, k, n, out);
    acc.round_to(r.get());
    first[size_t(kk)] = parts.size();
    for (int t = 0; t < 8 && !mpfr_zero_p(r.get()); ++t) {
      parts.push_back(mpfr_get_d(r.get(), MPFR_RNDN));
      mpfr_sub_d(r.get(), r.get(), parts.back(), MPFR_RNDN);  // exact: the bits below parts.back()'s
    }
    if (!mpfr_zero_p(r.get())) return row_check_errors_mpfr(A, B, C, m, k, n, out);  // below 2^-1074
  }
  first[size_t(k)] = parts.size();
  for (int64_t i = 0; i < m; ++i) {
    acc.clear();
    for (int64_t kk = 0; kk < k; ++kk) {
      const double a = double(A[i * k + kk]);
      for (size_t t = first[size_t(kk)]; t < first[size_t(kk) + 1]; ++t) acc.add_product(a, parts[t]);
    }
    if (!acc.exact()) return row_check_errors_mpfr(A, B, C, m, k, n, out);
    acc.round_to(exact.get());
    const T s = active_reduction_kernels<T>().sum(C + i * n, n);  // as the checksum engine sums the row
    mpfr_set_d(diff.get(), double(s), MPFR_RNDN);
    mpfr_sub(diff.get(), diff.get(), exact.get(), MPFR_RNDN);
    out[i] = std::fabs(mpfr_get_d(diff.get(), MPFR_RNDN));
  }
}

}  // namespace

void exact_row_check_errors(const float* A, const float* B, const float* C, int64_t m, int64_t k, int64_t n, double* out) {
  row_check_errors_fast(A, B, C, m, k, n, out);
}
void exact_row_check_errors(const double* A, const double* B, const double* C, int64_t m, int64_t k, int64_t n,
                            double* out) {
  row_check_errors_fast(A, B, C, m, k, n, out);
}
void exact_row_check_errors_mpfr(const float* A, const float* B, const float* C, int64_t m, int64_t k, int64_t n,
                                 double* out) {
  row_check_errors_mpfr(A, B, C, m, k, n, out);
}
void exact_row_check_errors_mpfr(const double* A, const double* B, const double* C, int64_t m, int64_t k, int64_t n,
                                 double* out) {
  row_check_errors_mpfr(A, B, C, m, k, n, out);
}

const char* significance_name(significance s) {
  switch (s) {
    case significance::masked: return "masked";
    case significance::within_noise: return "within_noise";
    case significance::small: return "small";
    case significance::large: return "large";
  }
  return "?";
}

element_error classify_element(const format& out_fmt, mpfr_srcptr exact, double clean, double faulty) {
  element_error e;
  e.exact = mpfr_get_d(exact, MPFR_RNDN);
  mp_value diff;
  auto abs_err = [&](double x) {
    if (!std::isfinite(x)) return std::numeric_limits<double>::infinity();
    mpfr_set_d(diff.get(), x, MPFR_RNDN);
    mpfr_sub(diff.get(), diff.get(), exact, MPFR_RNDN);
    return std::fabs(mpfr_get_d(diff.get(), MPFR_RNDN));
  };
  const double err = abs_err(faulty);
  e.noise = abs_err(clean);
  const double mag = std::fabs(e.exact);
  e.err_ulps = err / ulp_of(out_fmt, e.exact);
  e.err_rel = mag > 0 ? err / mag : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  const bool same_bits = std::isnan(clean) ? std::isnan(faulty) : (faulty == clean && std::signbit(faulty) == std::signbit(clean));
  if (same_bits) e.band = significance::masked;
  else if (err <= std::max(e.noise, ulp_of(out_fmt, e.exact))) e.band = significance::within_noise;
  else if (e.err_rel <= k_small_fault_rel) e.band = significance::small;
  else e.band = significance::large;
  return e;
}

}  // namespace sdc
