// 003's NPU_ASD_ENABLE check, whose logs the paper shows, as CANN's
// SilentCheckV3 runs it (silent_check_v3_state, silent_check.hpp: v = max g^2
// against the bias-corrected average times c_thresh_l1 / c_thresh_l2, beta1 =
// 0.99). Where: MindSpore checks the gradient each communication operator
// receives in back-propagation (ascend_silent_check.cc,
// DynamicSilentChecker::DoSilentCheck, one state per operator): in data
// parallel, the gradient bucket a rank hands to the all-reduce. `watch` =
// bucket (default) takes the rank's whole pre-all-reduce gradient (our one
// bucket; the originals' division by the rank count leaves the relative rule
// unchanged up to rounding); `watch` = parameters (our variant) gives every
// parameter its own state. The value and the average are held in the
// bucket's dtype (bf16 with bf16 buckets), as the originals hold them;
// `state` = fp32 (our variant) holds them in fp32. Thresholds: 1e6 and 1e4
// (SilentChecker's NPU_ASD_UPPER_THRESH default; MindSpore's pyboost path
// passes the sigma default 1e5, 5e3 instead, settable here). A rank is flagged
// at level 1 (ERROR: NPU_ASD_ENABLE=2 stops training), or at 2 too with
// `level` = 2; per_rank() blames it. Score = max over watched tensors of
// v / (bound c_thresh_l1) (NaN for a NaN value).
#include <cmath>

#include "detectors/ascend/silent_check.hpp"
#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;

class npu_asd final : public training_detector {
 public:
  npu_asd(silent_check_v3_params p, bool per_parameter, int level, bool fp32_state)
      : p_(p), per_parameter_(per_parameter), level_(level), fp32_state_(fp32_state) {}
  void reset(const episode_context&) override { states_.clear(); }
  verdict check(const training_step& s) override {
    const auto& L = *s.layout;
    const size_t n = per_parameter_ ? L.names.size() : 1;
    if (states_.empty()) {
      silent_check_v3_params p = p_;
      p.bf16_state = s.bucket_bf16 && !fp32_state_;  // the gradient's dtype, as the originals
      states_.assign(n, silent_check_v3_state(p));
    }
    verdict out;
    out.score = 0;
    int worst = 0;
    for (size_t t = 0; t < n; ++t) {
      const int64_t begin = per_parameter_ ? L.offsets[t] : 0;
      const int64_t end = !per_parameter_ || t + 1 >= L.offsets.size() ? L.numel : L.offsets[t + 1];
      const silent_check_v3_step st = states_[t].observe(max_square(std::span(s.grads).subspan(size_t(begin), size_t(end - begin))));
      const double score = std::isnan(st.value) ? st.value : st.value / (st.bound * p_.thresh_l1);
      if (score_higher(score, out.score)) out.score = score;
      if (st.level > 0 && (worst == 0 || st.level < worst)) worst = st.level;
    }
    out.flagged = worst > 0 && worst <= level_;
    out.metrics = {{"level", double(worst)}};
    return out;
  }

 private:
  silent_check_v3_params p_;
  bool per_parameter_;
  int level_;
  bool fp32_state_;
  std::vector<silent_check_v3_state> states_;
};

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "npu_asd",
                            "003's NPU_ASD_ENABLE check (CANN SilentCheckV3): max g^2 of the gradient entering the "
                            "all-reduce against its bias-corrected EMA times 1e6 (fault) / 1e4 (warning), every step",
                            {{"thresh_l1", T::number, 1e6, "c_thresh_l1: level-1 (fault) factor over the average", {}},
                             {"thresh_l2", T::number, 1e4, "c_thresh_l2: level-2 (warning) factor over the average", {}},
                             {"beta1", T::number, 0.99, "the average's decay", {}},
                             {"level", T::integer, 1, "flag at level 1 only, or at 2 (warnings) too", {}},
                             {"watch", T::choice, "bucket", "bucket (the rank's gradient entering the all-reduce, as the "
                              "originals) or parameters (each parameter its own state: not in the originals)", {"bucket", "parameters"}},
                             {"state", T::choice, "gradient", "gradient (the value and average held in the gradient's dtype, "
                              "bf16 with bf16 buckets, as the originals) or fp32 (named variant: held in fp32)", {"gradient", "fp32"}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              silent_check_v3_params v;
                              v.thresh_l1 = p.number("thresh_l1"), v.thresh_l2 = p.number("thresh_l2"), v.beta1 = p.number("beta1");
                              if (auto why = v.invalid(); !why.empty()) throw value_error("npu_asd: " + why);
                              const int64_t level = p.integer("level");
                              if (level != 1 && level != 2) throw value_error("npu_asd: level: expected 1 or 2; got " + std::to_string(level));
                              return std::make_unique<npu_asd>(v, p.choice("watch") == "parameters", int(level), p.choice("state") == "fp32");
                            }});

}  // namespace
}  // namespace sdc
