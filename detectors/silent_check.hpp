// The Ascend silent check of 003_dc12117c3d941011.txt as the public torch_npu
// (`asd`) and MindSpore (`silent_detect`) code computes it, torch-free, one
// value at a time, so the training detectors (feature_value.cpp, npu_asd.cpp),
// `sdcbench stat feature_value` and the tests share one implementation.
//
// feature_value_state (the combined scheme, MS_NPU_ASD_CONFIG):
//   v = 0 is ignored (nothing changes); NaN/Inf is an alarm;
//   warm-up (fewer than `warmup` values in the average, or avg = 0): T_1 = T_2 = v,
//     so only NaN/Inf can alarm and every finite v enters the average;
//   after: T_k = avg * alpha_k / (1 - beta^nz), alpha_1 = upper_thresh1 (1e6),
//     alpha_2 = upper_thresh2 (100);
//   alarm iff v > T_1 and |v - pre| > T_1; else if v <= T_2: nz += 1,
//     avg = beta avg + (1 - beta) v (values in (T_2, T_1] stay out of the average);
//   pre = v after every value, alarms included.
// strike_counter: an alarm counts only if `cooldown` seconds passed since the
//   last counted one; `strikes_num` counted alarms within `strikes_window`
//   seconds strike out (the counted alarms are then cleared). The originals
//   count minutes of wall time; sdcbench runs a simulated clock.
// silent_check_v1 (torch_npu's NPU_ASD_ENABLE=1, aclnnSilentCheck): state
//   [pre, min, max] and a count; level-1 alarm iff v is NaN/Inf, v > thresh_l1
//   (1e6), or, once `min_steps` (7) values were seen, the jump |v - pre| / pre >
//   coeff_l1 (1e5); level 2 likewise with thresh_l2 (1e4) and coeff_l2 (5e3).
//   The jump's exact form is not public; METHODOLOGY.md says why we read it so.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

namespace sdc::silent {

struct feature_value_params {
  double upper_thresh1 = 1e6, upper_thresh2 = 100;
  double beta = 0.99;
  int64_t warmup = 10;
  std::string invalid() const;  // "" or what is wrong, naming the parameter
};

// What one value did to the state (all after the update, except t1/t2 and
// avg_before, which the value was judged against).
struct feature_value_step {
  double value = 0, avg_before = 0, t1 = 0, t2 = 0, avg = 0, pre = 0;
  int64_t nz = 0;
  bool ignored = false;   // v = 0
  bool warming = false;   // judged during warm-up
  bool alarm = false;
  bool accepted = false;  // entered the average
};

class feature_value_state {
 public:
  explicit feature_value_state(feature_value_params p = {}) : p_(p) {}
  feature_value_step observe(double v);
  double avg() const { return avg_; }
  int64_t nz() const { return nz_; }

 private:
  feature_value_params p_;
  double avg_ = 0, pre_ = 0;
  int64_t nz_ = 0;
};

struct strike_params {
  double cooldown = 5 * 60;          // seconds (the originals: 5 minutes)
  int64_t strikes_num = 3;
  double strikes_window = 480 * 60;  // seconds (480 minutes)
  std::string invalid() const;
};

struct strike_result {
  bool counted = false;    // past the cooldown: a strike
  bool struck_out = false;
  int64_t in_window = 0;   // counted alarms in the window, this one included
};

class strike_counter {
 public:
  explicit strike_counter(strike_params p = {}) : p_(p) {}
  strike_result alarm(double now);

 private:
  strike_params p_;
  std::deque<double> counted_;
  double last_counted_ = -1e300;
};

struct silent_check_v1_params {
  double thresh_l1 = 1e6, coeff_l1 = 1e5, thresh_l2 = 1e4, coeff_l2 = 5e3;
  int64_t min_steps = 7;
  std::string invalid() const;
};

struct silent_check_v1_step {
  double value = 0, pre = 0, min = 0, max = 0, jump = 0;
  int64_t count = 0;
  int level = 0;  // 0 normal, 1 or 2
};

class silent_check_v1_state {
 public:
  explicit silent_check_v1_state(silent_check_v1_params p = {}) : p_(p) {}
  silent_check_v1_step observe(double v);

 private:
  silent_check_v1_params p_;
  double pre_ = 0, min_ = 0, max_ = 0;
  int64_t count_ = 0;
};

}  // namespace sdc::silent
