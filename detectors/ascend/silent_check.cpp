#include "detectors/ascend/silent_check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "foundation/formats/format.hpp"

namespace sdc::silent {

std::string feature_value_params::invalid() const {
  if (!(upper_thresh1 > 0) || !std::isfinite(upper_thresh1)) return fmt::format("upper_thresh1: expected a finite number > 0; got {}", upper_thresh1);
  if (!(upper_thresh2 > 0) || !std::isfinite(upper_thresh2)) return fmt::format("upper_thresh2: expected a finite number > 0; got {}", upper_thresh2);
  if (!(upper_thresh1 > upper_thresh2)) return fmt::format("upper_thresh1: expected a number > upper_thresh2 ({}); got {}", upper_thresh2, upper_thresh1);
  if (!(beta > 0 && beta < 1)) return fmt::format("beta: expected a number in (0, 1); got {}", beta);
  if (warmup < 1) return fmt::format("warmup: expected an integer >= 1; got {}", warmup);
  return "";
}

// torch_npu asd.py _MatmulSilentCheck._silent_check (the rule) and _async_detect
// (pre_val and step after every value); MindSpore silent_detector.cc
// SilentDetector::CheckValue and CheckValueWithCoolDown (the same).
feature_value_step feature_value_state::observe(double v) {
  feature_value_step s;
  s.value = v, s.avg_before = avg_, s.pre_before = pre_, s.count = count_;
  if (v == 0) {
    s.ignored = true, s.t1 = s.t2 = std::nan("");
  } else {
    s.warming = nz_ < p_.warmup || avg_ == 0;
    if (s.warming) {
      s.t1 = s.t2 = v;
    } else {
      const double debias = 1 - std::pow(p_.beta, double(nz_));
      s.t1 = avg_ * p_.upper_thresh1 / debias;
      s.t2 = avg_ * p_.upper_thresh2 / debias;
    }
    if (std::isnan(v) || std::isinf(v)) {
      s.alarm = true;
    } else if (v > s.t1 && std::fabs(v - pre_) > s.t1) {
      s.alarm = true;
    } else if (v <= s.t2) {
      ++nz_;
      avg_ = p_.beta * avg_ + (1 - p_.beta) * v;
      s.accepted = true;
    }
  }
  pre_ = v, ++count_;  // after every value: a zero resets pre to 0
  s.avg = avg_, s.pre = pre_, s.nz = nz_;
  return s;
}

std::string silent_check_v3_params::invalid() const {
  for (double t : {thresh_l1, thresh_l2})
    if (!(t > 0) || !std::isfinite(t)) return fmt::format("thresh_l1, thresh_l2: expected finite numbers > 0; got {}", t);
  if (!(thresh_l1 > thresh_l2)) return fmt::format("thresh_l1: expected a number > thresh_l2 ({}); got {}", thresh_l2, thresh_l1);
  if (!(beta1 > 0 && beta1 < 1)) return fmt::format("beta1: expected a number in (0, 1); got {}", beta1);
  return "";
}

// aclnnSilentCheckV2.md (the rule); ascend_silent_check.cc ExecuteCheck (avg
// copied from the first value by InplaceCopy, step starting at 0).
silent_check_v3_step silent_check_v3_state::observe(double v) {
  silent_check_v3_step s;
  auto held = [&](float f) { return p_.bf16_state ? float(round_to(bf16(), f)) : f; };
  const float x = held(float(v));
  if (first_) avg_ = x, first_ = false;
  s.value = v, s.avg_before = avg_, s.step_before = step_;
  const float beta = float(p_.beta1);
  const float bound = step_ == 0 ? avg_ : avg_ / (1.0f - std::pow(beta, float(step_)));
  s.bound = bound;
  if (std::isnan(x) || std::isinf(x) || x > bound * float(p_.thresh_l1)) s.level = 1;
  else if (x > bound * float(p_.thresh_l2)) s.level = 2;
  avg_ = held(beta * avg_ + (1.0f - beta) * x);  // npuAsdDetect = 1: updated at every level
  ++step_;
  s.avg = avg_;
  return s;
}

}  // namespace sdc::silent
