// 003_dc12117c3d941011.txt's combined scheme (MS_NPU_ASD_CONFIG / NPU_ASD_CONFIG)
// on every rank at once, as the public originals run it (`variant`):
//   watched parameters: every grad_sample_interval-th one, counting from the
//     first, each checked at every step with its own state. mindspore:
//     _SdcDetector.need_sample (mindspore/tools, one call per parameter; we
//     count every parameter in registration order), default interval 10
//     (silent_detect_config_parser.cc kDefaultGradSampleInterval); torch_npu:
//     _MatmulSilentCheck.parameter_filtering over the parameters with dim >= 2
//     of leaf modules, each of our leaf modules holding one (asd.py
//     _matmul_silent_check_decorator), default interval 3;
//   v = max g^2 of the rank's gradient before the all-reduce, in fp32
//     (torch.pow(torch.norm(grad, inf), 2)), fed in backward order (last
//     parameter first) to its feature_value_state (silent_check.hpp);
//   an alarm goes to the rank's rank_strikes and the CheckSum to the polling
//     checksum_clock (strike_policy.hpp), on a simulated clock
//     (`seconds_per_step`); a running CheckSum checks every rank's bf16 GEMMs
//     of its original's scope (matmul_checksum.hpp, same `variant`;
//     `checksum_scope` = linear, our variant: every linear GEMM) and blames the
//     rank whose GEMM fails (the worst ratio when several do).
// Flags (flag_on = original): with the CheckSum, a failing GEMM; without it,
// what the original reports: a strike (mindspore's WARNING) or a strike-out
// (torch_npu's WARNING). flag_on = alarm: any alarm (the check alone).
// `tensor` = all (our variant, off by default): one state over every
// parameter's gradient at once. Score: max over ranks and watched parameters
// of v / T_1 (1 during warm-up, NaN for a NaN value).
// Metrics: the first reported event (step, rank, value, parameter index; NaN:
// none), alarms, strikes (counted alarms), CheckSums started and the steps
// they checked, the rank the first failing CheckSum blamed (NaN: none); the
// history before the fork is included in the counts.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "detectors/ascend/matmul_checksum.hpp"
#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

using namespace sdc::silent;
constexpr double k_no_event = not_computed;  // no strike (CheckSum blame) yet: null, not a NaN seen

struct fv_config {
  asd_variant variant = asd_variant::mindspore;
  feature_value_params fv;
  strike_params strikes;
  int64_t interval = 0;  // 0: the variant's default
  std::string tensor = "sampled";
  checksum_scope scope = checksum_scope::original;
  double seconds_per_step = 1;
  bool flag_on_alarm = false;
};

// The parameters a rank watches: indices into the layout (-1: all at once).
std::vector<int64_t> watched(const fv_config& c, const training_layout& L) {
  if (c.tensor == "all") return {-1};
  if (c.tensor != "sampled") {
    for (size_t t = 0; t < L.names.size(); ++t)
      if (L.names[t] == c.tensor) return {int64_t(t)};
    throw value_error("feature_value: tensor '" + c.tensor + "' is no parameter of the model");
  }
  const int64_t n = c.interval > 0 ? c.interval : c.variant == asd_variant::mindspore ? 10 : 3;
  std::vector<int64_t> out;
  int64_t counter = -1;  // both originals: (count + 1) % interval == 0 selects, from the first
  for (size_t t = 0; t < L.names.size(); ++t) {
    if (c.variant == asd_variant::torch_npu && L.shapes[t].size() < 2) continue;
    counter = (counter + 1) % n;
    if (counter == 0) out.push_back(int64_t(t));
  }
  return out;
}

