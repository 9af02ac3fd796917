// The Ascend silent checks of 003_dc12117c3d941011.txt as the public originals
// compute them, torch-free, one value at a time, so the training detectors
// (feature_value.cpp, npu_asd.cpp), `sdcbench stat feature_value|npu_asd` and
// the tests share one implementation. The strike bookkeeping is in
// strike_policy.hpp.
//
// feature_value_state (MS_NPU_ASD_CONFIG / NPU_ASD_CONFIG): torch_npu
//   torch_npu/asd/asd.py, _MatmulSilentCheck._silent_check and _async_detect;
//   MindSpore ccsrc/tools/silent_detect/silent_detector.cc,
//   SilentDetector::CheckValue and CheckValueWithCoolDown. The two agree:
//   v = 0: not judged, nothing averaged; NaN/Inf: an alarm;
//   thresholds T_k = avg alpha_k / (1 - 0.99^nz) once nz >= 10 and avg != 0,
//     else T_1 = T_2 = v (warm-up: only NaN/Inf can alarm);
//   alarm iff v > T_1 and |v - pre| > T_1; otherwise v <= T_2 enters the
//     average (nz += 1, avg = 0.99 avg + 0.01 v);
//   pre = v and count += 1 after every value, zeros and alarms included.
//
// silent_check_v3_state (NPU_ASD_ENABLE on CANN's SilentCheckV3, the kernel
//   behind aclnnSilentCheckV2): hicann/ops-math
//   math/silent_check_v2/docs/aclnnSilentCheckV2.md for the rule; MindSpore
//   kernel/ascend/availability/silent_check/ascend_silent_check.cc
//   (SilentChecker::RegisterCheck, ExecuteCheck) for its state: v = max g^2,
//   avg copied from the first value, step from 0. The device kernel is not
//   public; our reading (CONFORMANCE.md, "003's NPU_ASD check", says why):
//   bound = avg at step 0, avg / (1 - beta1^step) after (the docs' "Markov
//   inequality threshold (avgRef/(1-beta1)^stepRef)", read as the
//   bias-corrected average, as the feature-value code divides by 1 - 0.99^nz);
//   level 1 iff v is NaN/Inf or v > bound c_thresh_l1; else level 2 iff
//   v > bound c_thresh_l2; then (npuAsdDetect = 1, log only) avg = beta1 avg +
//   (1 - beta1) v and step += 1 at every level. Arithmetic in fp32, as the
//   state tensors of fp32 gradients.
#pragma once
#include <cstdint>
#include <string>

namespace sdc::silent {

struct feature_value_params {
  double upper_thresh1 = 1e6, upper_thresh2 = 100;
  double beta = 0.99;
  int64_t warmup = 10;
  std::string invalid() const;  // "" or what is wrong, naming the parameter
};

// What one value did to the state (all after the update, except t1/t2 and
// avg_before, which the value was judged against; t1/t2 NaN when not judged).
struct feature_value_step {
  double value = 0, avg_before = 0, t1 = 0, t2 = 0, avg = 0, pre_before = 0, pre = 0;
  int64_t nz = 0, count = 0;  // count: values seen before this one (torch_npu's "bp time")
  bool ignored = false;   // v = 0: not judged
  bool warming = false;   // judged during warm-up
  bool alarm = false;
  bool accepted = false;  // entered the average
};

class feature_value_state {
 public:
  explicit feature_value_state(feature_value_params p = {}) : p_(p) {}
  feature_value_step observe(double v);
  double avg() const { return avg_; }
  double pre() const { return pre_; }
  int64_t nz() const { return nz_; }

 private:
  feature_value_params p_;
  double avg_ = 0, pre_ = 0;
  int64_t nz_ = 0, count_ = 0;
};

struct silent_check_v3_params {
  double thresh_l1 = 1e6, thresh_l2 = 1e4, beta1 = 0.99;
  // The value and the average held in bf16, the gradient's dtype: the
  // originals keep val, square and avg in the dtype of the gradient they
  // check (MindSpore ascend_silent_check.cc, the avg tensor made with
  // input_grad->data_type(); torch_npu 7.0.0 ProcessGroupHCCL::silenceCheck).
  // Our reading: computed in fp32, each stored value rounded to bf16.
  bool bf16_state = false;
  std::string invalid() const;
};

struct silent_check_v3_step {
  double value = 0, avg_before = 0, bound = 0, avg = 0;
  int64_t step_before = 0;
  int level = 0;  // 0 normal, 1 fault (ERROR), 2 warning
};

class silent_check_v3_state {
 public:
  explicit silent_check_v3_state(silent_check_v3_params p = {}) : p_(p) {}
  silent_check_v3_step observe(double v);

 private:
  silent_check_v3_params p_;
  bool first_ = true;
  float avg_ = 0;
  int64_t step_ = 0;
};

}  // namespace sdc::silent
