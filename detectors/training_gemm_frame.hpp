// The frame of the training detectors that check a step's GEMM records one
// by one (training_view.hpp, gemm_record): 001's GEMM checks
// (detectors/gemm/training_gemm_checks.cpp) and 003's CheckSum
// (detectors/ascend/training_checksum.cpp). A rank is flagged when any of its
// GEMMs fails; score: the largest per-GEMM score; metrics: GEMMs checked and failed.
#pragma once
#include <vector>

#include "detectors/training_detectors.hpp"

namespace sdc {

// The frame: every GEMM of the step through one check.
class gemm_checks : public training_detector {
 public:
  detector_needs needs() const override { return {.gemms = true}; }
  verdict check(const training_step& s) override {
    verdict out;  // score not computed until a GEMM is checked
    double checked = 0, failed = 0;
    for (const auto& g : records(s)) {
      if (!wants(g)) continue;
      const verdict v = check_gemm(g);
      ++checked, failed += v.flagged;
      out.flagged |= v.flagged;
      if (score_higher(v.score, out.score)) out.score = v.score;
    }
    out.metrics = {{"gemms_checked", checked}, {"gemms_failed", failed}};
    return out;
  }

 protected:
  virtual const std::vector<gemm_record>& records(const training_step& s) const { return s.gemms; }
  virtual bool wants(const gemm_record&) const { return true; }
  virtual verdict check_gemm(const gemm_record& g) = 0;
};

}  // namespace sdc
