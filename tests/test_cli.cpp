// End-to-end tests of the sdcbench command: determinism whatever the thread
// count, resumption after a crash, sharding, validation, and the clear errors
// malformed suites must produce.
#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <set>

#include "cli_runner.hpp"
#include "foundation/io/safetensors.hpp"
#include "foundation/random/streams.hpp"

#include <boost/random/normal_distribution.hpp>

using namespace sdc::testing;
using json = nlohmann::json;

namespace {

const std::string k_suite = test_data("suites/determinism.json");

json run_ok(const std::string& args, const std::string& out) {
  auto r = run_cli("run " + args + " --quiet --out " + out);
  EXPECT_EQ(r.code, 0) << r.output;
  return read_json(out);
}

}  // namespace

TEST(Cli, SameCellsWithOneOrTwoThreads) {
  const auto d = scratch_dir("threads");
  const json a = run_ok(k_suite + " --threads 1", d + "/a.json");
  const json b = run_ok(k_suite + " --threads 2", d + "/b.json");
  ASSERT_GT(a["cells"].size(), 100u);
  EXPECT_EQ(a["cells"].dump(), b["cells"].dump());
  // Some cells are skipped with a reason (e.g. random_value takes no bit; acc on fp32).
  int skipped = 0, ran = 0;
  for (const auto& c : a["cells"]) (c["skipped"].is_null() ? ran : skipped)++;
  EXPECT_GT(skipped, 0);
  EXPECT_GT(ran, 0);
  // The throughput record counts the episodes of every runnable cell (not the
  // detector rows), over the run's wall time and cores; show --brief prints it.
  std::set<int64_t> runnable;
  for (const auto& c : b["cells"])
    if (c["skipped"].is_null()) runnable.insert(c["cell"].get<int64_t>());
  const json& t = b["provenance"]["throughput"];
  ASSERT_TRUE(t.is_object()) << b["provenance"].dump();
  EXPECT_EQ(t["episodes"], int64_t(runnable.size()) * (b["suite"]["trials"]["faulty"].get<int64_t>() + b["suite"]["trials"]["clean"].get<int64_t>()));
  EXPECT_EQ(t["cores"], 2);
  EXPECT_GT(t["wall_seconds"].get<double>(), 0);
  const auto brief = run_cli("show --brief " + d + "/b.json");
  EXPECT_NE(brief.output.find("trials per second per core"), std::string::npos) << brief.output;
}

TEST(Cli, KilledRunResumesToTheSameCells) {
  const auto d = scratch_dir("resume");
  const json full = run_ok(k_suite + " --threads 2", d + "/full.json");
  const std::string out = d + "/resumed.json";
  auto killed = run_cli("run " + k_suite + " --quiet --threads 2 --out " + out + " --stop-after-cells 40");
  EXPECT_EQ(killed.code, 3) << killed.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no result file may exist after a crash";
  EXPECT_TRUE(std::filesystem::exists(out + ".journal"));
  // Without --resume the journal is not silently overwritten.
  auto refused = run_cli("run " + k_suite + " --quiet --out " + out);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.output.find("--resume"), std::string::npos) << refused.output;
  // A second crash mid-way through the resumed run, then a final resume.
  auto killed2 = run_cli("run " + k_suite + " --quiet --threads 1 --resume --out " + out + " --stop-after-cells 30");
  EXPECT_EQ(killed2.code, 3) << killed2.output;
  const json resumed = run_ok(k_suite + " --threads 1 --resume", out);
  EXPECT_EQ(full["cells"].dump(), resumed["cells"].dump());
  EXPECT_TRUE(resumed["provenance"]["throughput"].is_null()) << "part of a resumed run's episodes ran before: no throughput";
  EXPECT_FALSE(std::filesystem::exists(out + ".journal"));
}

TEST(Cli, ResumeRefusesAJournalOfAnotherRun) {
  const auto d = scratch_dir("resume-mismatch");
  const std::string out = d + "/r.json";
  auto killed = run_cli("run " + k_suite + " --quiet --out " + out + " --stop-after-cells 2");
  ASSERT_EQ(killed.code, 3);
  auto r = run_cli("run " + k_suite + " --quiet --resume --scale full --out " + out);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(".journal"), std::string::npos) << r.output;
}

