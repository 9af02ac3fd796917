// 003_dc12117c3d941011.txt's combined scheme (MS_NPU_ASD_CONFIG), every rank
// at once, as the public torch_npu `asd` and MindSpore `silent_detect` run it:
//   each rank, every `grad_sample_interval` steps, samples one parameter
//   gradient before the all-reduce (round-robin over the parameters, or the
//   one named by `tensor`; `tensor` = all, our variant, takes every parameter
//   at once), takes v = max g^2 and runs it through that tensor's
//   feature_value_state (silent_check.hpp); an alarm goes to the
//   rank's strike_counter on a simulated clock (`seconds_per_step`; the
//   originals' cooldown and window are minutes of wall time);
//   with_checksum = false: a strike-out flags the episode and blames its rank
//     (flag_on = alarm: any alarm does, the check without the strike policy);
//   with_checksum = true: a strike-out (unless a CheckSum ran within
//     `checksum_cooldown`) starts the CheckSum on every rank for `cooldown`
//     minutes, from the next step on; it checks each bf16 GEMM
//     (matmul_checksum.hpp, `variant`) and blames the rank whose GEMM fails.
// Score: max over ranks of v / T_1 at the step (1 during warm-up).
// Metrics: the episode's first strike (step, rank, value, tensor; -1 when
// none), CheckSum steps run and the rank it blamed, alarms raised and counted
// (the history before the fork included).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "detectors/matmul_checksum.hpp"
#include "detectors/silent_check.hpp"
#include "detectors/training_detectors.hpp"
#include "harness/errors.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;

struct fv_config {
  feature_value_params fv;
  strike_params strikes;
  int64_t interval = 10;
  std::string tensor = "round_robin";
  double seconds_per_step = 1, checksum_cooldown = 180 * 60;
  bool with_checksum = false;
  bool flag_on_alarm = false;
  checksum_variant variant = checksum_variant::mindspore;
};

class feature_value_detector final : public episode_detector {
 public:
  explicit feature_value_detector(fv_config c) : c_(std::move(c)) {}
  void reset(const episode_context& e) override {
    states_.assign(size_t(e.ranks), {});
    strikes_.assign(size_t(e.ranks), strike_counter(c_.strikes));
    step_ = -e.history, checksum_until_ = -1e300, checksum_started_ = -1e300;  // history steps count from -history
    metrics_ = {{"strike_step", -1}, {"strike_rank", -1}, {"strike_value", k_nan}, {"strike_tensor", -1},
                {"checksum_steps", 0}, {"checksum_rank", -1}, {"alarms", 0}, {"strikes", 0}};
  }
  nlohmann::json needs() const override { return {{"gemms", c_.with_checksum}}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    const int64_t k = step_++;  // the episode's step (negative: the history before it)
    const double now = double(k) * c_.seconds_per_step;
    verdict out;
    out.score = 0;
    if (c_.with_checksum && now > checksum_started_ && now <= checksum_until_) run_checksum(views, k, out);
    if (((k % c_.interval) + c_.interval) % c_.interval == 0)
      for (size_t r = 0; r < views.size(); ++r) sample(view_cast<training_step>(*views[r], "training"), int(r), k, now, out);
    out.metrics = metrics_;
    return out;
  }

 private:
  static constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
  double& metric(const char* name) {
    for (auto& [n, v] : metrics_)
      if (n == name) return v;
    throw std::logic_error(name);
  }

  void sample(const training_step& s, int rank, int64_t k, double now, verdict& out) {
    const auto& L = *s.layout;
    const int64_t n = int64_t(L.names.size()), slot = k / c_.interval - (k % c_.interval != 0 && k < 0);
    int64_t t = ((slot % n) + n) % n;  // round-robin, continued through the history
    if (c_.tensor == "all") t = -1;      // our variant: every parameter at once, one state
    else if (c_.tensor != "round_robin") t = std::find(L.names.begin(), L.names.end(), c_.tensor) - L.names.begin();
    if (t >= n) throw value_error("feature_value: tensor '" + c_.tensor + "' is no parameter of the model");
    const int64_t begin = t < 0 ? 0 : L.offsets[size_t(t)];
    const int64_t end = t < 0 || size_t(t) + 1 >= L.offsets.size() ? L.numel : L.offsets[size_t(t) + 1];
    // v = max g^2 = (max |g|)^2, exact in fp64; a NaN anywhere makes v NaN, as a max over the tensor does.
    float m = 0;
    bool nan = false;
    for (int64_t i = begin; i < end; ++i) {
      const float a = std::fabs(s.grads[size_t(i)]);
      nan |= a != a;
      m = a > m ? a : m;
    }
    const double v = nan ? std::nan("") : double(m) * double(m);
    auto it = states_[size_t(rank)].try_emplace(t, c_.fv).first;
    const feature_value_step st = it->second.observe(v);
    if (st.ignored) return;
    const double ratio = std::isnan(v) ? v : v / st.t1;
    if (std::isnan(ratio) || (!std::isnan(out.score) && ratio > out.score)) out.score = ratio;
    if (!st.alarm) return;
    metric("alarms") += 1;
    if (c_.flag_on_alarm && !out.flagged) out.flagged = true, out.rank = rank;
    const strike_result sr = strikes_[size_t(rank)].alarm(now);
    metric("strikes") += sr.counted;
    if (!sr.struck_out) return;
    if (metric("strike_step") < 0 && k >= 0)
      metric("strike_step") = double(k), metric("strike_rank") = rank, metric("strike_value") = v, metric("strike_tensor") = double(t);
    if (!c_.with_checksum) {
      if (!out.flagged) out.flagged = true, out.rank = rank;
      return;
    }
    if (c_.flag_on_alarm) return;  // (refused at construction: the CheckSum is what a strike-out starts)
    if (now - checksum_started_ >= c_.checksum_cooldown && now > checksum_until_)
      checksum_started_ = now, checksum_until_ = now + c_.strikes.cooldown;
  }

