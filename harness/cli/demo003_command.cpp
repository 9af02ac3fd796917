#include "foundation/kernels/int8/int8_kernels.hpp"
#include "harness/cli/demo003_command.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "harness/services/demo003_scripts.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/results/result_set.hpp"
#include "foundation/scoring/proportions.hpp"

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

// One fact the paper's log states, measured on every run.
struct fact {  // the paper's log shows it holding
  std::string name;
  std::function<bool(const script_run&)> holds;
};

const log_line* first(const script_run& r, const std::function<bool(const log_line&)>& f) {
  for (const auto& l : r.lines)
    if (f(l)) return &l;
  return nullptr;
}
bool is_error(const log_line& l) { return l.level == "ERROR"; }
bool is_strike(const log_line& l) { return l.text.find("strike detected") != std::string::npos; }

std::vector<fact> silent_check_facts(int level) {
  auto error_on = [](int dev, int64_t step) {
    return [dev, step](const script_run& r) { return first(r, [&](const log_line& l) { return is_error(l) && l.device == dev && l.step == step; }) != nullptr; };
  };
  std::vector<fact> f;
  if (level == 1) {
    f.push_back({"device 0 logs an ERROR at step 5", error_on(0, 5)});
    f.push_back({"device 0 logs an ERROR at step 6", error_on(0, 6)});
    f.push_back({"device 0 logs an ERROR at step 7", error_on(0, 7)});
    f.push_back({"no ERROR before step 5", [](const script_run& r) { return !first(r, [](const log_line& l) { return is_error(l) && l.step < 5; }); }});
    f.push_back({"every ERROR value on device 0 at steps 5-7 is NaN", [](const script_run& r) {
                   return !first(r, [](const log_line& l) { return is_error(l) && l.device == 0 && l.step <= 7 && !std::isnan(l.value); });
                 }});
    f.push_back({"training runs to the end", [](const script_run& r) { return !r.stopped; }});
    return f;
  }
  f.push_back({"the first ERROR is on device 2 at step 5", [](const script_run& r) {
                 const log_line* l = first(r, is_error);
                 return l && l->device == 2 && l->step == 5;
               }});
  f.push_back({"exactly one ERROR line", [](const script_run& r) {
                 int n = 0;
                 for (const auto& l : r.lines) n += is_error(l);
                 return n == 1;
               }});
  f.push_back({"its value is NaN", [](const script_run& r) {
                 const log_line* l = first(r, is_error);
                 return l && std::isnan(l->value);
               }});
  f.push_back({"training stops at step 5", [](const script_run& r) { return r.stopped && r.steps_done == 5; }});
  return f;
}

std::vector<fact> silent_detect_facts() {
  auto worker0 = [](const script_run& r) { return first(r, [](const log_line& l) { return is_strike(l) && l.device == 0; }); };
  std::vector<fact> f;
  f.push_back({"worker 0's first strike: fc1.weight", [=](const script_run& r) { const log_line* l = worker0(r); return l && l->where == "fc1.weight"; }});
  f.push_back({"worker 0's first strike: value inf", [=](const script_run& r) { const log_line* l = worker0(r); return l && std::isinf(l->value); }});
  f.push_back({"worker 0's first strike: count 6", [=](const script_run& r) {
                 const log_line* l = worker0(r);
                 return l && l->text.find("count: 6, none_zero_count") != std::string::npos;
               }});
  f.push_back({"Global CheckSum result is 0", [](const script_run& r) {
                 return first(r, [](const log_line& l) { return l.text.find("Global CheckSum result is 0") != std::string::npos; }) != nullptr;
               }});
  f.push_back({"the verdict 60-70 s after worker 0's first strike (paper 62 s)", [=](const script_run& r) {
                 const log_line* s = worker0(r);
                 const log_line* v = first(r, [](const log_line& l) { return l.text.find("Global CheckSum result") != std::string::npos; });
                 return s && v && v->time - s->time >= 60 && v->time - s->time <= 70;
               }});
  return f;
}

json line_json(const log_line& l) {
  return {{"device", l.device}, {"step", l.step}, {"time", l.time}, {"where", l.where}, {"level", l.level}, {"value", std::isfinite(l.value) ? json(l.value) : json(fmt::format("{}", l.value))},
          {"text", l.text}};
}

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
  auto run = [&](uint32_t seed) { return check ? demo003::run_silent_check(o.npu_asd_enable, seed, int(o.steps)) : demo003::run_silent_detect(seed, int(o.steps)); };
  const std::vector<fact> facts = check ? silent_check_facts(o.npu_asd_enable) : silent_detect_facts();
  std::vector<int64_t> holds(facts.size() + 1, 0);  // the last: every fact at once (the paper's whole outcome)
  json first_run, runs = json::array();
  for (int64_t s = 0; s < o.seeds; ++s) {
    const script_run r = run(uint32_t(o.init_seed + s));
    json f = json::object();
    bool all = true;
    for (size_t i = 0; i < facts.size(); ++i) {
      const bool h = facts[i].holds(r);
      holds[i] += h, f[facts[i].name] = h, all &= h;
    }
    holds.back() += all;
    runs.push_back({{"init_seed", o.init_seed + s}, {"steps_done", r.steps_done}, {"stopped", r.stopped}, {"lines", r.lines.size()}, {"facts", f}});
    if (s > 0) continue;
    json lines = json::array();
    for (const auto& l : r.lines) lines.push_back(line_json(l));
    first_run = {{"init_seed", o.init_seed}, {"steps_done", r.steps_done}, {"stopped", r.stopped}, {"loss", r.loss}, {"lines", lines}};
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
  }
  json summary = json::array();
  fmt::print("== what the paper's log states, over {} initializations (95% Wilson interval)\n{:<64} {:>6} {:>24}\n", o.seeds, "fact", "paper", "ours");
  for (size_t i = 0; i <= facts.size(); ++i) {
    const interval ci = wilson_interval(holds[i], o.seeds);
    const std::string name = i < facts.size() ? facts[i].name : "all of the above (the paper's outcome)";
    fmt::print("{:<64} {:>6} {:>7}/{:<4} [{:5.1f},{:5.1f}]%\n", name, "yes", holds[i], o.seeds, 100 * ci.lo, 100 * ci.hi);
    summary.push_back({{"fact", name}, {"paper", "yes"}, {"holds", holds[i]}, {"runs", o.seeds}, {"ci95", {ci.lo, ci.hi}}});
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
