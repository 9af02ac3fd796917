// Injects faults into a fault_target and returns the records of what changed.
// The only place sites are drawn and directed flips retried: workloads expose
// targets, the trial driver applies the cell's fault plan through here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "injectors/fault_target.hpp"
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
  std::string pattern;       // the multi-element site rule this element was part of (max_abs, run(L), ...); "" for one
  bool changed() const { return applied && old_bits != new_bits; }
};

// How many sites a directed flip draws before the trial is skipped.
inline constexpr int k_directed_flip_attempts = 64;

// One fault: a site drawn by the spec's rule (a directed flip redraws up to
// k_directed_flip_attempts times), then the model applied there.
injection_record inject(fault_target& t, const fault_spec& spec, rng& g);
injection_record inject(const tensor_view& t, const fault_spec& spec, rng& g);

// k faults at k distinct elements drawn uniformly (partial Fisher-Yates over
// the row-major indices), the model applied at each: a fraction of a sample
// shifted (000 Theorem 1). A record whose model did not apply says so.
std::vector<injection_record> inject_distinct(fault_target& t, const fault_spec& spec, int64_t k, rng& g);

// The model applied at every element tied for the largest finite-or-infinite
// |x| (NaN left out), in index order: site max_abs (003's multiply_max).
std::vector<injection_record> inject_max_abs(fault_target& t, const fault_spec& spec, rng& g);
// A multi-element site rule (site_rule::multi(): max_abs or a pattern): the
// model applied at every element it picks, one record each, naming the pattern.
std::vector<injection_record> inject_pattern(fault_target& t, const fault_spec& spec, rng& g);

}  // namespace sdc
