// `sdcbench calibrate`: runs the e_max calibration (harness/services/
// gemm_calibration.hpp), writes its file and prints its table.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "harness/services/gemm_calibration.hpp"

namespace sdc {

// Checks the accumulation orders, runs the protocol (progress on stderr when
// it is a terminal), writes `out` and prints the table; the exit code.
int run_calibrate(calibration_request r, const std::string& out);
// One line per (dtype, accumulation, point): e_max, e_max/u, CV, R^2, and per size.
std::string calibration_table(const nlohmann::json& cal);

}  // namespace sdc
