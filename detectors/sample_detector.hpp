// The sample detector family: tests on a sample of values (000's folding test
// + W1, its ablations, Appendix A's multimodality tests, NaN/Inf).
#pragma once
#include "detectors/detector.hpp"
#include "workloads/gradient/sample_view.hpp"

namespace sdc {

class gradient_detector : public detector {
 public:
  virtual verdict verify(const gradient_data& d) = 0;
  verdict observe(const step_view& v) override { return verify(view_cast<sample_step>(v, "sample").data); }
};

}  // namespace sdc
