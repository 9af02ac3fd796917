// The GEMM workload's ground truth against MPFR (foundation/ground_truth/):
// how significant a fault's change of the output is, and how good a located
// single-element correction is. Called by gemm_workload.cpp's runner.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "foundation/formats/format.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "protocol/workload.hpp"

namespace sdc {

// Rows [r0, r1) x columns [c0, c1) of C: what a fault can have changed.
struct output_block {
  int64_t r0, r1, c0, c1;
};

// The worst significance over the elements of `blk` where the faulty output
// differs from the clean one, each judged against the exact result of the
// clean inputs A (m x k) and B (k x n): its band, and the largest err_ulps,
// err_rel and err_over_noise (the error over the clean output's own rounding
// error, floored at half an ulp so an exactly rounded clean output does not
// divide by zero).
template <class T>
episode_truth output_significance(const format& out_fmt, const T* A, const T* B, const T* clean_out, const T* faulty_out,
                                  gemm_shape s, output_block blk) {
  episode_truth r;
  double err_rel = 0, err_ulps = 0, err_over_noise = 0;
  mp_value exact;
  for (int64_t i = blk.r0; i < blk.r1; ++i)
    for (int64_t j = blk.c0; j < blk.c1; ++j) {
      const size_t idx = size_t(i * s.n + j);
      const double c = double(clean_out[idx]), f = double(faulty_out[idx]);
      const bool same = std::isnan(c) ? std::isnan(f) : (c == f && std::signbit(c) == std::signbit(f));
      if (same) continue;
      exact_dot(exact.get(), A + i * s.k, 1, B + j, s.n, s.k);
      const auto e = classify_element(out_fmt, exact.get(), c, f);
      if (int(e.band) > int(r.band)) r.band = e.band;
      err_rel = std::max(err_rel, e.err_rel);
      err_ulps = std::max(err_ulps, e.err_ulps);
      const double noise_floor = std::max(e.noise, 0.5 * ulp_of(out_fmt, e.exact));
      err_over_noise = std::max(err_over_noise, e.err_ulps * ulp_of(out_fmt, e.exact) / noise_floor);
    }
  r.metrics = {{"err_ulps", err_ulps}, {"err_rel", err_rel}, {"err_over_noise", err_over_noise}};
  return r;
}

// A detector located a single faulty output element and proposed a
// correction (eq. (10) of 001): was the location right, and how far from the
// exact result is the corrected element? "within envelope": inside the
// element's deterministic rounding envelope, gamma_K sum_k |A_ik B_kj| (+ u_out
// |exact| when the output is rounded): a value a correct GEMM could produce.
// Eq. (10) subtracts D1, which carries the checksum paths' own rounding, so
// the residual is that rounding, not zero.
// Element (i, j), located right: `clean_out` is its clean output, `corrected`
// the correction as stored (rounded to the output where the output rounds).
template <class T>
void judge_element_correction(const format& out_fmt, bool rounds, const T* A, const T* B, gemm_shape s, int64_t i, int64_t j,
                              double clean_out, double corrected, metric_list& out) {
  mp_value exact;
  exact_dot(exact.get(), A + i * s.k, 1, B + j, s.n, s.k);
  const auto e = classify_element(out_fmt, exact.get(), clean_out, corrected);
  out.emplace_back("residual_ulps", e.err_ulps);
  double abs_dot = 0;
  for (int64_t k = 0; k < s.k; ++k) abs_dot += std::fabs(double(A[size_t(i * s.k + k)]) * double(B[size_t(k * s.n + j)]));
  const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
  const double gamma = double(s.k) * u / (1 - double(s.k) * u);
  const double env = gamma * abs_dot + (rounds ? out_fmt.unit_roundoff() * std::fabs(e.exact) : 0.0);
  out.emplace_back("corrected_within_envelope", e.err_rel * std::fabs(e.exact) <= env ? 1.0 : 0.0);
}

}  // namespace sdc
