// The sample detector family: tests on a sample of values (000's folding test
// + W1, its ablations, Appendix A's multimodality tests, NaN/Inf).
#pragma once
#include <vector>

#include "protocol/detector.hpp"
#include "protocol/views/sample_view.hpp"

namespace sdc {

class gradient_detector : public detector {
 public:
  virtual verdict verify(const gradient_data& d) = 0;
  verdict observe(const step_view& v) override { return verify(view_cast<sample_step>(v, view_kind::sample).data); }
};

// Every sample test of gradient_tests.cpp (000's folding + W1, ablations,
// baselines, Appendix A's tests, the histogram recorder) with its parameters.
// Registered for `gradient` and `mixture`; training_lognorm.cpp hands the same
// tests each rank's gradient log-norms before the all-reduce.
const std::vector<detector_info>& sample_tests();

}  // namespace sdc
