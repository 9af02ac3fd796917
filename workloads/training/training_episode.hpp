// The training workload's episodes: the runner that plays an episode of K
// data-parallel steps from the fork checkpoint (training_fork.hpp) with the
// plan applied inside the step, then compares it with its clean twin for the
// ground truth. A cell's typed axes: training_cell.hpp.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/workload.hpp"
#include "workloads/training/training_cell.hpp"

namespace sdc::train {

std::unique_ptr<episode_runner> make_training_runner(const training_cell& g, uint64_t seed, const std::vector<detector_needs>& needs);

}  // namespace sdc::train
