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
// skips the job's first iteration in validate_results mode (here: the first
// step this detector sees, the first of the run's history). Each rank runs
// its own checks and keeps its own references (per_rank() blames the rank
// that fired).
//
// After a rejection, with rerun (--rerun-mode validate_results, the default
// of megatron/training/config/resilience_config.py RerunStateMachineConfig),
// the state machine reruns the step in place (same GPU, state restored) and
// compares the rejected value with the first (_compare_floats: 0 when equal
// or both NaN, a mismatch (Inf) when one alone is NaN or Inf, else the
// relative difference |(a - b) / (a + b) x 2|; reproduced iff it is <= the
// check's tolerance: 0 for the loss checks (pretrain_gpt.py loss_func), 0.001
// for the grad checks (check_grads)). Not reproduced: a TRANSIENT_ERROR.
// Then by the check's `fatal` flag (RerunStateMachine.validate_result,
// should_run_forward_backward at d98e8a64):
//   - fatal (NaN/Inf loss, NaN/Inf grads): reproduced in place, the job
//     checkpoints and resumes on a different GPU from the checkpoint, reruns
//     the step and compares again: a mismatch is a PERSISTENT_ERROR, a match
//     a CORRECT_RESULT (the value was right, a false alarm); the job exits.
//   - non-fatal (spiky loss, large grads): after the in-place rerun the job
//     continues whatever it gave (continue_requested): a mismatch is logged
//     as a possible transient error, a match as reproducible, and no rerun
//     on another GPU follows, so no persistent or correct diagnosis exists.
// Here the in-place rerun recomputes the rank's step from its own replica on
// its device, and the resumed one from replica 0's parameters (the
// checkpoint DP rank 0 writes) on the next rank's device, (rank + 1) mod
// ranks (a different GPU: what the original checks before it compares).
// Metric rerun_label: 0 correct, 1 transient, 2 persistent, 3 reproduced in
// place and not diagnosed (non-fatal), for the episode's first rejection
// until a later one is labelled. The named variant diagnose_non_fatal (off by
// default; sdcbench's, not Megatron's) runs the second rerun for non-fatal
// rejections too. sdcbench's episodes go on after the diagnosis, with the
// first run's values, so every detector sees the same faulty trajectory (the
// original exits on a fatal one and keeps the rerun's values on a non-fatal
// one). With rerun off (--rerun-mode disabled) every check is evaluated from
// the job's first iteration on (validate_result's DISABLED branch).
// Score: the deciding check's |value| / (reference x factor) for a spike,
// Inf for NaN/Inf (metric nonfinite_norms = 1: a non-finite detection); on a
// step not rejected the larger ratio of the enabled spike checks, not_computed
// where none has one (the warm-up step, a reference still sampling, a NaN/Inf
// value is_unexpectedly_large ignores, or no spike check enabled).
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
  // The ratio |v| / (max x threshold) once the reference exists; not computed
  // while sampling or for NaN/Inf (ignored, as the original ignores them).
  double ratio(double v, double threshold) {
    const double a = std::fabs(v);
    if (!std::isfinite(a)) return not_computed;
    if (count < samples) {
      ++count, max = std::max(max, a);
      return not_computed;
    }
    return a / (max * threshold);
  }
};