class feature_value_detector final : public episode_detector {
 public:
  explicit feature_value_detector(fv_config c) : c_(std::move(c)), clock_(c_.variant, c_.strikes) {}
  void reset(const episode_context& e) override {
    units_.clear(), states_.clear();
    strikes_.assign(size_t(e.ranks), rank_strikes(c_.variant, c_.strikes));
    step_ = -e.history;  // history steps count from -history
    clock_.reset(double(step_ - 1) * c_.seconds_per_step);
    metrics_ = {{"event_step", k_no_event},
                {"event_rank", k_no_event},
                {"event_value", k_no_event},
                {"event_tensor", k_no_event},
                {"alarms", 0},
                {"strikes", 0},
                {"checksums", 0},
                {"checksum_steps", 0},
                {"checksum_rank", k_no_event}};
  }
  detector_needs needs() const override { return checksum_needs(checksum_kind(), c_.scope, c_.strikes.with_checksum); }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    const int64_t k = step_++;
    const double now = double(k) * c_.seconds_per_step;
    verdict out;  // score not computed while every watched value is ignored
    const bool running = c_.strikes.with_checksum && clock_.running(now);
    if (running) run_checksum(views, k, out);
    for (size_t r = 0; r < views.size(); ++r) check_rank(view_cast<training_step>(*views[r], view_kind::training), int(r), k, now, running, out);
    if (c_.strikes.with_checksum && clock_.poll(now, strikes_)) metric("checksums") += 1;
    out.metrics = metrics_;
    return out;
  }

 private:
  checksum_variant checksum_kind() const {
    return c_.variant == asd_variant::mindspore ? checksum_variant::mindspore : checksum_variant::torch_npu;
  }
  double& metric(const char* name) {
    for (auto& [n, v] : metrics_)
      if (n == name) return v;
    throw std::logic_error(name);
  }

  void check_rank(const training_step& s, int rank, int64_t k, double now, bool running, verdict& out) {
    const auto& L = *s.layout;
    if (units_.empty()) units_ = watched(c_, L);
    if (states_.size() < strikes_.size()) states_.assign(strikes_.size(), std::vector<feature_value_state>(units_.size(), feature_value_state(c_.fv)));
    for (size_t u = units_.size(); u-- > 0;) {  // backward order: the last parameter's gradient is ready first
      const int64_t t = units_[u];
      const int64_t begin = t < 0 ? 0 : L.offsets[size_t(t)];
      const int64_t end = t < 0 || size_t(t) + 1 >= L.offsets.size() ? L.numel : L.offsets[size_t(t) + 1];
      const double v = max_square(std::span(s.grads).subspan(size_t(begin), size_t(end - begin)));
      const feature_value_step st = states_[size_t(rank)][u].observe(v);
      if (st.ignored) continue;
      const double ratio = std::isnan(v) ? v : v / st.t1;
      if (score_higher(ratio, out.score)) out.score = ratio;
      if (!st.alarm) continue;
      metric("alarms") += 1;
      if (c_.flag_on_alarm && !out.flagged) out.flagged = true, out.rank = rank;
      const alarm_result a = strikes_[size_t(rank)].alarm(now, running);
      metric("strikes") += a.counted;
      const bool reported = c_.variant == asd_variant::mindspore ? a.counted : a.struck_out;
      if (!reported) continue;
      if (std::isnan(metric("event_step")) && k >= 0)
        metric("event_step") = double(k), metric("event_rank") = rank, metric("event_value") = v, metric("event_tensor") = double(t);
      if (!c_.strikes.with_checksum && !c_.flag_on_alarm && !out.flagged) out.flagged = true, out.rank = rank;
    }
  }

  void run_checksum(const std::vector<const step_view*>& views, int64_t, verdict& out) {
    metric("checksum_steps") += 1;
    double worst = 0;
    for (size_t r = 0; r < views.size(); ++r) {
      const auto& s = view_cast<training_step>(*views[r], view_kind::training);
      for (const auto& g : checksum_records(s, checksum_kind(), c_.scope)) {
        if (!g.bf16) continue;  // both originals check bf16 MatMuls only
        const checksum_result c = matmul_checksum(checksum_operands(g), checksum_kind());
        if (c.failed && (!out.flagged || score_higher(c.worst_ratio, worst))) out.flagged = true, out.rank = int(r), worst = c.worst_ratio;
      }
    }
    if (out.flagged && std::isnan(metric("checksum_rank"))) metric("checksum_rank") = out.rank;
  }

  fv_config c_;
  checksum_clock clock_;
  std::vector<int64_t> units_;
  std::vector<std::vector<feature_value_state>> states_;  // per rank, per watched parameter
  std::vector<rank_strikes> strikes_;
  int64_t step_ = 0;
  std::vector<std::pair<std::string, double>> metrics_;
};

