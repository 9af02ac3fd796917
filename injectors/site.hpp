// Where a fault lands, and when.
//   Site rules (the `site` axis): uniform (any element, uniformly), at(I,J) (a
//   fixed element; a vector is at(0,J)), row(I) (uniform within row I), col(J)
//   (uniform within column J), max_abs (every element tied for the largest |x|,
//   NaN left out: 003's multiply_max with multiply(F); inject_max_abs applies it).
//   Multi-element patterns (inject_pattern applies them; measured GPU SDCs
//   corrupt several values of a tile at once more often than one): run(L),
//   L consecutive elements in row-major order from a uniform start; strided(S,L),
//   L elements S apart from a uniform start (every 32nd element: a broken
//   lane); full_row and full_col, every element of a uniformly drawn row or
//   column of the 2-D view (a GEMM tile's row or column). A pattern longer
//   than the tensor is cut to it.
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
  enum class kind { uniform, at, row, col, max_abs, run, strided, full_row, full_col };
  kind k = kind::uniform;
  int64_t i = 0, j = 0;  // at, row, col; run: i = L; strided: i = S, j = L

  std::string text() const;
  // Empty when the rule fits a rows x cols tensor; else why it does not.
  std::string check(int64_t rows, int64_t cols) const;
  // More than one element: max_abs and the patterns (inject_pattern).
  bool multi() const { return k != kind::uniform && k != kind::at && k != kind::row && k != kind::col; }
  // A flat row-major index drawn by the rule (one-element rules only).
  int64_t draw(int64_t rows, int64_t cols, rng& g) const;
  // The flat row-major indices a pattern draws, in increasing order (not max_abs: the data decide).
  std::vector<int64_t> draw_pattern(int64_t rows, int64_t cols, rng& g) const;
};
site_rule parse_site_rule(std::string_view text);
// A rule that picks one element (not max_abs, no pattern): the kernel workloads' `site` axis.
site_rule single_site(std::string_view text);

// When a fault plan fires: always, cycle(START,EVERY), specific(S1,...), or
// uniform(A,B): one step per episode drawn uniformly from A..B (inclusive)
// from the episode's own stream (episode_schedule, protocol/workload.hpp),
// so a check that looks at some steps only is not favoured by where a suite
// puts its faults.
struct step_schedule {
  enum class kind { always, cycle, specific, uniform };
  kind k = kind::always;
  int64_t start = 0, every = 1;  // cycle; uniform: A = start, B = every
  std::vector<int64_t> steps;

  std::string text() const;
  // Not for uniform, which is drawn first (drawn()).
  bool fires(int64_t step) const;
  // uniform(A,B) -> specific(S) with S drawn from g; any other: itself.
  step_schedule drawn(rng& g) const;
  // The first step it can fire at (uniform: A).
  int64_t earliest() const;
};
step_schedule parse_step_schedule(std::string_view text);

}  // namespace sdc
