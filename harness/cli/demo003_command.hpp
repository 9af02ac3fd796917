// `sdcbench demo003 silent_check|silent_detect`: 003_dc12117c3d941011.txt's two
// demo scripts as written (demo003_scripts.hpp), their log lines beside the
// lines the paper shows (marked "paper"), and the facts the paper's logs
// state (which device, which step, NaN, whether training stops, the strike's
// parameter and count, the CheckSum's verdict) as measured over `seeds`
// initializations with 95 % Wilson intervals.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc {

struct demo003_options {
  std::string script;       // silent_check | silent_detect
  int npu_asd_enable = 1;   // silent_check: NPU_ASD_ENABLE = 1, 2 or 3
  int64_t init_seed = 1;    // the run whose lines are printed
  int64_t seeds = 1;        // runs with init seeds init_seed .. init_seed + seeds - 1
  int64_t steps = 0;        // 0: the script's own (20; 200)
  std::string out;          // JSON (sdcbench.demo003/1)
  std::vector<std::string> argv;
};

int run_demo003(const demo003_options& o);

}  // namespace sdc
