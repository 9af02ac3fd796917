// A mixture workload cell, typed once from the suite's axis values (base, n,
// p, shift), with the shift it applies and, for a normal base, Appendix B.2's
// critical shift.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>

#include "foundation/random/distributions.hpp"
#include "foundation/theory/critical_shift.hpp"
#include "protocol/workload.hpp"

namespace sdc {

// `shift`: a number (Delta in the values' units) or crit(R) (R x Delta_crit).
struct shift_spec {
  bool relative = false;  // crit(R)
  double value = 0;
  std::string text() const { return relative ? fmt::format("crit({})", value) : fmt::format("{}", value); }
};
// A value_error with the expected syntax on a bad value.
shift_spec parse_shift(const std::string& v);
// `p`: a number in (0, 1); a value_error else.
double parse_fraction(const std::string& v);

struct mix_cell : typed_cell {
  distribution base;
  int64_t n = 0;
  double p = 0;
  shift_spec shift;
  std::optional<critical_shift> crit;  // normal base only
  double delta = 0;                    // the shift applied
};

mix_cell parse_mix_cell(const cell& c);

}  // namespace sdc
