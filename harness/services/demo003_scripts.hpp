// 003_dc12117c3d941011.txt's two demo scripts with their checks wired in, one
// run each: the networks (workloads/ascend_demos/), GenerateEodMaskV2 from
// injectors/ (bitflip_designed on device 2, multiply x1.0 elsewhere, at
// ele_pos 1 resp. 0, error_mode cycle, steps [5], start 0), and the checks
// from detectors/: SilentCheckV3 on every backward communication operator
// (silent_check.py with NPU_ASD_ENABLE), MindSpore's feature value with its
// strikes and CheckSum on every parameter (silent_detect.py with
// MS_NPU_ASD_CONFIG "enable:true,with_checksum:true,grad_sample_interval:1,
// cooldown:1,strikes_num:1"). Each check writes the log line its original
// writes (CANN's silent_check_v3.cc ComputeL1Error / normal case; MindSpore's
// silent_detector.cc SilentDetect, DetectStrikeout and DoCheckSum).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc::demo003 {

struct log_line {
  int device = 0;
  int64_t step = 0;
  double time = 0;    // simulated seconds from the start (silent_detect: one step a second, time.sleep(1))
  std::string where;  // the communication operator or parameter
  std::string level;  // ERROR, WARNING, INFO
  std::string text;   // as the original prints it
  double value = 0;   // the checked value (max g^2)
};

struct script_run {
  std::vector<log_line> lines;
  int64_t steps_done = 0;
  bool stopped = false;
  std::vector<double> loss;  // silent_check: the mean loss; silent_detect: the mean output
};

// NPU_ASD_ENABLE = 1, 2 or 3; steps 0: the script's 20.
script_run run_silent_check(int npu_asd_enable, uint32_t init_seed, int steps);
// steps 0: the script's 200.
script_run run_silent_detect(uint32_t init_seed, int steps);

}  // namespace sdc::demo003
