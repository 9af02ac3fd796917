// The check every training stack already has (the loss scaler's overflow
// test, torch's `clip_grad_norm_(error_if_nonfinite=True)`): a rank whose loss
// or gradients before the all-reduce hold a NaN or Inf. The baseline the
// training-level detectors of 000 and 003 must beat. Score = non-finite values.
#include <cmath>

#include "detectors/training_detectors.hpp"

namespace sdc {
namespace {

class nonfinite_grad final : public training_detector {
 public:
  verdict check(const training_step& s) override {
    int64_t bad = !std::isfinite(s.loss);
    for (float g : s.grads) bad += !std::isfinite(g);
    verdict v;
    v.flagged = bad > 0;
    v.score = double(bad);
    return v;
  }
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "nonfinite_grad",
                            "flags a rank whose loss or pre-all-reduce gradients hold NaN/Inf (baseline; score = their count)",
                            {},
                            [](const detector_params&, const detector_context&) { return std::make_unique<nonfinite_grad>(); }});

}  // namespace
}  // namespace sdc
