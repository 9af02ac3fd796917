#include "detectors/silent_check.hpp"

#include <fmt/format.h>

#include <cmath>

namespace sdc::silent {

std::string feature_value_params::invalid() const {
  if (!(upper_thresh1 > 0) || !std::isfinite(upper_thresh1)) return fmt::format("upper_thresh1: expected a finite number > 0; got {}", upper_thresh1);
  if (!(upper_thresh2 > 0) || !std::isfinite(upper_thresh2)) return fmt::format("upper_thresh2: expected a finite number > 0; got {}", upper_thresh2);
  if (!(upper_thresh1 > upper_thresh2)) return fmt::format("upper_thresh1: expected a number > upper_thresh2 ({}); got {}", upper_thresh2, upper_thresh1);
  if (!(beta > 0 && beta < 1)) return fmt::format("beta: expected a number in (0, 1); got {}", beta);
  if (warmup < 1) return fmt::format("warmup: expected an integer >= 1; got {}", warmup);
  return "";
}

feature_value_step feature_value_state::observe(double v) {
  feature_value_step s;
  s.value = v, s.avg_before = avg_;
  if (v == 0) {  // the originals skip zero feature values entirely
    s.ignored = true, s.t1 = s.t2 = std::nan(""), s.avg = avg_, s.pre = pre_, s.nz = nz_;
    return s;
  }
  s.warming = nz_ < p_.warmup || avg_ == 0;
  if (s.warming) {
    s.t1 = s.t2 = v;
  } else {
    const double debias = 1 - std::pow(p_.beta, double(nz_));
    s.t1 = avg_ * p_.upper_thresh1 / debias;
    s.t2 = avg_ * p_.upper_thresh2 / debias;
  }
  if (!std::isfinite(v)) {
    s.alarm = true;
  } else if (v > s.t1 && std::fabs(v - pre_) > s.t1) {
    s.alarm = true;
  } else if (v <= s.t2) {
    ++nz_;
    avg_ = p_.beta * avg_ + (1 - p_.beta) * v;
    s.accepted = true;
  }
  pre_ = v;  // after every value, alarms included
  s.avg = avg_, s.pre = pre_, s.nz = nz_;
  return s;
}

std::string strike_params::invalid() const {
  if (!(cooldown >= 0) || !std::isfinite(cooldown)) return fmt::format("cooldown: expected a finite number >= 0; got {}", cooldown);
  if (strikes_num < 1) return fmt::format("strikes_num: expected an integer >= 1; got {}", strikes_num);
  if (!(strikes_window >= 0) || !std::isfinite(strikes_window))
    return fmt::format("strikes_window: expected a finite number >= 0; got {}", strikes_window);
  return "";
}

strike_result strike_counter::alarm(double now) {
  strike_result r;
  while (!counted_.empty() && counted_.front() < now - p_.strikes_window) counted_.pop_front();
  r.in_window = int64_t(counted_.size());
  if (now - last_counted_ < p_.cooldown) return r;  // still cooling down: not a strike
  last_counted_ = now;
  counted_.push_back(now);
  r.counted = true;
  r.in_window = int64_t(counted_.size());
  if (r.in_window >= p_.strikes_num) r.struck_out = true, counted_.clear();
  return r;
}

std::string silent_check_v1_params::invalid() const {
  for (double t : {thresh_l1, coeff_l1, thresh_l2, coeff_l2})
    if (!(t > 0) || !std::isfinite(t)) return fmt::format("thresholds: expected finite numbers > 0; got {}", t);
  if (!(thresh_l1 > thresh_l2)) return fmt::format("thresh_l1: expected a number > thresh_l2 ({}); got {}", thresh_l2, thresh_l1);
  if (!(coeff_l1 > coeff_l2)) return fmt::format("coeff_l1: expected a number > coeff_l2 ({}); got {}", coeff_l2, coeff_l1);
  if (min_steps < 0) return fmt::format("min_steps: expected an integer >= 0; got {}", min_steps);
  return "";
}

silent_check_v1_step silent_check_v1_state::observe(double v) {
  silent_check_v1_step s;
  s.value = v;
  s.jump = pre_ > 0 ? std::fabs(v - pre_) / pre_ : 0.0;
  const bool jumps = count_ >= p_.min_steps;
  if (!std::isfinite(v) || v > p_.thresh_l1 || (jumps && !(s.jump <= p_.coeff_l1))) s.level = 1;
  else if (v > p_.thresh_l2 || (jumps && s.jump > p_.coeff_l2)) s.level = 2;
  min_ = count_ == 0 ? v : std::fmin(min_, v);
  max_ = count_ == 0 ? v : std::fmax(max_, v);
  pre_ = v, ++count_;  // updated at every level (npuAsdDetect = 1: log and go on)
  s.pre = pre_, s.min = min_, s.max = max_, s.count = count_;
  return s;
}

}  // namespace sdc::silent
