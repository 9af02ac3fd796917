// Where a fault lands, and when.
//   Site rules (the `site` axis): uniform (any element, uniformly), at(I,J) (a
//   fixed element; a vector is at(0,J)), row(I) (uniform within row I), col(J)
//   (uniform within column J), max_abs (every element tied for the largest |x|,
//   NaN left out: 003's multiply_max with multiply(F); inject_max_abs applies it).
//   Step schedules (the `cycle`/`specific` error modes of 003_dc12117c3d941011.txt):
//   cycle(START,EVERY) fires at steps START+EVERY, START+2 EVERY, ... (003: step -
//   START > 0 and divisible by EVERY, never at START itself); specific(S1,S2,...)
//   fires at the listed steps; always fires at every step. Multi-step workloads
//   ask the schedule whether a step gets a fault.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/random/streams.hpp"

namespace sdc {

struct site_rule {
  enum class kind { uniform, at, row, col, max_abs };
  kind k = kind::uniform;
  int64_t i = 0, j = 0;

  std::string text() const;
  // Empty when the rule fits a rows x cols tensor; else why it does not.
  std::string check(int64_t rows, int64_t cols) const;
  // A flat row-major index drawn by the rule (not for max_abs: the data decide).
  int64_t draw(int64_t rows, int64_t cols, rng& g) const;
};
site_rule parse_site_rule(std::string_view text);
// A rule that picks one element (not max_abs): the kernel workloads' `site` axis.
site_rule single_site(std::string_view text);

struct step_schedule {
  enum class kind { always, cycle, specific };
  kind k = kind::always;
  int64_t start = 0, every = 1;
  std::vector<int64_t> steps;

  std::string text() const;
  bool fires(int64_t step) const;
};
step_schedule parse_step_schedule(std::string_view text);

}  // namespace sdc
