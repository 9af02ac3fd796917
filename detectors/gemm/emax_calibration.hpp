// Reads an e_max calibration file ("sdcbench.emax/1", written by `sdcbench
// calibrate`, harness/services/gemm_calibration.cpp) for V-ABFT's e_max "calibrated".
#pragma once
#include <cstdint>
#include <string>

namespace sdc {

// The calibrated e_max for (dtype, accumulation, point) at size `n` (the
// larger of the GEMM's K and N): the value measured at the smallest calibrated
// size >= n; above the largest, the sqrt(N) fit extrapolated (never below the
// largest measured value). An input_error names the file and missing entry.
double calibrated_emax(const std::string& file, const std::string& dtype, const std::string& accumulation,
                       const std::string& point, int64_t n);

}  // namespace sdc
