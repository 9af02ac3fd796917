// Training-level detectors in campaigns, end to end through `sdcbench run`:
// 003's demo scenario (the first strike on the faulty rank at the cycle's
// first step; the two CheckSums on the NaN it spreads), a defective
// rank named by the CheckSum, and cells identical on one and two threads with
// stateful detectors warmed up on the history before the fork. Exact counts:
// training cells are the same on every x86-64 CPU with AVX2 and FMA
// (METHODOLOGY.md "Same bits on every CPU"; tests/test_same_bits.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli_runner.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

const json& cell_of(const json& r, const std::string& label) {
  for (const auto& c : r["cells"])
    if (c["detector"]["label"] == label) return c;
  throw std::runtime_error("no cell for " + label);
}

double metric(const json& c, const std::string& name) { return c["metrics"].at(name).get<double>(); }

// Runs a small training suite on episodes_bf16.json at smoke scale (4 steps,
// 4 faulty and 2 clean episodes per cell, seed 7) and returns its result set.
// The configuration sits beside the suite, named relative to it: cell keys (and
// so the fault draws) must not depend on where the checkout is.
json run_bf16_suite(const std::string& name, json axes, const json& detectors) {
  const std::string dir = scratch_dir(name);
  std::filesystem::copy_file(std::string(SDCBENCH_SOURCE_DIR) + "/suites/training/episodes_bf16.json", dir + "/episodes_bf16.json",
                             std::filesystem::copy_options::overwrite_existing);
  axes["config"] = {"episodes_bf16.json"}, axes["steps"] = {"4"}, axes["natural_runs"] = {"4"};
  const json suite = {{"schema", "sdcbench.suite/1"}, {"name", name},          {"workload", "training"}, {"seed", 7},
                      {"axes", axes},                 {"detectors", detectors}, {"trials", {{"faulty", 4}, {"clean", 2}}},
                      {"presets", {{"smoke", json::object()}, {"full", json::object()}}}};
  std::ofstream(dir + "/s.json") << suite.dump();
  const auto r = run_cli("run " + dir + "/s.json --scale smoke --out " + dir + "/r.json");
  EXPECT_EQ(r.code, 0) << r.output;
  return r.code == 0 ? read_json(dir + "/r.json") : json();
}

// The cell of `label` whose axes hold every value in `where`.
const json& cell_where(const json& r, const std::map<std::string, std::string>& where, const std::string& label) {
  for (const auto& c : r["cells"]) {
    bool all = c["detector"]["label"] == label;
    for (const auto& [axis, value] : where) all = all && c["axes"][axis] == value;
    if (all) return c;
  }
  throw std::runtime_error("no cell for " + label);
}

std::string demo_suite() { return std::string(SDCBENCH_SOURCE_DIR) + "/suites/silent_check_demo.json"; }

// The two cases below count detections, which the noise band of natural
// runs does not enter: 2 of them (the least a band takes), not the smoke
// preset's 6 (CI's time).
const std::string k_two_natural = " --axis natural_runs=2";

