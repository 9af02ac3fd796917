#include "harness/services/demo003_scripts.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>

#include "detectors/ascend/silent_check.hpp"
#include "detectors/ascend/strike_policy.hpp"
#include "detectors/training_detectors.hpp"
#include "foundation/formats/format.hpp"
#include "injectors/fault_model.hpp"
#include "injectors/site.hpp"
#include "workloads/ascend_demos/silent_check_mlp.hpp"
#include "workloads/ascend_demos/silent_detect_dense.hpp"

namespace sdc::demo003 {
namespace {

// The scripts' GenerateEodMaskV2 call: device 2 bitflip_designed, the others
// multiply by multiply_factor 1.0, at one element, when cycle(start 0, steps
// [5]) matches (generate_eod_mask_v2_kernel.cc IsMatch: steps - start > 0 and
// divisible by 5).
std::function<void(int64_t, int, std::span<float>)> eod_mask(int64_t ele_pos) {
  return [ele_pos](int64_t cur_step, int rank, std::span<float> x) {
    static const step_schedule when = parse_step_schedule("cycle(0,5)");
    if (!when.fires(cur_step) || ele_pos >= int64_t(x.size())) return;
    float& v = x[size_t(ele_pos)];
    if (rank != 2) {
      v = v * 1.0f;  // multiply, multiply_factor 1.0
      return;
    }
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    rng unused(0);  // bitflip_designed draws nothing
    const auto out = apply_fault(parse_fault_model("bitflip_designed"), fp32(), {}, bits, unused);
    if (!out) return;  // an all-ones exponent: BitFlipDesigned finds no 0 bit and leaves it
    bits = uint32_t(*out);
    std::memcpy(&v, &bits, 4);
  };
}

std::string e6(double v) { return fmt::format("{:e}", v); }  // printf's %e, as CANN's log

}  // namespace

script_run run_silent_check(int npu_asd_enable, uint32_t init_seed, int steps) {
  silent_check_mlp_config c;
  c.init_seed = init_seed;
  if (steps > 0) c.steps = steps;
  silent::silent_check_v3_params p;  // SilentChecker: NPU_ASD_UPPER_THRESH default 1000000,10000; beta1 0.99
  std::map<std::pair<int, std::string>, silent::silent_check_v3_state> states;  // one per device and operator (RegisterCheck)
  script_run out;
  demo_hooks h;
  h.eod_mask = eod_mask(1);
  h.backward_comm = [&](int64_t step, int rank, std::string_view op, std::span<const float> g) {
    auto& state = states.try_emplace({rank, std::string(op)}, p).first->second;
    const silent::silent_check_v3_step s = state.observe(max_square(g));
    log_line l{rank, step, double(step), std::string(op), "", "", s.value};
    if (s.level == 1) {
      l.level = "ERROR";
      l.text = fmt::format("[silent_check_v3.cc:250][ComputeL1Error] SilentCheckV3 ComputeL1Error:val = [{0}], max = [{0}], avg=[{1}], step=[{2}], "
                           "c_thresh_l1 = [{3}], c_thresh_l2 = [{4}], beta1 = [{5}], npu_asd_detect = [{6}].",
                           e6(float(s.value)), e6(s.avg_before), s.step_before, e6(p.thresh_l1), e6(p.thresh_l2), e6(p.beta1), npu_asd_enable);
    } else if (s.level == 2) {  // the paper shows no level-2 line: our wording
      l.level = "WARNING";
      l.text = fmt::format("SilentCheckV3 L2 warning (our wording): val = [{}], avg=[{}], step=[{}]", e6(float(s.value)), e6(s.avg_before), s.step_before);
    } else if (npu_asd_enable == 3) {
      l.level = "INFO";
      l.text = fmt::format("[silent_check_v3.cc:240][SilentCheck] SilentCheckV3 normal case, val=[{0}], max=[{0}], avg=[{1}], step=[{2}], "
                           "c_threshold_l1=[{3}], c_threshold_l2=[{4}], beta1=[{5}], npu_asd_detect=[{6}].",
                           e6(float(s.value)), e6(s.avg_before), s.step_before, e6(p.thresh_l1), e6(p.thresh_l2), e6(p.beta1), npu_asd_enable);
    }
    if (!l.level.empty()) out.lines.push_back(std::move(l));
    return !(s.level == 1 && npu_asd_enable >= 2);  // 2 and 3: the fault stops the training
  };
  const mlp_run r = run_silent_check_mlp(c, h);
  out.steps_done = r.steps_done, out.stopped = r.stopped, out.loss = r.loss;
  return out;
}

script_run run_silent_detect(uint32_t init_seed, int steps) {
  silent_detect_dense_config c;
  c.init_seed = init_seed;
  if (steps > 0) c.steps = steps;
  silent::strike_params sp;  // MS_NPU_ASD_CONFIG: cooldown:1, strikes_num:1, with_checksum:true; the rest default
  sp.cooldown = 60, sp.strikes_num = 1, sp.strikes_window = 480 * 60, sp.checksum_cooldown = 180 * 60, sp.with_checksum = true;
  std::vector<silent::rank_strikes> strikes(size_t(c.ranks), silent::rank_strikes(silent::asd_variant::mindspore, sp));
  silent::checksum_clock clock(silent::asd_variant::mindspore, sp);
  clock.reset(0);
  std::map<std::pair<int, std::string>, silent::feature_value_state> states;  // check_status_[name], per device
  script_run out;
  double result_due = -1;
  demo_hooks h;
  h.eod_mask = eod_mask(0);
  h.backward_comm = [&](int64_t step, int rank, std::string_view name, std::span<const float> g) {
    const double now = double(step);
    const silent::feature_value_step s = states[{rank, std::string(name)}].observe(max_square(g));
    if (!s.alarm) return true;
    const silent::alarm_result a = strikes[size_t(rank)].alarm(now, clock.running(now));
    if (!a.counted) return true;  // within the cooldown: no strike, no log
    out.lines.push_back({rank, step, now, std::string(name), "WARNING",
                         fmt::format("[silent_detector.cc:109] SilentDetect] Silent detect strike detected: StrikeRecord{{timestamp: {}, name: {}, value: {:g}, "
                                     "stat: StatData{{avg: {:g}, pre_value: {:g}, count: {}, none_zero_count: {}}}}}",
                                     int64_t(now), name, s.value, s.avg_before, s.pre_before, s.count, s.nz),
                         s.value});
    return true;
  };
  // The polling thread (DetectStrikeout every 10 s) and the CheckSum's verdict
  // after `cooldown`, on the clock of one step a second: run before each
  // step's first check for the seconds up to it, and after the last step.
  int64_t polled_through = -1;
  auto advance = [&](int64_t through) {
    for (; polled_through < through; ++polled_through) {
      const double t = double(polled_through + 1);
      if (clock.poll(t, strikes)) {
        result_due = clock.started_at() + sp.cooldown;
        out.lines.push_back({0, polled_through + 1, clock.started_at(), "", "WARNING", "Feature value detection strikes out! (the CheckSum starts on every rank)", 0});
      }
      if (result_due >= 0 && t >= result_due) {  // the network is fp32: no bf16 MatMul to check
        out.lines.push_back({0, polled_through + 1, result_due, "", "WARNING", "[silent_detector.cc:316] DoCheckSum] Global CheckSum result is 0", 0});
        result_due = -1;
      }
    }
  };
  auto check = h.backward_comm;
  h.backward_comm = [&](int64_t step, int rank, std::string_view name, std::span<const float> g) {
    advance(step - 1);
    return check(step, rank, name, g);
  };
  // Weights before biases, layers from the last: the order MindSpore's host
  // thread received a step's values is not in the public code; the paper's
  // first strike (fc1.weight where fc1.bias alarms at the same step) says
  // weights come first.
  const dense_run r = run_silent_detect_dense(c, h, {2, 3, 0, 1});
  advance(r.steps_done + int64_t(sp.cooldown) + int64_t(2 * sp.poll));  // the last step's second and a CheckSum it started
  out.steps_done = r.steps_done, out.stopped = r.stopped, out.loss = r.output_mean;
  return out;
}

}  // namespace sdc::demo003
