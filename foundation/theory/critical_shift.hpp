// Theorem 1 of 000_60f7924e74842bcb.txt, Appendix B.2: the critical shift
// Delta_crit(p, sigma) above which the mixture (1 - p) N(0, sigma^2) +
// p N(Delta, sigma^2) of log2-magnitudes is bimodal (a stationary point with
// f' = f'' = 0 appears between the modes). With y* = (Delta +- sqrt(Delta^2 -
// 4 sigma^2)) / 2, Delta_crit is the smallest Delta >= 2 sigma solving
//   ln((1 - p) y* / (p (Delta - y*))) = (y* Delta - Delta^2 / 2) / sigma^2.
// The flipped exponent bit it corresponds to (Table 3): position =
// n - 1 - log2(Delta_crit), n the exponent width (8 for bf16 and fp32).
#pragma once
#include <optional>

namespace sdc {

struct critical_shift {
  double delta = 0;    // Delta_crit
  double y_star = 0;   // the stationary point, measured from the clean mode
  int root_sign = +1;  // which root of y* gave the first solution
};

// nullopt when no Delta in [2 sigma, 2 sigma + 200 sigma] solves the system
// (p >= 1/2 among them: then the bigger component is the shifted one).
std::optional<critical_shift> delta_crit(double sigma, double p);
double exponent_position(double delta, int exponent_bits);

// The mixture's density and its derivatives at y (for tests and the simulation):
// f(y) = (1 - p) phi(y) + p phi(y - Delta), phi the N(0, sigma^2) density.
double mixture_density(double y, double sigma, double p, double delta, int derivative);

}  // namespace sdc
