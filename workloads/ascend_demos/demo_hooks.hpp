// What 003's demo networks (silent_check_mlp, silent_detect_dense) let a
// caller see and change, so that the fault operator and the checks stay in
// their own layers (the CLI wires injectors/ and detectors/ to these hooks).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace sdc::demo003 {

struct demo_hooks {
  // MindSpore's GenerateEodMaskV2 at the script's place: `x` is the rank's
  // local tensor (row-major), `cur_step` the operator's own counter (0 at the
  // first step: the scripts' cur_step Parameter starts at -1 and is
  // incremented before the call).
  std::function<void(int64_t cur_step, int rank, std::span<float> x)> eod_mask;
  // A gradient about to enter a communication operator of the backward graph
  // on `rank`: where MindSpore checks. Called for every rank of one operator
  // before the operator runs (the ranks meet there). Return false to stop
  // the job before the operator (a check that raised: NPU_ASD_ENABLE=2, 3).
  std::function<bool(int64_t step, int rank, std::string_view op, std::span<const float> grad)> backward_comm;
};

}  // namespace sdc::demo003