  void run_checksum(const std::vector<const step_view*>& views, int64_t, verdict& out) {
    metric("checksum_steps") += 1;
    double worst = 0;
    for (size_t r = 0; r < views.size(); ++r) {
      for (const auto& g : view_cast<training_step>(*views[r], "training").gemms) {
        if (!g.bf16) continue;  // the originals check bf16 MatMuls only
        const checksum_result c = matmul_checksum({g.m, g.k, g.n, g.a.data(), g.b.data(), g.c.data(), g.bf16}, c_.variant);
        if (c.failed && (!out.flagged || c.worst_ratio > worst)) out.flagged = true, out.rank = int(r), worst = c.worst_ratio;
      }
    }
    if (out.flagged && metric("checksum_rank") < 0) metric("checksum_rank") = out.rank;
  }

  fv_config c_;
  std::vector<std::map<int64_t, feature_value_state>> states_;  // per rank, per sampled tensor
  std::vector<strike_counter> strikes_;
  int64_t step_ = 0;
  double checksum_until_ = -1e300, checksum_started_ = -1e300;
  std::vector<std::pair<std::string, double>> metrics_;
};

fv_config parse_config(const detector_params& p) {
  fv_config c;
  c.fv.upper_thresh1 = p.number("upper_thresh1"), c.fv.upper_thresh2 = p.number("upper_thresh2");
  c.strikes.cooldown = p.number("cooldown") * 60, c.strikes.strikes_window = p.number("strikes_window") * 60;
  c.strikes.strikes_num = p.integer("strikes_num");
  c.interval = p.integer("grad_sample_interval");
  c.tensor = p.json().at("tensor").get<std::string>();
  c.seconds_per_step = p.number("seconds_per_step");
  c.checksum_cooldown = p.number("checksum_cooldown") * 60;
  c.with_checksum = p.boolean("with_checksum");
  c.variant = p.choice("variant") == "torch_npu" ? checksum_variant::torch_npu : checksum_variant::mindspore;
  c.flag_on_alarm = p.choice("flag_on") == "alarm";
  if (c.flag_on_alarm && c.with_checksum)
    throw value_error("feature_value: flag_on = alarm scores the check itself; with_checksum needs flag_on = strike_out");
  for (const std::string& why : {c.fv.invalid(), c.strikes.invalid()})
    if (!why.empty()) throw value_error("feature_value: " + why);
  if (c.interval < 1) throw value_error(fmt::format("feature_value: grad_sample_interval: expected an integer >= 1; got {}", c.interval));
  if (!(c.seconds_per_step > 0) || !std::isfinite(c.seconds_per_step))
    throw value_error(fmt::format("feature_value: seconds_per_step: expected a finite number > 0; got {}", c.seconds_per_step));
  if (!(c.checksum_cooldown >= 0) || !std::isfinite(c.checksum_cooldown))
    throw value_error(fmt::format("feature_value: checksum_cooldown: expected a finite number >= 0; got {}", c.checksum_cooldown));
  return c;
}

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({"training", "feature_value",
                            "003: max g^2 of a sampled gradient before the all-reduce against EMA thresholds, strikes on a "
                            "simulated clock, optionally the bf16 matmul CheckSum on every rank after a strike-out",
                            {{"upper_thresh1", T::number, 1e6, "alpha_1: the alarm threshold over the average", {}},
                             {"upper_thresh2", T::number, 100.0, "alpha_2: values above it stay out of the average", {}},
                             {"grad_sample_interval", T::integer, 10, "steps between samples", {}},
                             {"tensor", T::text, "round_robin", "round_robin over the parameters (the originals), one parameter's name, or all (every parameter at once: not in the originals)", {}},
                             {"cooldown", T::number, 5.0, "minutes between counted alarms; the CheckSum's run time", {}},
                             {"strikes_num", T::integer, 3, "counted alarms that strike out", {}},
                             {"strikes_window", T::number, 480.0, "minutes the strikes must fall within", {}},
                             {"checksum_cooldown", T::number, 180.0, "minutes before another CheckSum may start", {}},
                             {"with_checksum", T::boolean, false, "a strike-out starts the CheckSum, which blames the rank", {}},
                             {"variant", T::choice, "mindspore", "CheckSum bound: mindspore (as is) or torch_npu (x5, recompute)",
                              {"mindspore", "torch_npu"}},
                             {"seconds_per_step", T::number, 1.0, "the simulated clock: seconds a training step takes", {}},
                             {"flag_on", T::choice, "strike_out", "strike_out (the originals' action) or alarm (the check alone)",
                              {"strike_out", "alarm"}}},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("feature_value sees every rank at once: use make_episode");
                            },
                            false,
                            {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              return std::make_unique<feature_value_detector>(parse_config(p));
                            }});

}  // namespace
}  // namespace sdc
