// The older Ascend silent check (003_dc12117c3d941011.txt, NPU_ASD_ENABLE=1;
// torch_npu's asd.py with aclnnSilentCheck): on each rank, every step, the
// L2 norm of each watched gradient goes through that tensor's
// silent_check_v1_state (silent_check.hpp): absolute thresholds
// NPU_ASD_UPPER_THRESH = (1e6, 1e4) and jump thresholds NPU_ASD_SIGMA_THRESH =
// (1e5, 5e3), jumps judged once 7 values were seen. The originals hook the
// gradients at the LayerNorm inputs and of the embedding weights; the
// training view has parameter gradients, so `watch` = "norms" watches the
// gradients of the norm layers' parameters and of the embeddings, "all" every
// parameter. A rank is flagged when a watched tensor reaches `level` (1: only
// level-1 faults, the ones that stop training at NPU_ASD_ENABLE=2; 2: warnings
// too); per_rank() blames it. Score = max over tensors of
// max(v / thresh_l1, jump / coeff_l1).
#include <cmath>

#include "detectors/silent_check.hpp"
#include "detectors/training_detectors.hpp"
#include "harness/errors.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;

bool watched(const std::string& name, bool all) {
  return all || name.find("norm") != std::string::npos || name.find("emb") != std::string::npos;
}

class npu_asd final : public training_detector {
 public:
  npu_asd(silent_check_v1_params p, bool all, int level) : p_(p), all_(all), level_(level) {}
  void reset(const episode_context&) override { states_.clear(); }
  verdict check(const training_step& s) override {
    const auto& L = *s.layout;
    if (states_.empty()) states_.assign(L.names.size(), silent_check_v1_state(p_));
    verdict out;
    out.score = 0;
    int worst = 0;
    for (size_t t = 0; t < L.names.size(); ++t) {
      if (!watched(L.names[t], all_)) continue;
      const int64_t end = t + 1 < L.offsets.size() ? L.offsets[t + 1] : L.numel;
      double sq = 0;
      for (int64_t i = L.offsets[t]; i < end; ++i) sq += double(s.grads[size_t(i)]) * double(s.grads[size_t(i)]);
      const silent_check_v1_step st = states_[t].observe(std::sqrt(sq));
      const double score = std::isnan(st.value) ? st.value : std::fmax(st.value / p_.thresh_l1, st.jump / p_.coeff_l1);
      if (std::isnan(score) || (!std::isnan(out.score) && score > out.score)) out.score = score;
      if (st.level > 0 && (worst == 0 || st.level < worst)) worst = st.level;
    }
    out.flagged = worst > 0 && worst <= level_;
    out.metrics = {{"level", double(worst)}};
    return out;
  }

 private:
  silent_check_v1_params p_;
  bool all_;
  int level_;
  std::vector<silent_check_v1_state> states_;
};

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({"training", "npu_asd",
                            "003's older silent check (NPU_ASD_ENABLE): gradient norms against absolute (1e6, 1e4) and jump "
                            "(1e5, 5e3) thresholds, per tensor, every step",
                            {{"thresh_l1", T::number, 1e6, "level-1 absolute threshold (NPU_ASD_UPPER_THRESH[0])", {}},
                             {"thresh_l2", T::number, 1e4, "level-2 absolute threshold (NPU_ASD_UPPER_THRESH[1])", {}},
                             {"coeff_l1", T::number, 1e5, "level-1 jump threshold (NPU_ASD_SIGMA_THRESH[0])", {}},
                             {"coeff_l2", T::number, 5e3, "level-2 jump threshold (NPU_ASD_SIGMA_THRESH[1])", {}},
                             {"min_steps", T::integer, 7, "values seen before jumps are judged", {}},
                             {"level", T::integer, 1, "flag at level 1 only, or at 2 (warnings) too", {}},
                             {"watch", T::choice, "norms", "norms (norm layers and embeddings) or all parameters", {"norms", "all"}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              silent_check_v1_params v;
                              v.thresh_l1 = p.number("thresh_l1"), v.thresh_l2 = p.number("thresh_l2");
                              v.coeff_l1 = p.number("coeff_l1"), v.coeff_l2 = p.number("coeff_l2");
                              v.min_steps = p.integer("min_steps");
                              if (auto why = v.invalid(); !why.empty()) throw value_error("npu_asd: " + why);
                              const int64_t level = p.integer("level");
                              if (level != 1 && level != 2) throw value_error("npu_asd: level: expected 1 or 2; got " + std::to_string(level));
                              return std::make_unique<npu_asd>(v, p.choice("watch") == "all", int(level));
                            }});

}  // namespace
}  // namespace sdc
