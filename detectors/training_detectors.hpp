// The training detector family: checks on one rank's step before the
// all-reduce (protocol/views/training_view.hpp). per_rank() runs them on
// every rank and blames the rank that fired.
#pragma once
#include <cmath>
#include <span>
#include <vector>

#include "protocol/detector.hpp"
#include "protocol/views/training_view.hpp"

namespace sdc {

class training_detector : public detector {
 public:
  virtual verdict check(const training_step& s) = 0;
  verdict observe(const step_view& v) override { return check(view_cast<training_step>(v, view_kind::training)); }
};

// Every rank's view of a step, for the checks that see all ranks at once.
inline std::vector<const training_step*> training_steps(const std::vector<const step_view*>& views) {
  std::vector<const training_step*> s;
  for (const auto* x : views) s.push_back(&view_cast<training_step>(*x, view_kind::training));
  return s;
}

// 003's feature value of a gradient: max g^2 in fp32 (torch.pow(torch.norm(g,
// inf), 2); MindSpore's Square then Max), NaN if any element is NaN; the square
// overflows to Inf as the originals' does.
inline double max_square(std::span<const float> g) {
  float m = 0;
  bool nan = false;
  for (float x : g) {
    const float a = std::fabs(x);
    nan |= a != a;
    m = a > m ? a : m;
  }
  return nan ? std::nan("") : double(m * m);
}

}  // namespace sdc
