// Classic ABFT for GEMM (Huang & Abraham 1984; 001_e8c16cbdc32a8eac.txt eqs. (1)-(5)
// with the all-ones vector only): encode r = B * 1 once, then for every row i
// compare the reference checksum A[i,:] * r with the row sum of C[i,:] under a
// fixed relative tolerance. Both sums run in the accumulator precision.
//   rel_tol  the tolerance, a number or "Ku" (K unit roundoffs of the output format)
//   scale    what the tolerance is relative to: "abs_rowsum" (sum_j |C_ij|,
//            the scale rounding errors grow with) or "checksum" (|A[i,:] r|,
//            the textbook choice, which cancels on zero-mean data)
// A non-finite difference is flagged: a NaN must not pass as "not greater".
// Score = max_i |diff_i| / threshold_i.
#include <cmath>
#include <limits>
#include <vector>

#include "detectors/detector.hpp"

namespace sdc {
namespace {

class abft_rowsum final : public gemm_detector_t<abft_rowsum> {
 public:
  abft_rowsum(double rel_tol, bool abs_scale) : rel_tol_(rel_tol), abs_scale_(abs_scale) {}

  template <class T>
  void encode_t(const gemm_data<T>& d) {
    auto& r = sums<T>();
    r.assign(size_t(d.shape.k), T(0));
    for (int64_t k = 0; k < d.shape.k; ++k) {
      T s = 0;
      const T* b = d.B + k * d.shape.n;
      for (int64_t j = 0; j < d.shape.n; ++j) s += b[j];
      r[size_t(k)] = s;
    }
  }

  template <class T>
  verdict verify_t(const gemm_data<T>& d) {
    const auto& r = sums<T>();
    verdict v{false, 0.0};
    for (int64_t i = 0; i < d.shape.m; ++i) {
      T ref = 0;
      const T* a = d.A + i * d.shape.k;
      for (int64_t k = 0; k < d.shape.k; ++k) ref = std::fma(a[k], r[size_t(k)], ref);
      T got = 0, mag = 0;
      const T* c = d.C + i * d.shape.n;
      for (int64_t j = 0; j < d.shape.n; ++j) {
        got += c[j];
        mag += std::fabs(c[j]);
      }
      const double diff = std::fabs(double(ref) - double(got));
      const double scale = abs_scale_ ? double(mag) : std::fabs(double(ref));
      const double threshold = rel_tol_ * scale;
      double score;
      if (!std::isfinite(diff) || !std::isfinite(threshold)) score = std::numeric_limits<double>::infinity();
      else score = threshold > 0 ? diff / threshold : (diff > 0 ? std::numeric_limits<double>::infinity() : 0.0);
      v.score = std::max(v.score, score);
    }
    v.flagged = v.score > 1.0;
    return v;
  }

 private:
  template <class T>
  std::vector<T>& sums() {
    if constexpr (std::is_same_v<T, float>) return rf_;
    else return rd_;
  }
  double rel_tol_;
  bool abs_scale_;
  std::vector<float> rf_;
  std::vector<double> rd_;
};

SDCBENCH_REGISTER_DETECTOR({
    "gemm",
    "abft_rowsum",
    "classic ABFT: row checksums C*1 vs A*(B*1) under a fixed relative tolerance (Huang & Abraham; 001 eqs. 1-5)",
    {{"rel_tol", param_spec::type::tolerance, "8u", "tolerance: a number or \"Ku\" unit roundoffs of the output format"},
     {"scale", param_spec::type::choice, "abs_rowsum", "relative to sum_j |C_ij| or to |checksum|", {"abs_rowsum", "checksum"}}},
    [](const detector_params& p, const detector_context&) {
      return std::make_unique<abft_rowsum>(p.number("rel_tol"), p.choice("scale") == "abs_rowsum");
    }});

}  // namespace
}  // namespace sdc
