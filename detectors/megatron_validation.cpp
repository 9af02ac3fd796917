// Megatron-LM's result validation on one rank's step, the checks its rerun
// state machine (megatron/core/rerun_state_machine.py, RerunStateMachine.
// validate_result) is fed:
//   - the local forward loss (pretrain_gpt.py, loss_func, with
//     --check-for-nan-in-loss-and-grad, default on): rejected if NaN, then if
//     Inf; with --check-for-spiky-loss (default off): rejected by
//     is_unexpectedly_large(threshold=SPIKY_LOSS_FACTOR = 10, context="loss");
//   - the local gradient norm before the data-parallel collective
//     (megatron/core/distributed/param_and_grad_buffer.py, check_grads; our
//     rank has one bucket, its flat fp32 gradient): NaN, then Inf; with
//     --check-for-large-grads (default off): is_unexpectedly_large(threshold=10,
//     context="grads").
// is_unexpectedly_large ignores NaN/Inf, takes the maximum |value| of its
// first num_samples (100) values as the reference, then rejects |value| >=
// reference x threshold; the reference is never updated. validate_result
// skips the job's first iteration (here: the first step this detector sees,
// a warm-up step). Each rank runs its own checks and keeps its own references
// (per_rank() blames the rank that fired).
//
// What the original does after a rejection, rerunning the step in place and
// then on another GPU to label it correct / transient / persistent, needs a
// recomputation the training workload does not offer yet: this detector
// reports the rejection only (METHODOLOGY, "Production checks").
// Score: the deciding check's |value| / (reference x factor) for a spike,
// Inf for NaN/Inf (metric nonfinite_norms = 1: a non-finite detection).
#include <cmath>
#include <limits>

#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

// is_unexpectedly_large's state for one context ("loss" or "grads").
struct large_value_tracker {
  int64_t samples = 100;
  int64_t count = 0;
  double max = 0;
  // The ratio |v| / (max x threshold) once the reference exists; NaN while sampling or for NaN/Inf.
  double ratio(double v, double threshold) {
    const double a = std::fabs(v);
    if (!std::isfinite(a)) return std::nan("");
    if (count < samples) {
      ++count, max = std::max(max, a);
      return std::nan("");
    }
    return a / (max * threshold);
  }
};

class megatron_validation final : public training_detector {
 public:
  megatron_validation(bool nan, bool spiky, double loss_factor, bool large, double grad_factor, int64_t samples)
      : nan_(nan), spiky_(spiky), large_(large), loss_factor_(loss_factor), grad_factor_(grad_factor) {
    loss_.samples = grads_.samples = samples;
  }
  void reset(const episode_context&) override {
    loss_ = {loss_.samples}, grads_ = {grads_.samples};
    first_ = true;
  }
  verdict check(const training_step& s) override {
    verdict v;
    v.score = 0;
    double sq = 0;
    for (float g : s.grads) sq += double(g) * double(g);
    const double norm = std::sqrt(sq);
    // The references see every step (validate_result calls its rejection
    // function on every initial run after the first iteration).
    const bool first = first_;
    first_ = false;
    if (first) return v;
    // In order; after a rejection the step's later checks are not evaluated
    // (validate_result only rejects while no rerun is requested).
    auto reject = [&](double score, double code, bool nonfinite) {
      v.flagged = true, v.score = score;
      v.metrics = {{"rejected_by", code}, {"nonfinite_norms", nonfinite ? 1.0 : 0.0}};
      return v;
    };
    if (nan_ && std::isnan(s.loss)) return reject(INFINITY, 1, true);
    if (nan_ && std::isinf(s.loss)) return reject(INFINITY, 2, true);
    const double lr = spiky_ ? loss_.ratio(s.loss, loss_factor_) : std::nan("");
    if (lr >= 1) return reject(lr, 3, false);
    if (nan_ && std::isnan(norm)) return reject(INFINITY, 4, true);
    if (nan_ && std::isinf(norm)) return reject(INFINITY, 5, true);
    const double gr = large_ ? grads_.ratio(norm, grad_factor_) : std::nan("");
    if (gr >= 1) return reject(gr, 6, false);
    v.score = std::max(std::isnan(lr) ? 0.0 : lr, std::isnan(gr) ? 0.0 : gr);
    return v;
  }

 private:
  bool nan_, spiky_, large_;
  double loss_factor_, grad_factor_;
  large_value_tracker loss_, grads_;
  bool first_ = true;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "megatron_validation",
                            "Megatron-LM's result validation: NaN/Inf in the local loss and pre-all-reduce grad norm, spiky loss and "
                            "large grads (|v| >= factor x the max of the first num_samples values); rejection only, no rerun "
                            "(metric rejected_by: 1 NaN loss, 2 Inf loss, 3 spiky loss, 4 NaN grads, 5 Inf grads, 6 large grads)",
                            {{"check_nan", param_spec::type::boolean, true, "--check-for-nan-in-loss-and-grad (Megatron default on)", {}},
                             {"check_spiky_loss", param_spec::type::boolean, false, "--check-for-spiky-loss (Megatron default off)", {}},
                             {"spiky_loss_factor", param_spec::type::number, 10.0, "SPIKY_LOSS_FACTOR (Megatron: 10)", {}},
                             {"check_large_grads", param_spec::type::boolean, false, "--check-for-large-grads (Megatron default off)", {}},
                             {"large_grads_factor", param_spec::type::number, 10.0, "is_unexpectedly_large's threshold for grads (Megatron: 10)", {}},
                             {"num_samples", param_spec::type::integer, 100, "values that set the reference maximum (Megatron: 100)", {}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              if (!(p.number("spiky_loss_factor") > 0) || !(p.number("large_grads_factor") > 0) || p.integer("num_samples") < 1)
                                throw value_error("megatron_validation: expected factors > 0 and num_samples >= 1");
                              return std::make_unique<megatron_validation>(p.boolean("check_nan"), p.boolean("check_spiky_loss"),
                                                                          p.number("spiky_loss_factor"), p.boolean("check_large_grads"),
                                                                          p.number("large_grads_factor"), p.integer("num_samples"));
                            }});

}  // namespace
}  // namespace sdc
