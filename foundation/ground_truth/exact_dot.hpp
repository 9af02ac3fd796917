// MPFR ground truth. Each product of two binary64 values is exact at 106 bits;
// mpfr_sum then returns the sum correctly rounded to the requested precision
// (MPFR >= 4.0 guarantees correct rounding of mpfr_sum). With the default 256
// bits the result is exact or correctly rounded far below any format's ulp.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <vector>

#include "foundation/formats/format.hpp"

namespace sdc {

inline constexpr mpfr_prec_t k_ground_truth_bits = 256;

// RAII wrapper for one mpfr_t.
class mp_value {
 public:
  explicit mp_value(mpfr_prec_t bits = k_ground_truth_bits) { mpfr_init2(v_, bits); mpfr_set_zero(v_, 1); }
  ~mp_value() { mpfr_clear(v_); }
  mp_value(const mp_value&) = delete;
  mp_value& operator=(const mp_value&) = delete;
  mpfr_ptr get() { return v_; }
  mpfr_srcptr get() const { return v_; }
  double to_double() const { return mpfr_get_d(v_, MPFR_RNDN); }

 private:
  mpfr_t v_;
};

// out = sum_{i<n} a[i*sa] * b[i*sb], correctly rounded to out's precision.
// Summed exactly in an exact_accumulator (exact_accumulator.hpp) and rounded
// once; the *_mpfr twins compute the same value with mpfr_sum, and any term
// the accumulator cannot hold exactly is handed to them.
void exact_dot(mpfr_ptr out, const double* a, int64_t sa, const double* b, int64_t sb, int64_t n);
void exact_dot(mpfr_ptr out, const float* a, int64_t sa, const float* b, int64_t sb, int64_t n);
void exact_dot_mpfr(mpfr_ptr out, const double* a, int64_t sa, const double* b, int64_t sb, int64_t n);
// out = sum_{i<n} x[i*sx], correctly rounded.
void exact_sum(mpfr_ptr out, const double* x, int64_t sx, int64_t n);
void exact_sum_mpfr(mpfr_ptr out, const double* x, int64_t sx, int64_t n);

// For each row i of C = A B (m x k times k x n): |s_i - exact(A_i B 1)| where s_i
// is the row sum of C in T (the accumulator precision) computed as the checksum
// engine computes it (foundation/simd/reductions.hpp's fixed lane order), and
// the exact value comes from MPFR (B's row sums exact, then the dot products).
// The actual verification difference that ABFT threshold tightness is measured
// against (001_e8c16cbdc32a8eac.txt, Tables 4-6).
void exact_row_check_errors(const float* A, const float* B, const float* C, int64_t m, int64_t k, int64_t n, double* out);
void exact_row_check_errors(const double* A, const double* B, const double* C, int64_t m, int64_t k, int64_t n,
                            double* out);
// The reference twin: B's row sums and every A_ik r_k as MPFR numbers, mpfr_sum
// per row. The same values bit for bit (tests/test_ground_truth.cpp).
void exact_row_check_errors_mpfr(const float* A, const float* B, const float* C, int64_t m, int64_t k, int64_t n,
                                 double* out);
void exact_row_check_errors_mpfr(const double* A, const double* B, const double* C, int64_t m, int64_t k, int64_t n,
                                 double* out);

// How much a fault mattered, judged on one output element against the exact result.
enum class significance { masked, within_noise, small, large };
const char* significance_name(significance s);
inline constexpr int k_significance_count = 4;
inline constexpr double k_small_fault_rel = 1e-3;

struct element_error {
  double exact = 0;        // exact value, rounded to double for reporting
  double err_ulps = 0;     // |faulty - exact| in ulps of the output format at |exact|
  double err_rel = 0;      // |faulty - exact| / |exact|
  double noise = 0;        // |clean - exact|: the clean output's own rounding error
  significance band = significance::masked;
};

// Classifies a faulty output element: masked (bits equal the clean output's),
// within_noise (|faulty - exact| <= max(|clean - exact|, ulp_out(exact)): no worse than
// the clean output, or one ulp, which another legal accumulation order could give),
// small (relative error <= 1e-3), large (above, or not finite).
element_error classify_element(const format& out_fmt, mpfr_srcptr exact, double clean, double faulty);

}  // namespace sdc
