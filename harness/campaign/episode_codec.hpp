// Episode results as bytes, for campaigns spread over processes
// (distributed.*): a worker runs a chunk of a cell's episodes and ships their
// results to rank 0, which adds each cell up exactly as one process would.
// MessagePack (nlohmann::json) keeps every double's bits, NaN and Inf
// included, so the cells are byte-identical to a one-process run.
#pragma once
#include <cstdint>
#include <vector>

#include "harness/campaign/trial_driver.hpp"

namespace sdc {

std::vector<uint8_t> encode_episodes(const std::vector<episode_result>& r);
std::vector<episode_result> decode_episodes(const std::vector<uint8_t>& bytes);

}  // namespace sdc
