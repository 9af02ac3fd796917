// How long a training fault lives (the `lifetime` axis), and the injectors
// that make a permanent one recur:
//   transient  the corruption happens where and when the plan fires, once: a
//              recomputation of that step (a rerun, a replay) is clean, as a
//              particle strike or a marginal timing error would leave it;
//   permanent  a broken unit of the plan's rank (a stuck bit, a broken lane):
//              from the plan's step on, the fault its first firing made
//              recurs every time that device computes the site, at the same
//              elements (and a defective GEMM corrupts the same products): the
//              fault model applied again to what the element now holds (a
//              stuck_at bit is forced, a bitflip flips), or, for a model that
//              draws its value (bitflip_random, random_value), the first
//              firing's bit changes XORed in again. At every later step of
//              the run, and in every recomputation on that device, whoever's
//              data it computes. In stored state (weight:, adam_m:, adam_v:)
//              a fault stays by itself until the optimizer writes the element
//              again, so there the broken unit is a stuck memory cell: the bits
//              the first firing changed keep the values it gave them, forced
//              again as each step begins on that rank (after every write), and
//              a stuck_at model forces its bits whether or not the first
//              firing changed them. (Flipping again would undo a flip the
//              write kept: an exponent flip that made a weight huge survives
//              AdamW's small update.)
//   intermittent(P_ON,P_OFF)  a unit that misbehaves in bursts: as permanent,
//              but only on the steps its device is on. It is on at the plan's
//              step; from each step to the next an on device turns off with
//              probability P_OFF and an off one on with P_ON (a two-state
//              Markov chain over steps, drawn from the episode's own lifetime
//              stream, so every detector sees the same bursts). Within a step
//              every computation on the device, recomputations included, sees
//              that step's state.
// Megatron-LM's rerun state machine labels a rejected result by the same
// distinction (RerunDiagnostic: TRANSIENT_ERROR, not reproducible on the same
// GPU; PERSISTENT_ERROR, reproducible there but not on another).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc::train {

struct fault_lifetime {
  enum class kind { transient, permanent, intermittent };
  kind k = kind::transient;
  double p_on = 0, p_off = 0;  // intermittent: per step, off -> on and on -> off
  std::string text() const;
  bool recurs() const { return k != kind::transient; }
  // Whether the device is on at `step` (steps after the first, which is on), given u(s) uniform on [0, 1) per step.
  template <class Uniform>
  std::vector<bool> states(int64_t first, int64_t last, Uniform u) const {
    std::vector<bool> on;
    for (int64_t s = first; s <= last; ++s) {
      if (s == first || k == kind::permanent) on.push_back(true);
      else on.push_back(on.back() ? u(s) >= p_off : u(s) < p_on);
    }
    return on;
  }
};
fault_lifetime parse_fault_lifetime(const std::string& text);  // value_error naming the choices

// What a plan's first firing did at its site, in call order: the draws a
// defective GEMM made and each apply's elements and XOR masks.
struct fault_recording {
  struct flip {
    int64_t index = -1;
    uint64_t mask = 0;   // old bits ^ new bits
    uint64_t value = 0;  // the new bits
  };
  struct event {
    bool draw = false;
    double u = 0;             // draw: the value drawn
    std::vector<flip> flips;  // apply: each element it changed
  };
  int device = -1;      // the rank it hit; -1: nothing recorded yet
  int64_t step = -1;    // the global training step of the first firing
  std::vector<event> events;
};

// Passes the driver's injector through and, while `into` is given, records
// what it does.
class recording_injector final : public step_injector {
 public:
  recording_injector(step_injector& inner, fault_recording* into) : inner_(inner), into_(into) {}
  bool fires(int rank) const override { return inner_.fires(rank); }
  bool apply(fault_target& t) override;
  double uniform01() override;
  const std::vector<injection_record>& records() const override { return inner_.records(); }

 private:
  step_injector& inner_;
  fault_recording* into_;
};

// Plays a recording back on its device: the same draws, and at the same
// elements of whatever the site's tensor now holds `spec`'s model again (or
// the recorded XOR masks, for a model that draws its value); at a `stored`
// site, the recorded bits forced to their recorded values (a stuck cell).
class replaying_injector final : public step_injector {
 public:
  replaying_injector(const fault_recording& r, const fault_spec& spec, bool stored) : r_(r), spec_(spec), stored_(stored) {}
  bool fires(int rank) const override { return rank == r_.device; }
  bool apply(fault_target& t) override;
  double uniform01() override;
  const std::vector<injection_record>& records() const override { return none_; }

 private:
  const fault_recording& r_;
  const fault_spec& spec_;
  bool stored_;
  size_t next_ = 0;
  std::vector<injection_record> none_;
};

}  // namespace sdc::train