TEST(Cli, TwoShardsMergeIntoTheUnshardedRun) {
  const auto d = scratch_dir("shards");
  const json whole = run_ok(k_suite, d + "/whole.json");
  run_ok(k_suite + " --shard 0/2", d + "/s0.json");
  run_ok(k_suite + " --shard 1/2", d + "/s1.json");
  auto m = run_cli("merge " + d + "/s1.json " + d + "/s0.json --out " + d + "/merged.json");
  ASSERT_EQ(m.code, 0) << m.output;
  const json merged = read_json(d + "/merged.json");
  EXPECT_EQ(whole["cells"].dump(), merged["cells"].dump());
  EXPECT_TRUE(merged["provenance"]["throughput"].is_null()) << "shards run apart have no one wall time";
  auto v = run_cli("validate " + d + "/merged.json");
  EXPECT_EQ(v.code, 0) << v.output;
  // A missing shard is an error.
  auto bad = run_cli("merge " + d + "/s0.json --out " + d + "/bad.json");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("shard 1/2 is missing"), std::string::npos) << bad.output;
}

TEST(Cli, ValidateCatchesTamperedResults) {
  const auto d = scratch_dir("validate");
  json r = run_ok(k_suite + " --axis dtype=fp32 --axis target=C", d + "/r.json");
  EXPECT_EQ(run_cli("validate " + d + "/r.json").code, 0);
  for (auto& c : r["cells"])
    if (c["skipped"].is_null()) {
      c["faulty"]["detected"] = c["faulty"]["detected"].get<int>() + 1;  // no longer matches rate and outcome bits
      break;
    }
  std::ofstream(d + "/t.json") << r.dump();
  auto v = run_cli("validate " + d + "/t.json");
  EXPECT_EQ(v.code, 1);
  EXPECT_NE(v.output.find("rate is not detected/trials"), std::string::npos) << v.output;
  json partial = read_json(d + "/r.json");
  partial["complete"] = false;
  std::ofstream(d + "/p.json") << partial.dump();
  EXPECT_EQ(run_cli("validate " + d + "/p.json").code, 1);
}

TEST(Cli, AxisOverrideSelectsCellsWithIdenticalResults) {
  const auto d = scratch_dir("override");
  const json whole = run_ok(k_suite, d + "/whole.json");
  const json one = run_ok(k_suite + " --axis dtype=bf16 --axis target=B --axis fault=bitflip --axis bit=exp2",
                          d + "/one.json");
  ASSERT_FALSE(one["cells"].empty());
  // The same cell key yields the same numbers whether run alone or in the full product.
  for (const auto& c : one["cells"]) {
    bool found = false;
    for (const auto& w : whole["cells"])
      if (w["key"] == c["key"] && w["detector"] == c["detector"]) {
        found = true;
        json a = c, b = w;
        a.erase("cell"), b.erase("cell");
        EXPECT_EQ(a.dump(), b.dump());
      }
    EXPECT_TRUE(found) << c["key"];
  }
}

TEST(Cli, CompareSameFaultsUsesMcNemar) {
  const auto d = scratch_dir("compare");
  run_ok(k_suite + " --axis dtype=fp32 --axis target=C", d + "/r.json");
  auto c = run_cli("compare " + d + "/r.json --detectors 'nan_inf,abft(1e-4)'");
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find("McNemar"), std::string::npos);
  auto bad = run_cli("compare " + d + "/r.json --detectors nan_inf,no_such_detector");
  EXPECT_EQ(bad.code, 2);
}

struct bad_suite_case {
  const char* file;
  const char* path;      // the JSON path the message must name
  const char* expected;  // a fragment of what was expected
};

class MalformedSuite : public ::testing::TestWithParam<bad_suite_case> {};

