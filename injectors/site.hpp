// Where a fault lands, and when.
//   Site rules (the `site` axis): uniform (any element, uniformly), at(I,J) (a
//   fixed element; a vector is at(0,J)), row(I) (uniform within row I), col(J)
//   (uniform within column J).
//   Step schedules (the `cycle`/`specific` error modes of 003_dc12117c3d941011.txt):
//   cycle(START,EVERY) fires at steps START, START+EVERY, ...; specific(S1,S2,...)
//   fires at the listed steps; always fires at every step. Multi-step workloads
//   ask the schedule whether a step gets a fault.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/random/streams.hpp"

namespace sdc {

struct site_rule {
  enum class kind { uniform, at, row, col };
  kind k = kind::uniform;
  int64_t i = 0, j = 0;

  std::string text() const;
  // Empty when the rule fits a rows x cols tensor; else why it does not.
  std::string check(int64_t rows, int64_t cols) const;
  // A flat row-major index drawn by the rule.
  int64_t draw(int64_t rows, int64_t cols, rng& g) const;
};
site_rule parse_site_rule(std::string_view text);

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
