// Injects one fault into a tensor and returns the record of what changed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/workloads/tensor_view.hpp"
#include "injectors/fault_model.hpp"
#include "injectors/site.hpp"

namespace sdc {

// A resolved fault: model, bits (already resolved for the tensor's format:
// the `bit` axis for bit models, the field for bitflip_random) and site rule.
struct fault_spec {
  fault_model model;
  std::vector<int> bits;
  site_rule site;
};

struct injection_record {
  bool applied = false;      // false: skipped, see skip_reason
  std::string skip_reason;
  int64_t index = -1, row = -1, col = -1;
  uint64_t old_bits = 0, new_bits = 0;
  double old_value = 0, new_value = 0;
  int attempts = 0;          // sites drawn (directed flips resample)
  bool changed() const { return applied && old_bits != new_bits; }
};

// How many sites a directed flip draws before the trial is skipped.
inline constexpr int k_directed_flip_attempts = 64;

injection_record inject(const tensor_view& t, const fault_spec& spec, rng& g);

}  // namespace sdc
