#include "harness/cli/demo003_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "foundation/scoring/proportions.hpp"
#include "harness/results/result_set.hpp"
#include "harness/services/demo003_study.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using demo003::log_line;
using demo003::script_run;

// The lines 003_dc12117c3d941011.txt shows (Use Cases), device and message,
// without the CANN prefix (process, thread, wall time, log file line).
using paper_lines = std::vector<std::string>;

paper_lines paper_silent_check(int level) {
  const std::string tail = ", c_thresh_l1 = [1.000000e+06], c_thresh_l2 = [1.000000e+04], beta1 = [9.900000e-01], npu_asd_detect = [";
  auto err = [&](int dev, const char* avg, int step, int lvl) {
    return fmt::format("device-{} [ERROR] [silent_check_v3.cc:250][ComputeL1Error] SilentCheckV3 ComputeL1Error:val = [nan], max = [nan], avg=[{}], step=[{}]{}{}].",
                       dev, avg, step, tail, lvl);
  };
  if (level == 1)
    return {err(0, "1.128970e-09", 5, 1), err(0, "6.995705e-08", 6, 1), err(0, "nan", 6, 1), err(0, "1.526131e-09", 6, 1), err(0, "nan", 7, 1),
            err(0, "nan", 7, 1)};
  if (level == 2) return {err(2, "5.752283e-08", 5, 2)};
  const std::string info = ", c_threshold_l1=[1.000000e+06], c_threshold_l2=[1.000000e+04], beta1=[9.900000e-01], npu_asd_detect=[3].";
  return {"device-2 [INFO] [silent_check_v3.cc:240][SilentCheck] SilentCheckV3 normal case, val=[3.350337e-08], max=[3.350337e-08], avg=[9.879098e-10], step=[4]" + info,
           "device-2 [INFO] [silent_check_v3.cc:240][SilentCheck] SilentCheckV3 normal case, val=[2.016393e+02], max=[2.016393e+02], avg=[7.349676e+00], step=[4]" + info,
          err(2, "5.752281e-08", 5, 3)};
}

paper_lines paper_silent_detect() {
  return {"worker_0 [WARNING] [silent_detector.cc:109] SilentDetect] Silent detect strike detected: StrikeRecord{timestamp: 1756176386, name: fc1.weight, "
           "value: inf, stat: StatData{avg: 6.44326e+12, pre_value: 6.441e+14, count: 6, none_zero_count: 6}}",
           "worker_0 [WARNING] [silent_detector.cc:316] DoCheckSum] Global CheckSum result is 0   (62 s after the strike)"};
}

json line_json(const log_line& l) {
  return {{"device", l.device}, {"step", l.step}, {"time", l.time}, {"where", l.where}, {"level", l.level}, {"value", std::isfinite(l.value) ? json(l.value) : json(fmt::format("{}", l.value))},
          {"text", l.text}};
}

bool is_strike(const log_line& l) { return l.text.find("strike detected") != std::string::npos; }

std::string prefix(const std::string& script, const log_line& l) {
  return script == "silent_check" ? fmt::format("device-{} [{}] ", l.device, l.level) : fmt::format("worker_{} [{}] ", l.device, l.level);
}

}  // namespace

int run_demo003(const demo003_options& o) {
  if (o.script != "silent_check" && o.script != "silent_detect") throw input_error("SCRIPT", o.script, "expected silent_check or silent_detect");
  if (o.npu_asd_enable < 1 || o.npu_asd_enable > 3) throw input_error("--npu-asd-enable", std::to_string(o.npu_asd_enable), "expected 1, 2 or 3");
  if (o.seeds < 1) throw input_error("--seeds", std::to_string(o.seeds), "expected an integer >= 1");
  if (o.init_seed < 0 || o.init_seed + o.seeds - 1 > int64_t(UINT32_MAX)) throw input_error("--init-seed", std::to_string(o.init_seed), "expected 0 .. 2^32 - seeds");
  if (o.steps < 0) throw input_error("--steps", std::to_string(o.steps), "expected an integer >= 0 (0: the script's own)");
  const bool check = o.script == "silent_check";
  const json prov = provenance(o.argv, 1, uint64_t(o.init_seed), now_iso8601(), int8_gemm_kernel_name());
  const demo003::study st = demo003::run_study({check ? demo003::script::silent_check : demo003::script::silent_detect, o.npu_asd_enable,
                                                uint32_t(o.init_seed), o.seeds, int(o.steps)});
  json runs = json::array();
  for (const auto& r : st.runs) {
    json f = json::object();
    for (size_t i = 0; i < st.facts.size(); ++i) f[st.facts[i]] = bool(r.holds[i]);
    runs.push_back({{"init_seed", r.init_seed}, {"steps_done", r.steps_done}, {"stopped", r.stopped}, {"lines", r.lines}, {"facts", f}});
  }
  const script_run& r = st.first;
  json lines = json::array();
  for (const auto& l : r.lines) lines.push_back(line_json(l));
  const json first_run = {{"init_seed", o.init_seed}, {"steps_done", r.steps_done}, {"stopped", r.stopped}, {"loss", r.loss}, {"lines", lines}};
  fmt::print("== ours (init seed {}, this machine): {} log lines{}\n", o.init_seed, r.lines.size(), r.stopped ? fmt::format(", training stopped at step {}", r.steps_done) : "");
  size_t shown = 0;
  for (const auto& l : r.lines) {
    if (!check && !is_strike(l) && l.text.find("CheckSum") == std::string::npos) continue;
    if (check && l.level != "ERROR" && !(l.level == "INFO" && l.step >= 3 && l.step <= 4)) continue;
    if (shown++ == 24) fmt::print("   ...\n");
    if (shown > 24) continue;
    fmt::print("t={:>4.0f}s  {}{}   <- {}\n", l.time, prefix(o.script, l), l.text, l.where);
  }
  fmt::print("== paper (003_dc12117c3d941011.txt, Use Cases{}; MindSpore's own initializers: values differ from ours)\n",
             check ? fmt::format(", NPU_ASD_ENABLE={}", o.npu_asd_enable) : "");
  for (const auto& l : (check ? paper_silent_check(o.npu_asd_enable) : paper_silent_detect())) fmt::print("          {}\n", l);
  json summary = json::array();
  fmt::print("== what the paper's log states, over {} initializations (95% Wilson interval)\n{:<64} {:>6} {:>24}\n", o.seeds, "fact", "paper", "ours");
  for (size_t i = 0; i <= st.facts.size(); ++i) {
    const interval ci = wilson_interval(st.holds[i], o.seeds);
    const std::string name = i < st.facts.size() ? st.facts[i] : "all of the above (the paper's outcome)";
    fmt::print("{:<64} {:>6} {:>7}/{:<4} [{:5.1f},{:5.1f}]%\n", name, "yes", st.holds[i], o.seeds, 100 * ci.lo, 100 * ci.hi);
    summary.push_back({{"fact", name}, {"paper", "yes"}, {"holds", st.holds[i]}, {"runs", o.seeds}, {"ci95", {ci.lo, ci.hi}}});
  }
  if (!o.out.empty()) {
    const json doc = {{"schema", "sdcbench.demo003/1"}, {"script", o.script}, {"npu_asd_enable", check ? json(o.npu_asd_enable) : json(nullptr)},
                      {"steps", o.steps}, {"seeds", o.seeds}, {"provenance", prov}, {"first_run", first_run}, {"facts", summary}, {"runs", runs}};
    write_json_atomic(o.out, doc);
    fmt::print("written: {}\n", o.out);
  }
  return 0;
}

}  // namespace sdc