TEST_P(MalformedSuite, ExitsTwoNamingFileFieldAndExpectation) {
  const auto& c = GetParam();
  const auto d = scratch_dir(std::string("bad-") + c.file);
  const std::string file = test_data(std::string("suites_bad/") + c.file);
  const std::string out = d + "/out.json";
  auto r = run_cli("run " + file + " --quiet --out " + out);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(c.file), std::string::npos) << "message must name the file:\n" << r.output;
  EXPECT_NE(r.output.find(c.path), std::string::npos) << "message must name the field " << c.path << ":\n" << r.output;
  EXPECT_NE(r.output.find(c.expected), std::string::npos) << "message must say what was expected:\n" << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".journal"));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedSuite,
    ::testing::Values(
        bad_suite_case{"bad_json.json", "byte", "expected valid JSON"},
        bad_suite_case{"not_object.json", "/", "expected a JSON object"},
        bad_suite_case{"wrong_schema.json", "/schema", "sdcbench.suite/1"},
        bad_suite_case{"missing_name.json", "/name", "required field is missing"},
        bad_suite_case{"bad_name.json", "/name", "lower-case"},
        bad_suite_case{"unknown_workload.json", "/workload", "expected one of:"},
        bad_suite_case{"unknown_field.json", "/trails", "unknown field"},
        bad_suite_case{"unknown_detector.json", "/detectors/1/name", "unknown detector"},
        bad_suite_case{"unknown_param.json", "/detectors/0/params", "has no parameter 'tolerance'"},
        bad_suite_case{"bad_param_value.json", "/detectors/0/params", "unit roundoff"},
        bad_suite_case{"duplicate_label.json", "/detectors/1/label", "used twice"},
        bad_suite_case{"negative_trials.json", "/trials/faulty", "non-negative integer"},
        bad_suite_case{"fractional_trials.json", "/trials/faulty", "non-negative integer"},
        bad_suite_case{"zero_trials.json", "/trials", "at least one"},
        bad_suite_case{"missing_preset.json", "/presets/full", "required field is missing"},
        bad_suite_case{"negative_seed.json", "/seed", "non-negative integer"},
        bad_suite_case{"unknown_axis.json", "/axes/colour", "unknown axis"},
        bad_suite_case{"empty_axis.json", "/axes/dtype", "non-empty array"},
        bad_suite_case{"shape_wrong_rank.json", "/axes/shape/0", "MxKxN"},
        bad_suite_case{"exponent_bit_on_int8.json", "/axes/bit/0", "no exponent bits"},
        bad_suite_case{"bit_outside_format.json", "/axes/bit/0", "outside"},
        bad_suite_case{"unknown_distribution.json", "/axes/distribution/0", "unknown distribution"},
        bad_suite_case{"bad_sigma.json", "/axes/distribution/0", "sigma must be > 0"},
        bad_suite_case{"site_outside.json", "/axes/site/0", "outside a 8x8 tensor"},
        bad_suite_case{"unknown_fault.json", "/axes/fault/0", "expected a fault model"},
        bad_suite_case{"reference_unknown_detector.json", "/reference/0/where/detector", "no detector with label"},
        bad_suite_case{"truncated_npy.json", "truncated.npy", "truncated"},
        bad_suite_case{"wrong_type_bit.json", "/axes/bit/0", "expected a string or a number"},
        bad_suite_case{"int8_gemm_exponent_bit.json", "/axes/bit/0", "no exponent bits"},
        bad_suite_case{"int8_modulus_too_large.json", "/detectors/0", "expected 2..128"},
        bad_suite_case{"eb_4bit_high_bit.json", "/axes/bit/0", "a 4-bit code has bits 0-3"},
        bad_suite_case{"gradient_file_shape.json", "/axes/shape/0", "shape=file needs a file source"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, n.find('.'));
    });

TEST(Cli, BadCommandLineValuesExitTwo) {
  const auto d = scratch_dir("badargs");
  struct {
    std::string args, fragment;
  } cases[] = {
      {"run " + k_suite + " --axis colour=red", "--axis: colour: unknown axis"},
      {"run " + k_suite + " --axis bit=exp9 --axis dtype=bf16", "--axis: bit"},
      {"run " + k_suite + " --shard 3/2", "--shard"},
      {"run " + k_suite + " --scale huge", "huge"},
      {"run " + d + "/does-not-exist.json", "cannot open"},
      {"show " + d + "/nothing.json", "cannot open"},
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args + " --out " + d + "/x.json");
    if (c.args.starts_with("show")) r = run_cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.fragment), std::string::npos) << c.args << "\n" << r.output;
  }
}

