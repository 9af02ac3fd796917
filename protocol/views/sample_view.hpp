// What sample detectors see: a sample of values. The gradient workload hands
// them V = {log ||g_i||} (000_60f7924e74842bcb.txt), the mixture workload
// Theorem 1's mixtures; the training workload will hand each rank's log-norms.
#pragma once
#include <cstdint>

#include "protocol/episode.hpp"

namespace sdc {

// What a gradient detector sees: V = {log ||g_i||} over the vectors the
// device's gradient tensors are cut into (natural log; zero vectors left out).
// An Inf/NaN element makes its entry non-finite; detectors flag that.
struct gradient_data {
  const double* log_norms = nullptr;
  int64_t m = 0;
};

struct sample_step final : step_view {
  view_kind kind() const override { return view_kind::sample; }
  gradient_data data;
};

}  // namespace sdc
