// What the detectors ask of a training step (detector::needs()), slot by
// slot, and the seconds the step spent on each kind of asked work: copies of
// its GEMMs (the linear layers', the attention products'), its parameters'
// hashes, the state a rerun starts from, the ranks' reduced gradients. charge()
// gives them back to the detectors (episode_runner::detector_work): each
// detector all it asked for, the total once. A guard's checks inside the
// GEMMs are timed by the guards (gemm_guards.hpp) and added by the runner.
#pragma once
#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc::train {

enum class step_need : int { gemms, param_hashes, recompute, gemm_guard, attention_gemms, reduced_grads };

class step_work_meter {
 public:
  explicit step_work_meter(const std::vector<detector_needs>& needs) {
    for (const auto& n : needs)
      slots_.push_back({n.gemms, n.param_hashes != detector_needs::hashes::none, n.recompute, n.gemm_guard, n.attention_gemms,
                        n.reduced_grads});
  }
  bool any(step_need n) const {
    return std::any_of(slots_.begin(), slots_.end(), [n](const auto& s) { return s[index(n)]; });
  }
  void reset() { seconds_ = {}; }
  void add(step_need n, double seconds) { seconds_[index(n)] += seconds; }
  episode_runner::step_work charge() const {
    episode_runner::step_work w;
    w.by_slot.assign(slots_.size(), 0.0);
    for (size_t n = 0; n < k_kinds; ++n) {
      bool asked = false;
      for (size_t k = 0; k < slots_.size(); ++k)
        if (slots_[k][n]) w.by_slot[k] += seconds_[n], asked = true;
      if (asked) w.total += seconds_[n];  // work nobody asked for is the step's own
    }
    return w;
  }

 private:
  static constexpr size_t k_kinds = 6;
  static size_t index(step_need n) { return size_t(n); }
  std::vector<std::array<bool, k_kinds>> slots_;
  std::array<double, k_kinds> seconds_{};
};

}  // namespace sdc::train