class megatron_validation final : public training_detector {
 public:
  megatron_validation(bool nan, bool spiky, double loss_factor, bool large, double grad_factor, int64_t samples, bool rerun,
                      double loss_tolerance, double grads_tolerance, bool diagnose_non_fatal)
      : nan_(nan), spiky_(spiky), large_(large), rerun_(rerun), diagnose_non_fatal_(diagnose_non_fatal), loss_factor_(loss_factor),
        grad_factor_(grad_factor), loss_tolerance_(loss_tolerance), grads_tolerance_(grads_tolerance) {
    loss_.samples = grads_.samples = samples;
  }
  detector_needs needs() const override { return {.recompute = rerun_}; }
  void reset(const episode_context& c) override {
    loss_ = {loss_.samples}, grads_ = {grads_.samples};
    first_ = true;
    ranks_ = c.ranks;
    label_ = rerun_diagnosis::none;
  }
  verdict check(const training_step& s) override {
    verdict v = validate(s);
    if (v.flagged && rerun_ && s.recomputer && ranks_ > 1) label_ = diagnose(s, v.metrics[0].second);
    v.diagnosis = label_;
    if (label_ != rerun_diagnosis::none) v.metrics.emplace_back("rerun_label", double(label_));
    return v;
  }

 private:
  static double grad_norm(const std::vector<float>& grads) {
    double sq = 0;
    for (float g : grads) sq += double(g) * double(g);
    return std::sqrt(sq);
  }
  // The rejected value of a rerun: the loss (codes 1-3) or the grad norm (4-6).
  static double rejected_value(double code, double loss, const std::vector<float>& grads) {
    return code <= 3 ? loss : grad_norm(grads);
  }
  // _compare_floats (rerun_state_machine.py): 0 = match, Inf = mismatch, else
  // the difference relative to the two values' mean. a = -b != 0, where the
  // original divides by zero, is a mismatch here (losses and norms are >= 0).
  static double compare_floats(double a, double b) {
    if (a == b || (std::isnan(a) && std::isnan(b))) return 0;
    if (std::isnan(a) != std::isnan(b) || std::isinf(a) != std::isinf(b)) return INFINITY;
    if (a + b == 0) return INFINITY;
    return std::fabs((a - b) / (a + b) * 2);
  }
  // Reproduced: the comparison is not above the tolerance (a NaN comparison,
  // +Inf against -Inf, is not above it either, as in the original).
  static bool reproduced(double a, double b, double tolerance) { return !(compare_floats(a, b) > tolerance); }
  // Codes 1-3 are the loss checks, 4-6 the grad checks; 3 and 6 (the spike
  // checks) are fatal=False in the original, the others fatal=True.
  rerun_diagnosis diagnose(const training_step& s, double code) {
    const double tolerance = code <= 3 ? loss_tolerance_ : grads_tolerance_;
    const bool fatal = code != 3 && code != 6;
    const double first = rejected_value(code, s.loss, s.grads);
    const recomputed_step in_place = s.recomputer->recompute(s.rank, s.rank, s.rank);
    if (!reproduced(first, rejected_value(code, in_place.loss, in_place.grads), tolerance)) return rerun_diagnosis::transient_error;
    if (!fatal && !diagnose_non_fatal_) return rerun_diagnosis::undiagnosed;  // continue_requested: no rerun on another GPU
    const recomputed_step resumed = s.recomputer->recompute(s.rank, 0, (s.rank + 1) % ranks_);
    return reproduced(first, rejected_value(code, resumed.loss, resumed.grads), tolerance) ? rerun_diagnosis::correct_result
                                                                                           : rerun_diagnosis::persistent_error;
  }
  verdict validate(const training_step& s) {
    verdict v;  // score not computed until a ratio is
    const double norm = grad_norm(s.grads);
    // The references see every step (validate_result calls its rejection
    // function on every initial run after the first iteration).
    const bool first = first_;
    first_ = false;
    if (first && rerun_) return v;  // first_iteration_complete (validate_results mode only)
    // In order; after a rejection the step's later checks are not evaluated
    // (validate_result only rejects while no rerun is requested).
    auto reject = [&](double score, double code, bool nonfinite) {
      v.flagged = true, v.score = score;
      v.metrics = {{"rejected_by", code}, {"nonfinite_norms", nonfinite ? 1.0 : 0.0}};
      return v;
    };
    if (nan_ && std::isnan(s.loss)) return reject(INFINITY, 1, true);
    if (nan_ && std::isinf(s.loss)) return reject(INFINITY, 2, true);
    const double lr = spiky_ ? loss_.ratio(s.loss, loss_factor_) : not_computed;
    if (lr >= 1) return reject(lr, 3, false);
    if (nan_ && std::isnan(norm)) return reject(INFINITY, 4, true);
    if (nan_ && std::isinf(norm)) return reject(INFINITY, 5, true);
    const double gr = large_ ? grads_.ratio(norm, grad_factor_) : not_computed;
    if (gr >= 1) return reject(gr, 6, false);
    v.score = higher_score(lr, gr);
    return v;
  }