fv_config parse_config(const detector_params& p) {
  fv_config c;
  c.variant = parse_asd_variant(p.choice("variant"));
  c.fv.upper_thresh1 = p.number("upper_thresh1"), c.fv.upper_thresh2 = p.number("upper_thresh2");
  c.strikes.cooldown = p.number("cooldown") * 60, c.strikes.strikes_window = p.number("strikes_window") * 60;
  c.strikes.strikes_num = p.integer("strikes_num");
  c.strikes.checksum_cooldown = p.number("checksum_cooldown") * 60;
  c.strikes.poll = p.number("poll_seconds");
  c.strikes.with_checksum = p.boolean("with_checksum");
  c.interval = p.integer("grad_sample_interval");
  c.tensor = p.json().at("tensor").get<std::string>();
  c.scope = parse_checksum_scope(p.choice("checksum_scope"));
  c.seconds_per_step = p.number("seconds_per_step");
  c.flag_on_alarm = p.choice("flag_on") == "alarm";
  if (c.flag_on_alarm && c.strikes.with_checksum)
    throw value_error("feature_value: flag_on = alarm scores the check itself; with_checksum needs flag_on = original");
  for (const std::string& why : {c.fv.invalid(), c.strikes.invalid()})
    if (!why.empty()) throw value_error("feature_value: " + why);
  if (c.interval < 0) throw value_error(fmt::format("feature_value: grad_sample_interval: expected an integer >= 1, or 0 for the variant's default; got {}", c.interval));
  if (!(c.seconds_per_step > 0) || !std::isfinite(c.seconds_per_step))
    throw value_error(fmt::format("feature_value: seconds_per_step: expected a finite number > 0; got {}", c.seconds_per_step));
  return c;
}

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "feature_value",
                            "003: max g^2 of every N-th parameter's gradient before the all-reduce against EMA thresholds, "
                            "strikes on a simulated clock, optionally the bf16 matmul CheckSum on every rank",
                            {{"variant", T::choice, "mindspore", "whose code: mindspore (003's MS_NPU_ASD_CONFIG) or torch_npu (NPU_ASD_CONFIG)",
                              {"mindspore", "torch_npu"}},
                             {"upper_thresh1", T::number, 1e6, "alpha_1: the alarm threshold over the average", {}},
                             {"upper_thresh2", T::number, 100.0, "alpha_2: values above it stay out of the average", {}},
                             {"grad_sample_interval", T::integer, 0, "watch every N-th parameter; 0: the variant's default (mindspore 10, torch_npu 3)", {}},
                             {"tensor", T::text, "sampled", "sampled (the originals), one parameter's name, or all (every parameter at once, one state: not in the originals)", {}},
                             {"cooldown", T::number, 5.0, "minutes between counted alarms; the CheckSum's run time", {}},
                             {"strikes_num", T::integer, 3, "strikes that start the CheckSum (torch_npu: that strike out)", {}},
                             {"strikes_window", T::number, 480.0, "minutes the strikes must fall within", {}},
                             {"checksum_cooldown", T::number, 180.0, "minutes before another CheckSum may start", {}},
                             {"poll_seconds", T::number, 10.0, "seconds between the originals' polling-thread passes", {}},
                             {"with_checksum", T::boolean, false, "a strike-out starts the CheckSum on every rank, which blames the rank", {}},
                             {"checksum_scope", T::choice, "original", "the CheckSum's GEMMs: original (the variant's own; "
                              "matmul_checksum's scope) or linear (named variant: every linear GEMM)", {"original", "linear"}},
                             {"seconds_per_step", T::number, 1.0, "the simulated clock: seconds a training step takes", {}},
                             {"flag_on", T::choice, "original", "original (what the variant reports) or alarm (the check alone)",
                              {"original", "alarm"}}},
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
