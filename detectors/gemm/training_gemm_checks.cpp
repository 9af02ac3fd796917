// GEMM checks on the linear layers of a training step: every GEMM (forward and
// both backward) of a rank, as the model's gemm hook saw it after any fault
// (training_view.hpp, gemm_record), so kernel-level and statistical detectors
// meet on the same faults.
// (003's CheckSum on the same records: detectors/ascend/training_checksum.cpp.)
//   gemm_<name>       001's checks of the GEMM family (gemm_vabft, gemm_aabft,
//                     gemm_abft, ...: every GEMM detector, with its own
//                     parameters; `sdcbench list detectors`), each GEMM checked as a GEMM cell of its
//                     format (bf16 under mixed precision, else fp32) would be,
//                     the weight side encoded afresh (weights change every step).
// A rank is flagged when any of its GEMMs fails; per_rank() blames it. Score:
// the largest per-GEMM score. Metrics: GEMMs checked and failed.
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "detectors/gemm/gemm_detector.hpp"
#include "detectors/training_gemm_frame.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::vector<const detector_info*> all_gemm_detectors() {
  std::vector<const detector_info*> out;
  for (const auto* d : all_detectors())
    if (d->view == view_kind::gemm && !d->recorder) out.push_back(d);
  return out;
}


// One of 001's GEMM detectors, one instance per format. in_step (the
// default): it runs inside the rank's GEMMs as a gemm_guard (issue 34),
// computing each fp32 GEMM as its protected GEMM where it has one, so it
// costs what it would in deployment; otherwise, and with in_step off, on the
// hook's records after the step. Either way each GEMM's verdict is the
// separate check's, bit for bit (tests/test_protected_gemm.cpp; a GEMM a
// fault changed after the product is verified in full).
class gemm_family_check final : public gemm_checks, private gemm_guard {
 public:
  gemm_family_check(const detector_info* info, nlohmann::json params, bool in_step)
      : info_(info), params_(std::move(params)), in_step_(in_step) {}
  detector_needs needs() const override { return in_step_ ? detector_needs{.gemm_guard = true} : gemm_checks::needs(); }
  void encode(const step_view& v, size_t slot) override {
    if (const auto& s = view_cast<training_step>(v, view_kind::training); in_step_ && s.guards) s.guards->arm(slot, this);
  }
  verdict check(const training_step& s) override {
    if (!in_step_) return gemm_checks::check(s);
    verdict out = std::exchange(step_, fresh());
    out.metrics = {{"gemms_checked", checked_}, {"gemms_failed", failed_}};
    checked_ = failed_ = 0;
    return out;
  }

 private:
  gemm_detector& for_format(bool is_bf16) {
    const format& f = is_bf16 ? bf16() : fp32();
    auto& det = is_bf16 ? bf16_ : fp32_;
    if (!det) {
      const detector_params p(params_, &f);
      det = detector_cast<gemm_detector>(info_->make(p, {&f, &f, nlohmann::json::object()}), info_->name, "gemm");
    }
    return *det;
  }
  static gemm_data<float> data_of(bool is_bf16, int64_t m, int64_t n, int64_t k, const float* a, const float* b, const float* c) {
    gemm_data<float> d;
    d.dtype = d.out_fmt = is_bf16 ? &bf16() : &fp32();
    d.shape = {m, n, k};
    d.order.k = accumulation_order::kind::sequential;  // the training model's GEMMs (workloads/training/trainer/fixed_gemm.hpp)
    d.A = a, d.B = b, d.C = d.acc = c;
    return d;
  }
  verdict check_gemm(const gemm_record& g) override {
    gemm_detector& det = for_format(g.bf16);
    const gemm_data<float> d = data_of(g.bf16, g.m, g.n, g.k, g.a.data(), g.b.data(), g.c.data());
    det.encode(d);
    return det.verify(d);
  }
  // gemm_guard: the protected GEMM where the check has one (fp32 outputs),
  // its operands encoded first (the detector's time; the product the step's).
  void prepare(const gemm_call& g) override {
    if (g.bf16) return;
    for_format(false).encode(data_of(false, g.m, g.n, g.k, g.a, g.b, nullptr));
    encoded_ = true;
  }
  bool product(const gemm_call& g, float* c) override {
    produced_ = false;
    if (g.bf16) return false;
    gemm_detector& det = for_format(false);
    const gemm_data<float> d = data_of(false, g.m, g.n, g.k, g.a, g.b, c);
    if (!encoded_) det.encode(d);
    encoded_ = true;
    produced_ = det.protected_gemm(d, c, &pending_);
    return produced_;
  }
  void stored(const gemm_call& g, const float* c, bool changed) override {
    gemm_detector& det = for_format(g.bf16);
    const gemm_data<float> d = data_of(g.bf16, g.m, g.n, g.k, g.a, g.b, c);
    verdict v;
    if (produced_ && !changed) {
      v = std::move(pending_);
    } else {
      if (!encoded_) det.encode(d);  // the product's operands, already encoded if prepared
      v = det.verify(d);
    }
    produced_ = encoded_ = false;
    ++checked_, failed_ += v.flagged;
    step_.flagged |= v.flagged;
    if (score_higher(v.score, step_.score)) step_.score = v.score;
  }
  const detector_info* info_;
  nlohmann::json params_;
  bool in_step_;
  std::unique_ptr<gemm_detector> bf16_, fp32_;
  static verdict fresh() { return {}; }  // as gemm_checks::check starts its step: no GEMM checked, no score
  bool produced_ = false, encoded_ = false;  // this GEMM's product computed, its operands encoded
  verdict pending_, step_ = fresh();
  double checked_ = 0, failed_ = 0;
};

using T = param_spec::type;
// gemm_<name> for every GEMM detector, with its parameters: registered late,
// when the GEMM family's entries exist.
const bool training_gemm_checks_registered = register_detector_late([] {
  for (const detector_info* info : all_gemm_detectors()) {
    detector_info t = *info;
    t.view = view_kind::training;
    t.name = "gemm_" + info->name;
    t.summary = "001's GEMM check on every GEMM of the rank's linear layers: " + info->summary;
    t.recorder = false, t.closed_forms = {}, t.make_episode = {};
    t.params.push_back({"in_step", T::boolean, true,
                        "run inside the rank's GEMMs (the check's protected GEMM where it has one: fp32 outputs), not on "
                        "copies after the step; the verdicts are the same",
                        {}});
    t.make = [info](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
      // A training GEMM record holds the stored output (bf16-rounded under
      // mixed precision), not the accumulator: a fused-point check would
      // compare rounded values against an accumulator's bound and fail every GEMM.
      if (p.json().value("point", "offline") == "fused")
        throw value_error("gemm_" + info->name + ": point: expected \"offline\" (training GEMM records hold the stored "
                          "output, not the fp32 accumulator); got \"fused\"");
      nlohmann::json inner = p.json();
      inner.erase("in_step");
      return std::make_unique<gemm_family_check>(info, std::move(inner), p.boolean("in_step"));
    };
    register_detector(std::move(t));
  }
});

}  // namespace
}  // namespace sdc