  bool nan_, spiky_, large_, rerun_, diagnose_non_fatal_;
  int ranks_ = 1;
  rerun_diagnosis label_ = rerun_diagnosis::none;
  double loss_factor_, grad_factor_, loss_tolerance_, grads_tolerance_;
  large_value_tracker loss_, grads_;
  bool first_ = true;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "megatron_validation",
                            "Megatron-LM's result validation: NaN/Inf in the local loss and pre-all-reduce grad norm, spiky loss and "
                            "large grads (|v| >= factor x the max of the first num_samples values), each rejection labelled by its rerun "
                            "(metric rejected_by: 1 NaN loss, 2 Inf loss, 3 spiky loss, 4 NaN grads, 5 Inf grads, 6 large grads)",
                            {{"check_nan", param_spec::type::boolean, true, "--check-for-nan-in-loss-and-grad (Megatron default on)", {}},
                             {"check_spiky_loss", param_spec::type::boolean, false, "--check-for-spiky-loss (Megatron default off)", {}},
                             {"spiky_loss_factor", param_spec::type::number, 10.0, "SPIKY_LOSS_FACTOR (Megatron: 10)", {}},
                             {"check_large_grads", param_spec::type::boolean, false, "--check-for-large-grads (Megatron default off)", {}},
                             {"large_grads_factor", param_spec::type::number, 10.0, "is_unexpectedly_large's threshold for grads (Megatron: 10)", {}},
                             {"num_samples", param_spec::type::integer, 100, "values that set the reference maximum (Megatron: 100)", {}},
                             {"rerun", param_spec::type::boolean, true,
                              "label each rejection by rerunning the step in place, then (fatal checks) from replica 0's state on the "
                              "next rank (--rerun-mode validate_results; false: disabled); metric rerun_label 0 correct, 1 transient, "
                              "2 persistent, 3 reproduced in place, not diagnosed (non-fatal)", {}},
                             {"loss_tolerance", param_spec::type::number, 0.0, "the loss checks' rerun tolerance (Megatron: 0)", {}},
                             {"grads_tolerance", param_spec::type::number, 0.001, "the grad checks' rerun tolerance (Megatron: 0.001)", {}},
                             {"diagnose_non_fatal", param_spec::type::boolean, false,
                              "named variant (sdcbench's): rerun a reproduced non-fatal rejection on another GPU too, as a fatal one "
                              "(Megatron: off, the job continues)", {}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              if (!(p.number("spiky_loss_factor") > 0) || !(p.number("large_grads_factor") > 0) || p.integer("num_samples") < 1 ||
                                  !(p.number("loss_tolerance") >= 0) || !(p.number("grads_tolerance") >= 0))
                                throw value_error("megatron_validation: expected factors > 0, tolerances >= 0 and num_samples >= 1");
                              return std::make_unique<megatron_validation>(p.boolean("check_nan"), p.boolean("check_spiky_loss"),
                                                                          p.number("spiky_loss_factor"), p.boolean("check_large_grads"),
                                                                          p.number("large_grads_factor"), p.integer("num_samples"),
                                                                          p.boolean("rerun"), p.number("loss_tolerance"),
                                                                          p.number("grads_tolerance"), p.boolean("diagnose_non_fatal"));
                            }});

}  // namespace
}  // namespace sdc
