// The quantized-operator detector families of 004: checks of the int8 GEMM
// (checksum columns packed with B, Algorithm 1) and of the EmbeddingBag
// (Algorithm 2). observe() adapts each to the episode protocol.
#pragma once
#include "protocol/detector.hpp"
#include "protocol/views/quantized_views.hpp"

namespace sdc {

class int8_gemm_detector : public detector {
 public:
  using detector::encode;
  virtual int extra_columns() const { return 0; }
  detector_needs needs() const override { return {.extra_columns = extra_columns()}; }
  void encode(const step_view& v, size_t slot) override;
  verdict observe(const step_view& v) override;
  // Once per weight matrix, on the clean B (k x n): checksums; writes this
  // detector's extra columns into `ext` (k rows, leading dimension ld_ext).
  virtual void encode(const int8_t* B, int64_t k, int64_t n, int64_t ldb, int8_t* ext, int64_t ld_ext) = 0;
  virtual verdict verify(const int8_gemm_data& d) = 0;
  // Named probabilities that this check detects the fault, given the clean data
  // and the fault's site, averaged over the model's random outcome; empty when
  // the detector has no closed form for the model.
  virtual std::vector<std::pair<std::string, double>> detection_theory(const int8_gemm_data&,
                                                                       const int8_fault_context&) const {
    return {};
  }

 private:
  size_t slot_ = 0;  // this detector's index in the suite, learned at encode
};

class embedding_bag_detector : public detector {
 public:
  virtual verdict verify(const embedding_bag_data& d) = 0;
  // The verdict, with each bag's sums as evidence {"rsum": [...], "csum": [...],
  // "flagged": [...]} so the workload can attribute a false alarm.
  verdict observe(const step_view& v) override;
  // The per-bag sums of the last verify (empty for detectors without them), so
  // the runner can attribute a false alarm to RSum or CSum with MPFR.
  const std::vector<bag_check>& checks() const { return checks_; }

 protected:
  std::vector<bag_check> checks_;
};

}  // namespace sdc
