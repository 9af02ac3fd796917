#include "detectors/quantized/quantized_detectors.hpp"

namespace sdc {

void int8_gemm_detector::encode(const step_view& v, size_t slot) {
  const auto& e = view_cast<int8_encode_step>(v, view_kind::int8_gemm);
  slot_ = slot;
  encode(e.B, e.k, e.n, e.ldb, e.ext[slot], e.ld_ext);
}

verdict int8_gemm_detector::observe(const step_view& v) {
  const auto& s = view_cast<int8_gemm_step>(v, view_kind::int8_gemm);
  verdict out = verify(s.checked[slot_]);
  if (s.fault)  // the closed form conditions on the clean data and the fault's site
    for (auto& m : detection_theory(s.clean[slot_], *s.fault)) out.metrics.push_back(m);
  return out;
}

verdict embedding_bag_detector::observe(const step_view& v) {
  verdict out = verify(view_cast<embedding_bag_step>(v, view_kind::embedding_bag).data);
  if (!checks_.empty()) {
    nlohmann::json r = nlohmann::json::array(), c = nlohmann::json::array(), f = nlohmann::json::array();
    for (const auto& b : checks_) r.push_back(b.rsum), c.push_back(b.csum), f.push_back(b.flagged);
    out.evidence = {{"rsum", r}, {"csum", c}, {"flagged", f}};
  }
  return out;
}

}  // namespace sdc