// A kernel choice from the environment that is not one: exit 2 naming the
// variable and what it takes, and no result file.
TEST(Cli, BadKernelEnvironmentExitsTwo) {
  const auto d = scratch_dir("badenv");
  for (const auto& [env, fragment] : {std::pair<std::string, std::string>{"SDCBENCH_GEMM_PREFETCH_B=maybe",
                                                                          "SDCBENCH_GEMM_PREFETCH_B: on or off; got 'maybe'"},
                                      {"SDCBENCH_SIMD=foo", "SDCBENCH_SIMD: expected scalar, avx2 or avx512"}}) {
    const auto r = run_command("env " + env + " " + SDCBENCH_BINARY + " run " + k_suite + " --quiet --out " + d + "/x.json");
    EXPECT_EQ(r.code, 2) << env << "\n" << r.output;
    EXPECT_NE(r.output.find(fragment), std::string::npos) << env << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(d + "/x.json")) << env;
  }
}

// compare on committed fixture files with hand-chosen outcomes (tests/fixtures/).
TEST(Cli, CompareFixtures) {
  const std::string a = test_data("fixtures/compare_a.json"), b = test_data("fixtures/compare_b.json"),
                    c = test_data("fixtures/compare_c_other_seed.json");
  ASSERT_EQ(run_cli("validate " + a + " " + b + " " + c).code, 0);
  // Same suite file and seed: the faults pair up, McNemar. Cell 0: 22 trials only A
  // detects, 2 only B: exact p = 2 * (1 + 24 + 276) / 2^24 = 3.588e-05, significant.
  // Cell 1: 5 and 5: p = 1.
  auto paired = run_cli("compare " + a + " " + b);
  ASSERT_EQ(paired.code, 0) << paired.output;
  EXPECT_NE(paired.output.find("McNemar 22/2"), std::string::npos) << paired.output;
  EXPECT_NE(paired.output.find("3.59e-05"), std::string::npos) << paired.output;
  EXPECT_NE(paired.output.find("McNemar 5/5"), std::string::npos) << paired.output;
  EXPECT_NE(paired.output.find("2 cells compared, 1 differ"), std::string::npos) << paired.output;
  // Another seed: different faults, pooled two-proportion test. Cell 0: 30/40 vs
  // 10/40, z = 0.5 / sqrt(0.25 * 2/40) = 4.472, p = 7.74e-06.
  auto unpaired = run_cli("compare " + a + " " + c);
  ASSERT_EQ(unpaired.code, 0) << unpaired.output;
  EXPECT_NE(unpaired.output.find("two-proportion"), std::string::npos) << unpaired.output;
  EXPECT_NE(unpaired.output.find("7.74e-06"), std::string::npos) << unpaired.output;
  EXPECT_NE(unpaired.output.find("-50.00%"), std::string::npos) << unpaired.output;
}

