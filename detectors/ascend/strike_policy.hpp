// What 003's combined scheme does with an alarm of the feature-value check
// (silent_check.hpp), as each original does it, on a simulated clock (seconds;
// the originals count minutes of wall time).
//
// mindspore (ccsrc/tools/silent_detect/silent_detector.cc):
//   SilentDetector::CheckValueWithCoolDown: an alarm is a "strike" iff
//     prev_strike + cooldown < t (one prev_strike per rank, over all
//     parameters); without the CheckSum a strike is all there is (a WARNING);
//   ProcessStrike (with_checksum only): ignored while the CheckSum runs; else
//     queued, and the oldest dropped only while the queue holds more than
//     strikes_num strikes older than strikes_window;
//   DetectStrikeout, every 10 s: nothing within checksum_cooldown of the last
//     CheckSum; else a queue of >= strikes_num strikes on any rank starts the
//     CheckSum on every rank for `cooldown`, then the queues are cleared.
// torch_npu (torch_npu/asd/asd.py, _MatmulSilentCheck):
//   _abnormal_process: an alarm is "counted" iff it is >= cooldown after the
//     last counted one; a counted alarm strikes out with the strikes_num - 1
//     latest counted ones before it (the latest even if already struck, the
//     others only if not) when the oldest of them is within strikes_window;
//     a strike-out is the WARNING, and with the CheckSum it sets the rank's
//     checksum_state; entries older than strikes_window are dropped;
//   _tcp_comm_checksum_state, every 10 s: if any rank's state is set, the
//     CheckSum runs on every rank for `cooldown` unless one started within
//     checksum_cooldown (strictly more must have passed), and the states are
//     reset (a strike-out during a CheckSum is lost).
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace sdc::silent {

enum class asd_variant { mindspore, torch_npu };
asd_variant parse_asd_variant(const std::string& s);  // value_error unless mindspore | torch_npu
const char* asd_variant_name(asd_variant v);

struct strike_params {
  double cooldown = 5 * 60;            // seconds
  int64_t strikes_num = 3;
  double strikes_window = 480 * 60;    // seconds
  double checksum_cooldown = 180 * 60; // seconds
  double poll = 10;                    // seconds between the originals' polling-thread passes
  bool with_checksum = false;
  std::string invalid() const;
};

struct alarm_result {
  bool counted = false;     // mindspore: a strike; torch_npu: a counted (event-logged) alarm
  bool struck_out = false;  // torch_npu: the strike-out warning (mindspore: never here)
};

// One rank's bookkeeping.
class rank_strikes {
 public:
  rank_strikes(asd_variant v, strike_params p) : v_(v), p_(p) {}
  alarm_result alarm(double t, bool checksum_running);
  bool pending() const;  // a strike-out waits for the polling thread
  void clear_pending();  // after a poll that saw it (torch_npu) or a CheckSum (mindspore)

 private:
  struct abnormal {
    double time;
    bool counted, striked;
  };
  alarm_result torch_npu_alarm(double t);

  asd_variant v_;
  strike_params p_;
  double prev_strike_ = -1e300;      // mindspore
  std::deque<double> queue_;         // mindspore
  std::vector<abnormal> history_;    // torch_npu
  bool checksum_state_ = false;      // torch_npu
};

// The polling thread, which the ranks run in lock-step (one clock for all).
class checksum_clock {
 public:
  checksum_clock(asd_variant v, strike_params p) : v_(v), p_(p) {}
  void reset(double t0) { next_poll_ = t0 + p_.poll, start_ = end_ = -1e300, started_ = false; }
  // Runs the passes due at or before t; `ranks` pending strike-outs. Returns
  // true if a CheckSum started (it covers the steps in (start, start + cooldown]).
  bool poll(double t, std::vector<rank_strikes>& ranks);
  bool running(double t) const { return t > start_ && t <= end_; }
  double started_at() const { return start_; }  // the latest CheckSum's start (-1e300: none yet)

 private:
  asd_variant v_;
  strike_params p_;
  double next_poll_ = 0, start_ = -1e300, end_ = -1e300;
  bool started_ = false;
};

}  // namespace sdc::silent
