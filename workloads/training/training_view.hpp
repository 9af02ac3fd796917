// What a training-level detector sees of one rank at one step: the rank's
// loss and its gradients before the all-reduce (flat fp32, parameter order,
// with each parameter's slice), copied out of libtorch so that detectors
// neither include nor link torch. The hook for 000's and 003's detectors,
// which look before the collective, and for 002's cross-rank metrics.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/episode.hpp"

namespace sdc {

struct training_layout {
  std::vector<std::string> names;  // parameters, in order
  std::vector<int64_t> offsets;    // start of each in the flat gradient; offsets.back() + last size = numel
  std::vector<std::vector<int64_t>> shapes;
  int64_t numel = 0;
};

class training_step final : public step_view {
 public:
  const char* kind() const override { return "training"; }
  double loss = 0;
  std::vector<float> grads;  // before the all-reduce
  const training_layout* layout = nullptr;
};

}  // namespace sdc
