// The sdcbench command on bad input: malformed suites, command-line values
// and kernel environment variables exit 2 naming the file, the field and
// what was expected; a checkpoint's weights are read or refused clearly; a
// detector that cannot be built stops the run before it starts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "foundation/io/safetensors.hpp"
#include "foundation/random/streams.hpp"

#include <boost/random/normal_distribution.hpp>

using namespace sdc::testing;
using json = nlohmann::json;

namespace {
const std::string k_inputs_suite = test_data("suites/determinism.json");
}  // namespace

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
      {"run " + k_inputs_suite + " --axis colour=red", "--axis: colour: unknown axis"},
      {"run " + k_inputs_suite + " --axis bit=exp9 --axis dtype=bf16", "--axis: bit"},
      {"run " + k_inputs_suite + " --shard 3/2", "--shard"},
      {"run " + k_inputs_suite + " --scale huge", "huge"},
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
  for (const auto& [env, fragment] :
       {std::pair<std::string, std::string>{"SDCBENCH_GEMM_TUNING=maybe", "SDCBENCH_GEMM_TUNING: generic or intel; got 'maybe'"},
        {"SDCBENCH_SIMD=foo", "SDCBENCH_SIMD: expected scalar, avx2 or avx512"}}) {
    const auto r = run_command("env " + env + " " + SDCBENCH_BINARY + " run " + k_inputs_suite + " --quiet --out " + d + "/x.json");
    EXPECT_EQ(r.code, 2) << env << "\n" << r.output;
    EXPECT_NE(r.output.find(fragment), std::string::npos) << env << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(d + "/x.json")) << env;
  }
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
