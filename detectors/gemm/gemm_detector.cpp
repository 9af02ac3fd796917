#include "detectors/gemm/gemm_detector.hpp"

namespace sdc {

void gemm_detector::reset(const episode_context& e) {
  // Checksums of the pair are a function of its clean data: kept while the id stays.
  if (e.data_id != data_id_) data_id_ = e.data_id, baseline_id_ = ~uint64_t(0);
}

void gemm_detector::encode(const step_view& v, size_t) {
  if (auto* f = dynamic_cast<const gemm_step<float>*>(&v)) return encode(f->clean);
  encode(view_cast<gemm_step<double>>(v, view_kind::gemm).clean);
}

template <class T>
verdict gemm_detector::observe_t(const gemm_step<T>& s) {
  gemm_data<T> d = s.checked;
  if (needs_exact_row_errors()) d.exact_row_errors = s.exact_row_errors;
  if (!s.incremental) return verify(d);
  if (baseline_id_ != data_id_) baseline(s.clean), baseline_id_ = data_id_;  // the clean pair's checks, patched per fault
  return verify_change(d, s.change);
}

verdict gemm_detector::observe(const step_view& v) {
  if (auto* f = dynamic_cast<const gemm_step<float>*>(&v)) return observe_t(*f);
  return observe_t(view_cast<gemm_step<double>>(v, view_kind::gemm));
}

}  // namespace sdc
