// NaN/Inf check on a GEMM's output: flags any non-finite element. The check
// every training stack already has (loss-scaler overflow checks); the baseline
// any detector must beat. Score = number of non-finite outputs.
#include <cmath>

#include "detectors/gemm/gemm_detector.hpp"

namespace sdc {
namespace {

class nan_inf_check final : public gemm_detector_t<nan_inf_check> {
 public:
  template <class T>
  void encode_t(const gemm_data<T>&) {}
  template <class T>
  verdict verify_t(const gemm_data<T>& d) {
    int64_t bad = 0;
    const int64_t n = d.shape.m * d.shape.n;
    for (int64_t i = 0; i < n; ++i) bad += !std::isfinite(d.C[i]);
    return {bad > 0, double(bad)};
  }
};

SDCBENCH_REGISTER_DETECTOR({
    view_kind::gemm, "nan_inf", "flags any NaN or Inf in the output (baseline; score = count of non-finite elements)", {},
    [](const detector_params&, const detector_context&) { return std::make_unique<nan_inf_check>(); }});

}  // namespace
}  // namespace sdc
