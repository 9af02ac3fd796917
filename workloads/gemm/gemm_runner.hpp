// The GEMM workload's episode runner: one trial is one step (the pair's data,
// the kernel, the fault in a copy of the target, the views); its ground truth
// is the worst changed output element against MPFR, and each located
// correction is judged against the exact value (gemm_truth.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/workload.hpp"
#include "workloads/gemm/gemm_cell.hpp"

namespace sdc {

// A runner for a cell of the gemm workload (fp64 cells in double, the others
// in float with their own rounding), seeded as the engine asks.
std::unique_ptr<episode_runner> make_gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs);

// A block-scaled cell's runner (block_gemm_runner.cpp).
std::unique_ptr<episode_runner> make_block_gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs);

}  // namespace sdc