// The first strike is rank 2's at step 5 (cycle(0, 5)); the polling pass at 9 s
// starts the CheckSum for steps 10 and 11. By then the all-reduce has spread
// the fault's NaN to every rank: MindSpore's CheckSum fails on NaN
// (checksum_kernel.cc: NOT max(error - bound) < 1e-20) and blames the first
// rank, torch_npu's passes it (checksum.py compares per row).
TEST(TrainingCampaign, DemoStrikesOnTheFaultyRankAtStepFiveAndTheCheckSumsDisagreeOnNaN) {
  const std::string dir = scratch_dir("demo");
  const auto r = run_cli("run " + demo_suite() + " --scale smoke --axis site=act:blocks.0.mlp.fc1 --axis fault=bitflip_designed" + k_two_natural + " --out " +
                         dir + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = read_json(dir + "/r.json");
  const json& strike = cell_of(j, "feature_value strike");
  EXPECT_EQ(strike["faulty"]["detected"], 4);
  EXPECT_EQ(metric(strike, "faulty.event_step.mean"), 5);
  EXPECT_EQ(metric(strike, "faulty.event_rank.mean"), 2);
  EXPECT_EQ(strike["faulty"]["localization"]["right"], 4);
  const json& ms = cell_of(j, "feature_value+checksum (mindspore)");
  EXPECT_EQ(ms["faulty"]["detected"], 4);
  EXPECT_EQ(metric(ms, "faulty.checksum_rank.max"), 0);  // NaN everywhere: the first rank, not rank 2
  EXPECT_EQ(ms["faulty"]["localization"]["right"], 0);
  const json& tn = cell_of(j, "feature_value+checksum (torch_npu)");
  EXPECT_EQ(tn["faulty"]["detected"], 0);
  EXPECT_EQ(metric(tn, "faulty.checksum_steps.mean"), 2);  // steps 10 and 11
  EXPECT_EQ(metric(tn, "faulty.checksum_rank.count"), 0);  // blamed no rank: not computed in any episode,
  EXPECT_EQ(metric(tn, "faulty.checksum_rank.nan"), 0);    // which is no NaN seen
  EXPECT_TRUE(tn["metrics"]["faulty.checksum_rank.max"].is_null());
  EXPECT_EQ(cell_of(j, "npu_asd (script 1)")["faulty"]["detected"], 4);
  for (const auto& c : j["cells"]) EXPECT_EQ(c["clean"]["flagged"], 0) << c["detector"]["label"];
}

TEST(TrainingCampaign, TheCheckSumNamesADefectiveRankAndPassesCleanGemms) {
  const std::string dir = scratch_dir("defective");
  const auto r = run_cli("run " + demo_suite() + " --scale smoke --axis site=gemm:all --axis 'fault=multiply(1e+08)'" + k_two_natural + " --out " + dir + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = read_json(dir + "/r.json");
  const json& every = cell_of(j, "matmul_checksum every step");
  EXPECT_EQ(every["faulty"]["detected"], every["faulty"]["trials"]);
  EXPECT_EQ(every["faulty"]["localization"]["right"], every["faulty"]["trials"]);  // rank 2, the defective one
  EXPECT_GT(every["faulty"]["trials"].get<int>(), 0);
  EXPECT_EQ(every["clean"]["flagged"], 0);  // every clean bf16 GEMM of 12 steps x 8 ranks passes the bound
}

// Two threads against one: ctest test_smoke_sets reproduces the committed
// smoke set of this suite (results/smoke/training_detectors.json) on two
// threads, cell for cell; this case runs some of its cells on one thread and
// compares them with that set.
TEST(TrainingCampaign, StatefulDetectorsGiveTheSameCellsOnOneAndTwoThreads) {
  const std::string dir = scratch_dir("td-threads");
  const std::string suite = std::string(SDCBENCH_SOURCE_DIR) + "/suites/training_detectors.json";
  // The smoke preset's 6 natural runs: its count of MindSpore's defaults
  // (the flips that land in a watched parameter) is one of that key's draws.
  const std::string axes = " --scale smoke --axis site=grad:all --axis bit=exp1 --axis seed_policy=S1-1,S1-3";
  auto a = run_cli("run " + suite + axes + " --threads 1 --out " + dir + "/a.json");
  ASSERT_EQ(a.code, 0) << a.output;
  const json committed = read_json(std::string(SDCBENCH_SOURCE_DIR) + "/results/smoke/training_detectors.json");
  std::map<std::pair<std::string, std::string>, json> by_key;  // a cell per key and detector
  const auto id = [](const json& c) { return std::pair{c["key"].get<std::string>(), c["detector"]["label"].get<std::string>()}; };
  for (const auto& c : committed["cells"]) by_key[id(c)] = c;
  const json one = read_json(dir + "/a.json");
  ASSERT_GE(one["cells"].size(), 8u);
  for (const auto& c : one["cells"]) {
    const auto it = by_key.find(id(c));
    ASSERT_NE(it, by_key.end()) << c["key"] << " is not a cell of the committed smoke set";
    EXPECT_EQ(c, it->second) << c["key"];
  }
  const json& j = one;
  // The check alone (flag_on alarm, every parameter) sees an exp1 flip of a gradient.
  // MindSpore's defaults watch every 10th parameter at every step and report a strike
  // (the first alarm always is one): they see the flips that land in a watched one.
  const int every = cell_of(j, "feature_value every parameter, alarm")["faulty"]["detected"];
  const int defaults = cell_of(j, "feature_value defaults (003)")["faulty"]["detected"];
  EXPECT_EQ(cell_of(j, "feature_value all, alarm")["faulty"]["detected"], 4);
  EXPECT_GT(defaults, 0);
  EXPECT_LE(defaults, every);
  EXPECT_EQ(cell_of(j, "folding_w1 (000)")["faulty"]["localization"]["right"], 4);
}

// Megatron-LM's parameter hashes across replicas catch a fault in one rank's
// copy of the reduced bucket and in its weights, on the step it lands, blaming
// that rank, when it reaches the hashed copy (the bf16 model copy, or the
// fp32 master weights as a named variant); a gradient fault before the all-reduce reaches every replica
// alike, so no hash differs. Megatron's result validation with its defaults
// (NaN/Inf only) sees what goes non-finite; OLMo-core's spike monitor runs on
// the logged curves without false alarms.
TEST(TrainingCampaign, ReplicaHashesCatchFaultsAfterTheAllReduceOnly) {
  const json j = run_bf16_suite(
      "hashes",
      {{"site", {"bucket", "weight:all", "grad:all"}}, {"bit", {"exp1", "mant1", "mant20"}}, {"when", {"specific(2)"}}, {"rank", {"1"}}},
      json::array({{{"name", "param_hash"}, {"params", {{"copy", "master"}}}},
                   {{"name", "param_hash"}, {"label", "majority"}, {"params", {{"blame", "majority"}, {"copy", "master"}}}},
                   {{"name", "param_hash"}, {"label", "bf16 copy"}},
                   {{"name", "megatron_validation"}}, {{"name", "stability_monitor"}, {"params", {{"window_size", 16}}}}}));
  ASSERT_FALSE(j.is_null());
  auto cell = [&](const std::string& site, const std::string& bit, const std::string& label) -> const json& {
    return cell_where(j, {{"site", site}, {"bit", bit}}, label);
  };
  for (const auto& c : j["cells"]) EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
  // The logged grad norm is there (a finite score on clean episodes, warm-up included in its window).
  EXPECT_TRUE(cell("bucket", "exp1", "stability_monitor")["metrics"]["clean_score_max"].is_number());
  for (const char* label : {"param_hash", "majority", "bf16 copy"})
    for (const char* bit : {"exp1", "mant1"}) {
      const std::string at = std::string(label) + " " + bit;
      EXPECT_EQ(cell("grad:all", bit, label)["faulty"]["detected"], 0) << at << ": the all-reduce hands every replica the same sum";
      std::vector<std::string> seen = {"bucket"};
      if (std::string(bit) == "mant1") seen.push_back("weight:all");  // a mantissa flip never goes non-finite
      for (const auto& site : seen) {
        const auto& f = cell(site, bit, label)["faulty"];
        EXPECT_EQ(f["detected"], 4) << at << " " << site;
        EXPECT_EQ(f["localization"]["right"], 4) << at << " " << site;  // rank 1
        // The bf16 copy shows a mantissa flip in the reduced gradient once the
        // master weights' divergence crosses a bf16 rounding: up to a step later.
        const bool later = std::string(label) == "bf16 copy" && site == "bucket" && std::string(bit) == "mant1";
        EXPECT_EQ(f["latency_steps"]["max"], later ? 1 : 0) << at << " " << site;
      }
      if (std::string(bit) != "exp1") continue;
      // An exponent flip of a weight that makes the loss non-finite spreads
      // NaN through the all-reduce into every replica alike, bit for bit: then
      // no hash differs, and the NaN check is what sees it. Every episode is
      // seen by one of them, and every hash detection blames rank 1.
      const auto& w = cell("weight:all", bit, label)["faulty"];
      EXPECT_EQ(w["localization"]["right"], w["detected"]) << at;
      const std::string hash = w["outcomes"], nan = cell("weight:all", bit, "megatron_validation")["faulty"]["outcomes"];
      EXPECT_EQ((std::stoul(hash, nullptr, 16) | std::stoul(nan, nullptr, 16)) & 0xfu, 0xfu) << hash << " " << nan;
    }
  // A flip below bf16's precision (mant20 of an fp32 master weight) changes
  // the master weights, which the named variant hashes, and not the bf16 copy
  // the forward uses, which Megatron hashes (param.data under --bf16). The
  // same flip in the reduced gradient moves no weight by an fp32 ulp here.
  for (const char* label : {"param_hash", "majority"}) {
    EXPECT_EQ(cell("weight:all", "mant20", label)["faulty"]["detected"], 4) << label;
    EXPECT_EQ(cell("weight:all", "mant20", label)["faulty"]["localization"]["right"], 4) << label;
  }
  for (const char* label : {"param_hash", "majority", "bf16 copy"})
    for (const char* site : {"bucket", "grad:all"}) EXPECT_EQ(cell(site, "mant20", label)["faulty"]["detected"], 0) << label << " " << site;
  EXPECT_EQ(cell("weight:all", "mant20", "bf16 copy")["faulty"]["detected"], 0);
}

// Under Megatron-LM's distributed optimizer a rank owns one shard of the
// master weights and Adam moments, and every replica is all-gathered from
// the owners after the step: a fault in rank 1's copy of the reduced
// gradient or in its weights reaches every replica alike (its own shard) or
// is overwritten (another's), so no replica hash ever differs, where the
// replicated optimizer's hashes see every one (the test above); the faults
// still change training (not every episode is bit-identical to its twin).
TEST(TrainingCampaign, AFaultInADistributedOptimizerShardLeavesEveryReplicaHashEqual) {
  const json j = run_bf16_suite(
      "distopt", {{"site", {"bucket", "weight:all"}}, {"bit", {"mant1"}}, {"when", {"specific(1)"}}, {"rank", {"1"}}, {"optimizer", {"distributed"}}},
      json::array({{{"name", "param_hash"}}, {{"name", "param_hash"}, {"label", "master"}, {"params", {{"copy", "master"}}}}}));
  ASSERT_FALSE(j.is_null());
  for (const char* site : {"bucket", "weight:all"})
    for (const char* label : {"param_hash", "master"}) {
      const json& c = cell_where(j, {{"site", site}}, label);
      EXPECT_EQ(c["axes"]["optimizer"], "distributed");
      EXPECT_EQ(c["faulty"]["trials"], 4) << site;
      EXPECT_EQ(c["faulty"]["detected"], 0) << site << " " << label;
      EXPECT_EQ(c["clean"]["flagged"], 0) << site << " " << label;
      EXPECT_LT(c["by_significance"]["masked"]["trials"].get<int>(), 4) << site << ": the fault changed training";
    }
}

// Fault lifetimes reach the checks that recompute a step: Megatron's rerun
// (large grads, a non-fatal check) labels a transient gradient fault
// transient and leaves a reproduced one undiagnosed (3: the job continues);
// with the named variant diagnose_non_fatal it labels a permanent one (a
// flipped or a stuck bit that recurs) persistent (a weight fault, transient
// but held in rank 1's replica, reproduces in place and not from replica 0's
// checkpoint: persistent, against its lifetime; a stuck weight cell likewise,
// and rightly);
// torchtitan's in-place replay catches the transient fault and not the
// permanent one, which the peer variant's three copies catch and blame on rank 1.
TEST(TrainingCampaign, RerunsLabelFaultsByTheirLifetimeAndReplaysSeeWhatDiffers) {
  const json j = run_bf16_suite(
      "lifetimes",
      {{"site", {"grad:all", "weight:all"}}, {"fault", {"bitflip", "stuck_at_1"}}, {"bit", {"exp1"}},
       {"lifetime", {"transient", "permanent", "intermittent(0,1)"}}, {"when", {"specific(2)"}}, {"rank", {"1"}}},
      json::array({{{"name", "megatron_validation"},
                    {"params", {{"check_large_grads", true}, {"num_samples", 16}, {"diagnose_non_fatal", true}}}},
                   {{"name", "megatron_validation"}, {"label", "megatron"}, {"params", {{"check_large_grads", true}, {"num_samples", 16}}}},
                   {{"name", "sdc_replay"}, {"params", {{"num_steps", -1}}}},
                   {{"name", "sdc_replay"}, {"label", "peer"},
                    {"params", {{"num_steps", -1}, {"peer", true}, {"num_replays", 2}, {"signature", "local"}}}}}));
  ASSERT_FALSE(j.is_null());
  std::string fault;
  auto cell = [&](const std::string& site, const std::string& life, const std::string& label) -> const json& {
    return cell_where(j, {{"site", site}, {"lifetime", life}, {"fault", fault}}, label);
  };
  for (const char* f : {"bitflip", "stuck_at_1"}) {  // a flipped bit, and a stuck one
  fault = f;
  for (const auto& c : j["cells"]) {
    EXPECT_FALSE(c["skipped"].is_string()) << c["key"] << ": every site has every lifetime";
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
  }
  struct expect {
    const char* site;
    const char* life;
    int rejected;  // episodes Megatron's checks reject, of 4 bit flips (one flip may shrink the value: nothing to see)
    int rejected_stuck;  // of 4 stuck-at-1 bits, which only grow a value (each cell draws its own elements)
    double label;  // the rerun's diagnosis of every rejection: 1 transient, 2 persistent
    int in_place;  // detections by torchtitan's in-place replay
  };
  // intermittent(0,1): on at the fault's step (so its rerun reproduces there), off from the next step on.
  // A stuck weight (permanent; intermittent(0,1) is the transient fault again,
  // at other elements) is a stuck cell: one in 4 grown weights no loss of the
  // 4 steps reaches non-finite. Rank 1's state reproduces it: persistent, and
  // right for a recurring fault.
  for (const expect& e : {expect{"grad:all", "transient", 4, 4, 1, 4}, expect{"grad:all", "permanent", 4, 4, 2, 0},
                          expect{"grad:all", "intermittent(0,1)", 3, 4, 2, 0}, expect{"weight:all", "transient", 3, 4, 2, 0},
                          expect{"weight:all", "permanent", 3, 3, 2, 0}, expect{"weight:all", "intermittent(0,1)", 3, 3, 2, 0}}) {
    const std::string at = std::string(e.site) + " " + e.life + " " + fault;
    const auto& m = cell(e.site, e.life, "megatron_validation");
    // A flip of a weight's top exponent bit that was 1 shrinks it: nothing to reject. A stuck-at-1 only grows.
    EXPECT_EQ(m["faulty"]["detected"], fault == "stuck_at_1" ? e.rejected_stuck : e.rejected) << at;
    EXPECT_EQ(m["metrics"]["faulty.rerun_label.max"], e.label) << at;
    EXPECT_EQ(m["metrics"]["faulty.rerun_label.median"], e.label) << at;
    // Scored against the injected lifetime: right unless a transient fault sits in state.
    const bool state_transient = std::string(e.site) == "weight:all" && std::string(e.life) == "transient";
    EXPECT_EQ(m["workload_metrics"]["faulty.attribution_right.mean"], state_transient ? 0.0 : 1.0) << at;
    // As Megatron runs it: the same rejections; a large-grads one (code 6,
    // non-fatal) reproduced in place gets no diagnosis (3), a NaN/Inf one
    // (fatal) the same as above.
    const auto& o = cell(e.site, e.life, "megatron");
    EXPECT_EQ(o["faulty"]["outcomes"], m["faulty"]["outcomes"]) << at;
    for (const char* q : {"max", "median"}) {
      const bool non_fatal = m["metrics"][std::string("faulty.rejected_by.") + q] == 6.0;
      EXPECT_EQ(o["metrics"][std::string("faulty.rerun_label.") + q], e.label == 2 && non_fatal ? 3.0 : e.label) << at << " " << q;
    }
    const bool undiagnosed = o["metrics"]["faulty.rerun_label.max"] == 3.0 && o["metrics"]["faulty.rerun_label.median"] == 3.0;
    if (!undiagnosed) {
      EXPECT_EQ(o["workload_metrics"]["faulty.attribution_right.mean"], m["workload_metrics"]["faulty.attribution_right.mean"]) << at;
    } else if (e.label == 2) {
      EXPECT_FALSE(o["workload_metrics"].contains("faulty.attribution_right.mean")) << at;  // judged by nobody
    }
    EXPECT_EQ(cell(e.site, e.life, "sdc_replay")["faulty"]["detected"], e.in_place) << at;
    const auto& peer = cell(e.site, e.life, "peer")["faulty"];
    EXPECT_EQ(peer["detected"], 4) << at;
    EXPECT_EQ(peer["localization"]["right"], 4) << at;
  }
  }
}

// Attention sites end to end (issue 70), a row max (the explicit softmax in
// the episode, its twin and its replays), P V and the three gradients (an
// autograd hook's change flows on): torchtitan's replay on other devices
// (peer) sees every fault that changed rank 1's gradients; in place it sees a
// transient one as often, and never a permanent or intermittent(0,1) one (on
// at its step, off after), which recurs in the replay on its device: so a
// row-max episode's explicit softmax replays bit for bit at every step. Clean
// episodes (torch's softmax) replay bit for bit.
TEST(TrainingCampaign, AttentionFaultsRecurWhereTheirLifetimeSays) {
  const json j = run_bf16_suite(
      "attention",
      {{"site", {"attn_row_max:blocks.0", "attn_scores_grad:blocks.0", "attn_probs_grad:blocks.1", "attn_context:blocks.1",
                 "attn_context_grad:blocks.1"}},
       {"fault", {"bitflip"}},
       {"bit", {"exp1"}}, {"lifetime", {"transient", "permanent", "intermittent(0,1)"}}, {"when", {"specific(2)"}}, {"rank", {"1"}}},
      json::array({{{"name", "sdc_replay"}, {"params", {{"num_steps", -1}}}},
                   {{"name", "sdc_replay"}, {"label", "peer"},
                    {"params", {{"num_steps", -1}, {"peer", true}, {"num_replays", 2}, {"signature", "local"}}}}}));
  ASSERT_FALSE(j.is_null());
  for (const auto& c : j["cells"]) {
    EXPECT_FALSE(c["skipped"].is_string()) << c["key"];
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
  }
  for (const char* site : {"attn_row_max:blocks.0", "attn_scores_grad:blocks.0", "attn_probs_grad:blocks.1", "attn_context:blocks.1",
                           "attn_context_grad:blocks.1"}) {
    for (const char* life : {"transient", "permanent", "intermittent(0,1)"}) {
      const std::string at = std::string(site) + " " + life;
      const json& peer = cell_where(j, {{"site", site}, {"lifetime", life}}, "peer")["faulty"];
      const json& in_place = cell_where(j, {{"site", site}, {"lifetime", life}}, "sdc_replay")["faulty"];
      EXPECT_GE(peer["detected"].get<int>(), 1) << at;
      EXPECT_EQ(in_place["detected"], std::string(life) == "transient" ? peer["detected"] : json(0)) << at;
    }
  }
}

// Issue 12's training suites at smoke scale show what they are for. Their
// committed smoke sets (results/smoke/) are read, not run again: ctest
// test_smoke_sets reproduces each with this build, cell for cell, and
// validates it, so what holds of a committed set holds of this build's run.
TEST(TrainingCampaign, TheTrainingSuitesSmokeSetsHoldTheirPapersProperties) {
  const std::string dir = scratch_dir("four");
  const std::string smoke = std::string(SDCBENCH_SOURCE_DIR) + "/results/smoke/";
  const json t1 = read_json(smoke + "sdc_table1_training.json");
  for (const auto& c : t1["cells"]) {
    if (c["detector"]["label"] != "folding_w1 per_row") continue;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"];  // Table 1: zero false positives at tau = 3
    // Of 10 type-1 flips: gradients, 000's Table 1 setting (100 % there, 96 % in
    // our full preset), at least 8; weights (not a paper cell, 85 % in our full
    // preset) at least 6: below that has probability about 1 % at 85 %.
    if (c["axes"]["bit"] == "exp1") {
      EXPECT_GE(c["faulty"]["detected"].get<int>(), c["axes"]["site"] == "grad:all" ? 8 : 6) << c["key"];
    }
    const auto& why = c["faulty"]["by_reason"];  // every detection is the test's own or a non-finite norm's
    EXPECT_EQ(why["own"]["detected"].get<int>() + why["nonfinite"].get<int>(), c["faulty"]["detected"].get<int>()) << c["key"];
    // eq. 1's XOR of exp3 shrinks every gradient element (all |g| < 2): nothing to see
    if (c["axes"]["bit"] == "exp3" && c["axes"]["site"] == "grad:all" && c["axes"]["fault"] == "bitflip") {
      EXPECT_EQ(c["faulty"]["detected"], 0) << c["key"];
    }
  }
  const json c002 = read_json(smoke + "consistency_002.json");
  ASSERT_EQ(c002["recordings"].size(), 12u);  // 2 dropouts x 3 settings x 2 recorders
  // The paired comparison: per dropout, every policy's mean and the three differences.
  ASSERT_EQ(c002["comparisons"]["groups"].size(), 2u);
  for (const auto& g : c002["comparisons"]["groups"]) {
    EXPECT_EQ(g["units"], 3);  // one episode per fork at smoke scale
    EXPECT_EQ(g["clusters"], 3);  // the forks: Student's t on 2 degrees of freedom
    EXPECT_EQ(g["metrics"]["loss_std_p50"]["differences"].size(), 3u);
  }
  json edited = c002;  // validate recomputes the comparisons from the episodes
  edited["comparisons"]["groups"][0]["metrics"]["loss_std_p50"]["differences"][0]["mean"] = 1.0;
  std::ofstream(dir + "/edited.json") << edited.dump();
  const auto bad = run_cli("validate " + dir + "/edited.json");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("/comparisons"), std::string::npos) << bad.output;
  for (const auto& rec : c002["recordings"])
    if (rec["recorder"]["name"] == "consistency_curve") {
      EXPECT_GT(rec["metrics"]["clean.cos_mean_p50.mean"].get<double>(), 0) << rec["key"];  // gradients share a direction
      EXPECT_GT(rec["metrics"]["clean.loss_std_p90.mean"].get<double>(), 0) << rec["key"];
    }
  const auto show = run_cli("show " + smoke + "consistency_002.json");
  EXPECT_NE(show.output.find("grad_norm_std"), std::string::npos) << show.output;
  const json td = read_json(smoke + "training_detectors.json");
  for (const auto& c : td["cells"])
    if (c["detector"]["name"] == "matmul_checksum" || c["detector"]["name"] == "gemm_vabft") {
      EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
    }
}

}  // namespace
