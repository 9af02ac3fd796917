// Issue 32 end to end: suites/scale_training.json at smoke scale (the LLaMA
// smoke preset pretrained on dict-gcide, continued pretraining with a
// held-out tail, transient and permanent faults in gradients and GEMMs),
// through `sdcbench run`, `validate` and `report`: the corpus is recorded in
// provenance, every faulty episode has one outcome label, the per-label
// counts add up to the cell's, the curves the labels read are in the set,
// and the report draws them. The label rule itself is pinned by
// test_outcome_labels.cpp; the mix(S,N) fault runs as a recurring fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "cli_runner.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

const json* series(const json& cell, const std::string& name) {
  for (const auto& s : cell["workload_series"])
    if (s["name"] == name) return &s;
  return nullptr;
}

// The smoke preset over 4 steps (the preset's 12 take three times as long;
// the fault fires at step 2 either way, and 2 steps after it make a curve
// whose rise the spike rule reads) with 2 natural runs (the least a band
// takes): CI's time.
const std::string k_shorter = " --axis steps=4 --axis natural_runs=2";

TEST(ScaleTraining, SmokePresetLabelsEveryFaultyEpisodeAndRecordsItsCorpus) {
  const std::string dir = scratch_dir("scale_training");
  const std::string out = dir + "/r.json";
  const auto r = run_cli(std::string("run ") + SDCBENCH_SOURCE_DIR + "/suites/scale_training.json --scale smoke --quiet" + k_shorter + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  const auto v = run_cli("validate " + out);
  ASSERT_EQ(v.code, 0) << v.output;
  const json set = read_json(out);

  // The corpus: dict-gcide's dictionary, decompressed.
  const auto& inputs = set["provenance"]["inputs"];
  ASSERT_EQ(inputs.size(), 1u) << inputs;
  EXPECT_EQ(inputs[0]["path"], "gcide.dict.dz");  // named by its file (and sha256), not the machine's path
  EXPECT_GE(inputs[0]["bytes"].get<int64_t>(), 20'000'000);  // issue 32: at least 20 MB of English text
  EXPECT_EQ(inputs[0]["sha256"].get<std::string>().size(), 64u);

  int ran = 0;
  for (const auto& c : set["cells"]) {
    if (!c["skipped"].is_null()) continue;
    ++ran;
    if (c["faulty"]["trials"] == 0) continue;  // every faulty episode skipped: no fault fired (gemm_q)
    const std::string at = c["key"].get<std::string>() + " " + c["detector"]["label"].get<std::string>();
    ASSERT_TRUE(c.contains("by_label")) << at;
    int64_t trials = 0, detected = 0;
    for (const auto& [label, b] : c["by_label"].items()) {
      trials += b["trials"].get<int64_t>(), detected += b["detected"].get<int64_t>();
      if (b["detected"].get<int64_t>() == 0) {
        EXPECT_TRUE(b["latency_p50"].is_null()) << at << " " << label;
      }
    }
    EXPECT_EQ(trials, c["faulty"]["trials"].get<int64_t>()) << at;  // one label per faulty episode that ran
    EXPECT_EQ(detected, c["faulty"]["detected"].get<int64_t>()) << at;
    // No non-finite value, no non_finite label.
    if (c["workload_metrics"]["faulty.nonfinite.max"] == 0) {
      EXPECT_EQ(c["by_label"]["non_finite"]["trials"], 0) << at;
    }
    // The curves: the excess per step since the first firing (step 2 of 4: 2 steps) and the bands.
    for (const char* name : {"loss_excess", "loss_band", "loss_band_smoothed"}) {
      const json* s = series(c, name);
      ASSERT_NE(s, nullptr) << at << " " << name;
      EXPECT_EQ((*s)["faulty"]["median"].size(), 2u) << at << " " << name;
    }
    for (const auto& m : (*series(c, "loss_band"))["faulty"]["median"]) EXPECT_GT(m.get<double>(), 0) << at;
    // Before the fault reaches the loss (the step it fires: its own forward
    // pass ran before a gradient fault), the faulty loss equals the twin's.
    if (c["axes"]["site"] == "grad:all") {
      EXPECT_EQ((*series(c, "loss_excess"))["faulty"]["max"][0], 0.0) << at;
    }
  }
  EXPECT_EQ(ran, 4 * 11);  // grad:all and gemm:all x transient and permanent, 11 detectors

  const auto rep = run_cli("report " + out + " --out " + dir + "/report");
  ASSERT_EQ(rep.code, 0) << rep.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/report/figures/r-trajectories.svg")) << rep.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/report/figures/r-by-label.svg")) << rep.output;
}

// The measured mix as a permanent fault: its draws are replayed (XOR masks)
// at every later step, and the episodes are labelled like any others.
TEST(ScaleTraining, MixFaultRunsAsARecurringFault) {
  const std::string dir = scratch_dir("scale_mix");
  const auto r = run_cli(std::string("run ") + SDCBENCH_SOURCE_DIR +
                         "/suites/scale_training.json --scale smoke --quiet --axis site=grad:all --axis lifetime=permanent "
                         "--axis 'fault=mix(0.3,0.01)'" + k_shorter + " --out " + dir + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json set = read_json(dir + "/r.json");
  for (const auto& c : set["cells"]) {
    ASSERT_TRUE(c["skipped"].is_null()) << c["skipped"];
    EXPECT_EQ(c["axes"]["fault"], "mix(0.3,0.01)");
    EXPECT_EQ(c["faulty"]["trials"].get<int64_t>(), 4) << c["faulty"];
  }
}

}  // namespace

namespace {

// suites/long_horizon_training.json at smoke scale, over 6 steps (the
// preset's 30 take five times as long: CI's time; the horizon's length is
// the suite's point, not this test's): a stuck weight cell (weight:all,
// permanent) runs beside the transient fault, every faulty episode is
// labelled at its horizon (6 steps: 4 after the fault), and the excess
// curve covers the whole horizon.
TEST(LongHorizonTraining, SmokePresetRunsAStuckWeightToItsHorizon) {
  const std::string dir = scratch_dir("long_horizon");
  const std::string out = dir + "/r.json";
  const auto r = run_cli(std::string("run ") + SDCBENCH_SOURCE_DIR + "/suites/long_horizon_training.json --scale smoke --quiet --axis steps=6 --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  ASSERT_EQ(run_cli("validate " + out).code, 0);
  const json set = read_json(out);
  std::set<std::string> lifetimes;
  for (const auto& c : set["cells"]) {
    ASSERT_TRUE(c["skipped"].is_null()) << c["key"] << ": a stuck cell is a weight's recurring form";
    lifetimes.insert(c["axes"]["lifetime"].get<std::string>());
    EXPECT_EQ(c["workload_metrics"]["faulty.horizon_steps.max"], 4.0) << c["key"];
    int64_t labelled = 0;
    for (const auto& [label, b] : c["by_label"].items()) labelled += b["trials"].get<int64_t>();
    EXPECT_EQ(labelled, c["faulty"]["trials"].get<int64_t>()) << c["key"];
    const json* excess = series(c, "loss_excess");
    ASSERT_NE(excess, nullptr);
    EXPECT_EQ((*excess)["faulty"]["mean"].size(), 4u) << c["key"];
  }
  EXPECT_EQ(lifetimes, (std::set<std::string>{"transient", "permanent"}));
}

}  // namespace
