// The computation behind `sdcbench demo003`: one of 003_dc12117c3d941011.txt's
// demo scripts (demo003_scripts.hpp) run over `seeds` initializations, and on
// each run the facts the paper's logs state (which device, which step, NaN,
// whether training stops, the strike's parameter and count, the CheckSum's
// verdict) checked. The command prints the first run's lines beside the
// paper's and the facts with their intervals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/services/demo003_scripts.hpp"

namespace sdc::demo003 {

enum class script { silent_check, silent_detect };

struct study_request {
  script which = script::silent_check;
  int npu_asd_enable = 1;  // silent_check: NPU_ASD_ENABLE = 1, 2 or 3
  uint32_t init_seed = 1;  // the first run's; runs take init_seed .. init_seed + seeds - 1
  int64_t seeds = 1;
  int steps = 0;           // 0: the script's own (20; 200)
};

struct run_facts {
  int64_t init_seed = 0, steps_done = 0;
  bool stopped = false;
  size_t lines = 0;
  std::vector<bool> holds;  // one per fact
};

struct study {
  std::vector<std::string> facts;  // what the paper's log states, in order
  script_run first;                // the run of init_seed, its lines
  std::vector<run_facts> runs;
  std::vector<int64_t> holds;      // runs where each fact holds; the last: every fact at once
};

study run_study(const study_request& r);

}  // namespace sdc::demo003
