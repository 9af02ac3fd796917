// Fault models: what a fault does to the bits of one element.
//   bitflip            flip the bit(s) of the `bit` axis (one bit, or a list "exp1+exp2")
//   bitflip_random(k,FIELD)  flip k distinct random bits within FIELD (exp, mant, sign, all, value, LO-HI)
//   flip_0to1 / flip_1to0    directed flip of the `bit` axis bit: applies only where the
//                            bit holds the source value; the site is resampled otherwise
//   stuck_at_0 / stuck_at_1  force the bit(s) to 0/1 (no change if already there: recorded as masked)
//   random_value       the element becomes a pattern drawn uniformly from all 2^bits
//                      encodings, other than the old one ("random data fluctuation", 004)
//   multiply(F)        value * F, rounded to the format ("multiply" of 003)
//   add(D)             value + D, rounded to the format (000's shifted mixtures)
//   set_max            the largest finite magnitude, sign kept
//   mix(S,N)           the measured mix of corrupted values: per fault, with probability S
//                      one random bit of the element flips, with probability N it becomes
//                      NaN or +-Inf (equally likely, sign kept: float formats only), and
//                      otherwise a random_value (a multi-bit corruption; about half the bits
//                      differ). GPU SDC studies find single-bit flips a minority of corrupted
//                      values and NaN/Inf about 1 % (issue 32): e.g. mix(0.3,0.01)
//   bitflip_designed   set the highest exponent bit that is 0 (003's `bitflip_designed`);
//                      directed: an element whose exponent is all ones is resampled
//   exp_growth         000's eq. 2 (000_60f7924e74842bcb.txt): x 2^(2^(n-i-1)) for the
//                      exponent bit i (0 = the exponent's leading bit, n exponent bits) of
//                      the `bit` axis, whatever the bit holds: what a 0->1 flip of that
//                      bit adds to the exponent (bf16 exp1/exp2/exp3: x 2^128, 2^64,
//                      2^32), rounded to the format (Inf past its range). The literal
//                      XOR of eq. 1 is `bitflip`, which shrinks |x| < 2 at exp2, exp3
// 003's `multiply_max` is multiply(F) at site max_abs (every element tied for
// the largest |x|); its `bitflip` at bit_pos P counted from the MSB is our
// bitflip at canonical bit (bits - 1 - P).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/formats/bit_fields.hpp"
#include "foundation/random/streams.hpp"

namespace sdc {

struct fault_model {
  enum class kind { bitflip, bitflip_random, flip_0to1, flip_1to0, stuck_at_0, stuck_at_1, random_value, multiply, add, set_max, bitflip_designed, exp_growth, mix };
  kind k = kind::bitflip;
  double factor = 1;    // multiply: F; add: D; mix: S
  double nonfinite = 0;  // mix: N
  int count = 1;        // bitflip_random
  bit_set_ref field{};  // bitflip_random

  std::string text() const;
  // Whether the model takes its bits from the `bit` axis.
  bool uses_bit_axis() const;
  // Whether the model applies to a site only when the site's bits allow it.
  bool is_directed() const { return k == kind::flip_0to1 || k == kind::flip_1to0 || k == kind::bitflip_designed; }
  // Whether the new bits come from random draws (a recurring fault replays them as XOR masks).
  bool draws_values() const { return k == kind::bitflip_random || k == kind::random_value || k == kind::mix; }
};

fault_model parse_fault_model(std::string_view text);
std::vector<std::string> fault_model_names();

// The `bit` axis value: "none", one bit, or bits joined by '+'.
struct bit_choice {
  std::vector<bit_ref> bits;  // empty = none
  std::string text() const;
  std::optional<std::vector<int>> resolve(const format& f, std::string* why) const;
};
bit_choice parse_bit_choice(std::string_view text);

// The bits a fault of model `m` uses on an element of format `f`, given the
// cell's `bit` axis value: the bit axis for bit models, bitflip_random's
// field, or none. nullopt when the combination cannot run; `why` says why and
// `axis` names the axis to blame ("bit" or "fault").
std::optional<std::vector<int>> resolve_fault_bits(const fault_model& m, const bit_choice& bits, const format& f,
                                                   std::string* why, std::string* axis);

// Applies a model to the bits of one element. nullopt when the model does not
// apply here (directed flip whose bit is already at the target value).
std::optional<uint64_t> apply_fault(const fault_model& m, const format& f, const std::vector<int>& bits,
                                    uint64_t old_bits, rng& g);

}  // namespace sdc
