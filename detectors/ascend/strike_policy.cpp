#include "detectors/ascend/strike_policy.hpp"

#include <fmt/format.h>

#include <cmath>

#include "foundation/errors.hpp"

namespace sdc::silent {

asd_variant parse_asd_variant(const std::string& s) {
  if (s == "mindspore") return asd_variant::mindspore;
  if (s == "torch_npu") return asd_variant::torch_npu;
  throw value_error("variant: expected mindspore or torch_npu; got '" + s + "'");
}

const char* asd_variant_name(asd_variant v) { return v == asd_variant::mindspore ? "mindspore" : "torch_npu"; }

std::string strike_params::invalid() const {
  for (auto [name, x] : {std::pair{"cooldown", cooldown}, {"strikes_window", strikes_window}, {"checksum_cooldown", checksum_cooldown}})
    if (!(x >= 0) || !std::isfinite(x)) return fmt::format("{}: expected a finite number >= 0; got {}", name, x);
  if (strikes_num < 1) return fmt::format("strikes_num: expected an integer >= 1; got {}", strikes_num);
  if (!(poll > 0) || !std::isfinite(poll)) return fmt::format("poll: expected a finite number > 0; got {}", poll);
  return "";
}

alarm_result rank_strikes::alarm(double t, bool checksum_running) {
  if (v_ == asd_variant::torch_npu) {
    alarm_result r = torch_npu_alarm(t);
    if (r.struck_out && p_.with_checksum && !checksum_running) checksum_state_ = true;  // one set while it runs is reset after it
    return r;
  }
  alarm_result r;
  if (!(prev_strike_ + p_.cooldown < t)) return r;  // CheckValueWithCoolDown: within the cooling-off period
  prev_strike_ = t, r.counted = true;
  if (!p_.with_checksum || checksum_running) return r;  // ProcessStrike runs with the CheckSum only, and not while it runs
  queue_.push_back(t);
  while (int64_t(queue_.size()) > p_.strikes_num && t - queue_.front() > p_.strikes_window) queue_.pop_front();
  return r;
}

// _MatmulSilentCheck._abnormal_process, step by step (including which entry
// the window is measured to when the walk runs off the front of the list).
alarm_result rank_strikes::torch_npu_alarm(double t) {
  alarm_result r;
  abnormal now{t, true, false};
  const size_t need = size_t(p_.strikes_num - 1);
  if (history_.empty()) {
    r.counted = true;
    if (p_.strikes_num == 1) now.striked = r.struck_out = true;
    history_.push_back(now);
    return r;
  }
  for (int64_t i = int64_t(history_.size()) - 1; i >= 0;) {
    const abnormal* old = &history_[size_t(i)];
    if (old->counted && std::fabs(t - old->time) >= p_.cooldown) {
      r.counted = true;
      if (p_.strikes_num == 1) {
        now.striked = r.struck_out = true;
        break;
      }
      std::vector<size_t> counting = {size_t(i)};
      --i;
      while (i >= 0) {
        old = &history_[size_t(i)];
        if (old->counted && !old->striked) counting.push_back(size_t(i));
        if (counting.size() == need) break;
        --i;
      }
      if (counting.size() == need && std::fabs(t - old->time) <= p_.strikes_window) {
        for (size_t k : counting) history_[k].striked = true;
        now.striked = r.struck_out = true;
      }
      break;
    }
    if (!old->counted) {
      --i;
      continue;
    }
    now.counted = false;  // within the cooldown of the last counted one
    break;
  }
  history_.push_back(now);
  size_t expired = 0;
  while (expired < history_.size() && std::fabs(t - history_[expired].time) > p_.strikes_window) ++expired;
  history_.erase(history_.begin(), history_.begin() + int64_t(expired));
  return r;
}

bool rank_strikes::pending() const {
  return v_ == asd_variant::torch_npu ? checksum_state_ : int64_t(queue_.size()) >= p_.strikes_num;
}

void rank_strikes::clear_pending() { checksum_state_ = false, queue_.clear(); }

bool checksum_clock::poll(double t, std::vector<rank_strikes>& ranks) {
  bool started = false;
  while (next_poll_ <= t) {
    const double at = next_poll_;
    next_poll_ = at + p_.poll;
    bool any = false;
    for (const auto& r : ranks) any |= r.pending();
    if (v_ == asd_variant::mindspore) {
      // DetectStrikeout: nothing (the queues wait) within checksum_cooldown of the last CheckSum.
      if (started_ && at < start_ + p_.checksum_cooldown) continue;
      if (!any) continue;
      for (auto& r : ranks) r.clear_pending();
      next_poll_ = at + p_.cooldown + 2 * p_.poll;  // DoCheckSum sleeps `cooldown`, then 10 s, then the loop's 10 s
    } else {
      if (!any) continue;
      const bool may = !started_ || std::fabs(at - start_) > p_.checksum_cooldown;
      for (auto& r : ranks) r.clear_pending();  // reset whether or not it ran
      if (!may) continue;
      next_poll_ = at + p_.cooldown + p_.poll;  // the thread sleeps `cooldown`, then the loop's 10 s
    }
    start_ = at, end_ = at + p_.cooldown, started_ = started = true;
  }
  return started;
}

}  // namespace sdc::silent
