// Wall-clock seconds of the overhead columns (a kernel's or a detector's time
// in a trial): the steady clock, which no clock adjustment moves.
#pragma once

#include <chrono>

namespace sdc {

using clock_type = std::chrono::steady_clock;

inline double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

}  // namespace sdc
