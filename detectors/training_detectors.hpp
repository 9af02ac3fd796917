// The training detector family: checks on one rank's step before the
// all-reduce (workloads/training/training_view.hpp). per_rank() runs them on
// every rank and blames the rank that fired.
#pragma once
#include "detectors/detector.hpp"
#include "workloads/training/training_view.hpp"

namespace sdc {

class training_detector : public detector {
 public:
  virtual verdict check(const training_step& s) = 0;
  verdict observe(const step_view& v) override { return check(view_cast<training_step>(v, "training")); }
};

}  // namespace sdc
