// The mixture workload's cells (mixture_cell.hpp).
#include "workloads/mixture/mixture_cell.hpp"

#include <cmath>
#include <regex>

#include "foundation/axis.hpp"
#include "foundation/errors.hpp"

namespace sdc {

shift_spec parse_shift(const std::string& v) {
  static const std::regex crit(R"(crit\(([0-9.eE+-]+)\))");
  std::smatch m;
  try {
    if (std::regex_match(v, m, crit)) return {true, std::stod(m[1])};
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size()) return {false, x};
  } catch (const std::exception&) {
  }
  throw value_error("expected a shift: a number (Delta) or crit(R) (R x Delta_crit); got '" + v + "'");
}

double parse_fraction(const std::string& v) {
  size_t used = 0;
  double p = -1;
  try {
    p = std::stod(v, &used);
  } catch (const std::exception&) {
  }
  if (!(p > 0 && p < 1) || used != v.size()) throw value_error("p: expected a number in (0, 1); got '" + v + "'");
  return p;
}

mix_cell parse_mix_cell(const cell& c) {
  mix_cell g;
  g.base = parse_distribution(c.at("base"), c.base_dir);
  g.n = std::stoll(c.at("n"));
  g.p = parse_fraction(c.at("p"));
  g.shift = parse_shift(c.at("shift"));
  if (g.base.k == distribution::kind::normal) g.crit = delta_crit(g.base.p[1], g.p);
  g.delta = g.shift.relative ? (g.crit ? g.shift.value * g.crit->delta : NAN) : g.shift.value;
  return g;
}

}  // namespace sdc