TEST(Cli, PublishedNumbersAreMatchedToCellsAndShownBesideMeasured) {
  const auto d = scratch_dir("reference");
  const json r = run_ok(test_data("suites/with_reference.json"), d + "/r.json");
  int with_ref = 0;
  for (const auto& c : r["cells"]) {
    const bool abft = c["detector"]["label"] == "abft";
    EXPECT_EQ(!c["reference"].is_null(), abft) << c["key"];
    if (abft && c["axes"]["bit"] == "exp1") {
      EXPECT_DOUBLE_EQ(c["reference"]["faulty.rate"].get<double>(), 0.9876);
      ++with_ref;
    }
    if (abft && c["axes"]["bit"] == "exp8") {
      EXPECT_DOUBLE_EQ(c["reference"]["faulty.rate"].get<double>(), 0.3670);
      ++with_ref;
    }
  }
  EXPECT_EQ(with_ref, 2);
  auto show = run_cli("show " + d + "/r.json");
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("paper"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("faulty.rate paper 98.76% / ours 100.00%"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("faulty.rate paper 36.70% / ours"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("reproduces none (test suite)"), std::string::npos) << show.output;
}

// Section 6.7 of 001: clean runs on weight matrices read from a checkpoint.
// The test writes a small .safetensors file; B is a tensor of it (transposed,
// as PyTorch stores Linear weights out x in).
TEST(Cli, WeightsFromASafetensorsCheckpoint) {
  const auto d = scratch_dir("weights");
  const std::string ckpt = d + "/model.safetensors";
  sdc::rng g = sdc::make_stream(5, 5, 5, sdc::trial_kind::clean, sdc::stream_purpose::data);
  boost::random::normal_distribution<double> nd(0, 0.05);
  std::vector<float> w1(48 * 96), w2(32 * 48);
  for (auto& x : w1) x = float(nd(g));
  for (auto& x : w2) x = float(nd(g));
  sdc::write_safetensors_f32(ckpt, {{"layer1.weight", {48, 96}}, {"layer2.weight", {32, 48}}}, {w1, w2});
  const std::string suite = test_data("suites/real_weights.json");
  auto r = run_cli("run " + suite + " --quiet --out " + d + "/r.json --axis 'weights=file(" + ckpt +
                   "#layer1.weight^T)' --axis shape=16x96x48");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  for (const auto& c : res["cells"]) {
    ASSERT_TRUE(c["skipped"].is_null()) << c["skipped"];
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["detector"]["label"] << " on real-layout weights";
    EXPECT_GT(c["clean"]["trials"].get<int>(), 0);
  }
  // A shape that does not match the tensor can never run: a clear error.
  auto bad = run_cli("run " + suite + " --quiet --out " + d + "/b.json --axis 'weights=file(" + ckpt +
                     "#layer1.weight)' --axis shape=16x96x48");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("48x96"), std::string::npos) << bad.output;
  auto missing = run_cli("run " + suite + " --quiet --out " + d + "/m.json --axis 'weights=file(" + ckpt + "#nope)'");
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_NE(missing.output.find("layer1.weight"), std::string::npos) << "lists the tensors it has:\n" << missing.output;
}

// A detector that cannot be built for some cell (here: no calibration entry for
// that accumulation order) is an error before the run starts: no journal, no output.
TEST(Cli, DetectorConstructionErrorsStopTheRunBeforeItStarts) {
  const auto d = scratch_dir("no-calibration");
  auto r = run_cli("run " + test_data("suites/determinism.json") + " --quiet --out " + d +
                   "/r.json --axis accumulation='kblock(8)' --axis fault=bitflip --axis bit=exp2 --axis target=C" +
                   " --axis faults_per_pair=1 --axis dtype=fp32");
  ASSERT_EQ(r.code, 0) << r.output;  // the suite's own vabft has a numeric e_max
  const std::string cal = d + "/cal.json";
  std::ofstream(cal) << R"({"schema": "sdcbench.emax/1", "entries": []})";
  auto bad = run_cli("run " + test_data("suites/real_weights.json") + " --quiet --out " + d + "/b.json --axis 'weights=none'" +
                     " --axis accumulation='kblock(8)'");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_NE(bad.output.find("no calibration for dtype"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(d + "/b.json.journal"));
  EXPECT_FALSE(std::filesystem::exists(d + "/b.json"));
}

// 001 section 6.4 at smoke scale: V-ABFT as configured for this machine
// (calibrated e_max, checksum in fp32) raises no false alarm on any of the 12
// configurations; the Wilson upper bound is what a reader should quote.
TEST(CliSlow, VabftFprSmokeHasNoFalseAlarms) {
  const auto d = scratch_dir("fpr");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/vabft_fpr.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("clean.rate paper 0.00% / ours 0.00%"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    if (c["detector"]["label"] != "vabft") continue;
    ++checked;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"];
    EXPECT_LT(c["clean"]["ci95"][1].get<double>(), 0.02) << "Wilson upper bound with 0/200";
  }
  EXPECT_EQ(checked, 12);
}

// 004 Table II smoke: integer arithmetic is exact, so no clean run is ever
// flagged; the exact check detects every fault that changed C; the modular
// check's measured rate is consistent with its closed form for the same data.
TEST(CliSlow, Int8Table2SmokeHasNoFalseAlarms) {
  const auto d = scratch_dir("int8_table2");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/dlrm_int8_table2.json --scale smoke --out " + d +
                   "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pooled over shape"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  int cells = 0;
  for (const auto& c : res["cells"]) {
    ++cells;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"] << " " << c["detector"]["label"];
    const auto& sig = c["by_significance"];
    const int64_t changed = c["faulty"]["trials"].get<int64_t>() - sig["masked"]["trials"].get<int64_t>();
    if (c["detector"]["label"] == "abft_int8_exact") {
      EXPECT_EQ(c["faulty"]["detected"].get<int64_t>(), changed) << c["key"];
    } else {
      // Binomial: measured detections within 4 sigma of the closed form's mean.
      const double p = c["metrics"]["faulty.theory_detect.mean"].get<double>();
      const double n = c["faulty"]["trials"].get<double>();
      EXPECT_NEAR(c["faulty"]["detected"].get<double>(), n * p, 4 * std::sqrt(n * p * (1 - p)) + 1e-9) << c["key"];
    }
  }
  EXPECT_EQ(cells, 4 * 2 * 2 * 2);
}

// 004 Table III smoke runs end to end; every false alarm is attributed to one side.
TEST(CliSlow, EmbeddingBagTable3SmokeAttributesFalseAlarms) {
  const auto d = scratch_dir("eb_table3");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/dlrm_eb_table3.json --scale smoke --out " + d +
                   "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("faulty.rate paper 99.50%"), std::string::npos) << r.output;
  const json res = read_json(d + "/r.json");
  for (const auto& c : res["cells"]) {
    const auto& m = c["workload_metrics"];  // the workload's MPFR attribution, beside the verdicts
    const int64_t fa = c["clean"]["flagged"];
    EXPECT_EQ(fa > 0 ? m["clean.false_alarm_from_rsum.count"].get<double>() : 0.0, double(fa)) << c["key"];
    EXPECT_GT(m["clean.rsum_err_rel_max.count"].get<double>(), 0) << c["key"];
  }
}

// 000 Table 1 smoke: type-1 faults (eq. 2 growth, the XOR, the 0->1 flip: all
// x 2^128 here) cut per row are all found by Algorithm 1 with no false alarm;
// the same single fault is invisible among per-element log-magnitudes (one
// value in 65536 barely moves the folding statistic).
TEST(CliSlow, GradientTable1Smoke) {
  const auto d = scratch_dir("grad_table1");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_table1.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    if (c["detector"]["label"] != "folding_w1" || !c["skipped"].is_null()) continue;
    EXPECT_EQ(c["clean"]["flagged"], 0) << c["key"];
    const auto& a = c["axes"];
    if (a["bit"] == "exp1" && a["fault_count"] == "1") {
      ++checked;
      EXPECT_EQ(c["faulty"]["detected"], a["split"] == "per_row" ? c["faulty"]["trials"] : json(0)) << c["key"];
    }
  }
  EXPECT_EQ(checked, 6);  // 3 fault models x 2 splits
}

// 000 Appendix A smoke: on the same samples, every multimodality test sees half
// of the values shifted by 6 sigma (>= 19 of 20), and none but the robust z
// and Silverman's test false-alarms on N(0,1) (Silverman: at most 2 of 20).
TEST(Cli, AppendixASmokeComparesTheTests) {
  const auto d = scratch_dir("appendix_a");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_appendix_a.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  int checked = 0;
  for (const auto& c : res["cells"]) {
    const std::string label = c["detector"]["label"];
    if (label.starts_with("robust_z")) continue;
    const auto& a = c["axes"];
    if (a["base"] == "normal(0,1)") {
      EXPECT_LE(c["clean"]["flagged"].get<int>(), label.starts_with("silverman") ? 2 : 0) << label << " " << c["key"];
      if (a["p"] == "0.5" && a["shift"] == "6") {
        EXPECT_GE(c["faulty"]["detected"].get<int>(), 19) << label;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 7);  // dip, silverman, uu_test, folding x2, folding_w1, w1
}

// 000 Table 3 as a suite: every cell's delta_crit and position, computed by
// the run, within the golden tolerances (0.05 and 0.01) of its published row.
TEST(Cli, Table3SuiteMatchesThePaper) {
  const auto d = scratch_dir("table3");
  auto r = run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/sdc_table3.json --scale smoke --out " + d + "/r.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const json res = read_json(d + "/r.json");
  int rows = 0;
  for (const auto& c : res["cells"]) {
    ASSERT_FALSE(c["reference"].is_null()) << c["key"];
    EXPECT_NEAR(c["workload_metrics"]["faulty.delta_crit.mean"].get<double>(),
                c["reference"]["workload_metrics.faulty.delta_crit.mean"].get<double>(), 0.05) << c["key"];
    EXPECT_NEAR(c["workload_metrics"]["faulty.position.mean"].get<double>(),
                c["reference"]["workload_metrics.faulty.position.mean"].get<double>(), 0.01) << c["key"];
    ++rows;
  }
  EXPECT_EQ(rows, 6);
}

TEST(Cli, MigrateTurnsVersion1IntoAValidVersion3WithTheSameCounts) {
  const auto d = scratch_dir("migrate");
  const std::string v1 = std::string(SDCBENCH_TEST_DATA) + "/fixtures/compare_a.json";
  auto ok = run_cli("validate " + v1);  // old files still validate
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("valid sdcbench.result/1"), std::string::npos) << ok.output;
  auto r = run_cli("migrate " + v1 + " --out " + d + "/v3.json");
  ASSERT_EQ(r.code, 0) << r.output;
  auto v = run_cli("validate " + d + "/v3.json");
  EXPECT_NE(v.output.find("valid sdcbench.result/3"), std::string::npos) << v.output;
  const json a = read_json(v1), b = read_json(d + "/v3.json");
  ASSERT_EQ(a["cells"].size(), b["cells"].size());
  for (size_t i = 0; i < a["cells"].size(); ++i) {
    const auto &x = a["cells"][i], &y = b["cells"][i];
    if (!x["skipped"].is_null()) continue;
    EXPECT_EQ(x["faulty"]["detected"], y["faulty"]["detected"]);
    EXPECT_EQ(x["faulty"]["outcomes"], y["faulty"]["outcomes"]);
    EXPECT_EQ(x["clean"]["flagged"], y["clean"]["flagged"]);
    const auto& oc = y["faulty"]["outcome_counts"];
    EXPECT_EQ(oc["missed"].get<int64_t>() + y["faulty"]["detected"].get<int64_t>(), y["faulty"]["trials"].get<int64_t>());
    const double rate = y["faulty"]["rate"].is_null() ? 0.0 : y["faulty"]["rate"].get<double>();
    EXPECT_LE(y["faulty"]["ci95"][0].get<double>(), rate);
    EXPECT_GE(y["faulty"]["ci95"][1].get<double>(), rate);
  }
  EXPECT_EQ(run_cli("show " + d + "/v3.json").code, 0);
  EXPECT_EQ(run_cli("migrate " + d + "/v3.json --out " + d + "/again.json").code, 2);  // already version 3
}

// sdcbench demo003: bad options end with exit 2 and a message naming the
// option; a run writes its lines and facts, the same for the same seeds.
TEST(Cli, Demo003OptionsAndOutput) {
  for (const char* bad : {"demo003 silent_detect --npu-asd-enable 2", "demo003 silent_check --seeds 0", "demo003 silent_check --npu-asd-enable 4",
                          "demo003 silent_check --steps -1", "demo003 nonsense"}) {
    const auto r = run_cli(bad);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.output;
  }
  EXPECT_NE(run_cli("demo003 silent_detect --npu-asd-enable 2").output.find("--npu-asd-enable"), std::string::npos);
  const auto d = scratch_dir("demo003");
  const auto a = run_cli("demo003 silent_detect --seeds 3 --steps 30 --out " + d + "/a.json");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output.find("== paper"), std::string::npos);
  const json j = read_json(d + "/a.json");
  EXPECT_EQ(j["schema"], "sdcbench.demo003/1");
  EXPECT_EQ(j["runs"].size(), 3u);
  ASSERT_EQ(j["facts"].size(), 6u);  // five facts and all of them at once
  for (const auto& f : j["facts"]) EXPECT_EQ(f["runs"], 3);
  ASSERT_EQ(run_cli("demo003 silent_detect --seeds 3 --steps 30 --out " + d + "/b.json").code, 0);
  EXPECT_EQ(read_json(d + "/b.json")["runs"].dump(), j["runs"].dump());
}
