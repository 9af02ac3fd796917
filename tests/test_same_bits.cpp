// Same bits on every CPU (METHODOLOGY.md): a small training suite and the
// quick GEMM suite give byte-identical cells, and the pretraining gives a
// byte-identical checkpoint, under every instruction-set cap this machine
// supports (sdcbench's SIMD level and GEMM prefetch variant, ATen's
// capability, oneDNN's ISA, OpenBLAS's core type, one setting of each library
// per run, and all of them at their lowest at once) as without any. A CPU
// without a feature stands in for a cap of it, so these runs are what other
// x86-64 CPUs compute. And `validate --reproduce` of a training
// set says identical.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/simd/simd_level.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The lower settings of each library this CPU supports (a CPU without a
// feature runs what its cap runs), the lowest first. The scalar SIMD level
// runs the training GEMMs 14x slower (58 s on an AMD EPYC): it runs once, in
// the all-lowest run.
struct library_settings {
  std::vector<std::string> simd, gemm, aten, onednn, openblas;
};
library_settings lower_settings() {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  std::vector<std::string> simd, aten{"ATEN_CPU_CAPABILITY=default"}, onednn{"DNNL_MAX_CPU_ISA=SSE41"},
      openblas{"OPENBLAS_CORETYPE=Prescott"};
  for (const auto l : sdc::supported_simd_levels())
    if (l != sdc::active_simd_level() && l != sdc::simd_level::scalar)
      simd.push_back(std::string("SDCBENCH_SIMD=") + sdc::simd_name(l));
  // the fixed-order GEMM's other tuning (speed only)
  const bool intel = sdc::active_gemm_variant().tuning == sdc::gemm_tuning::intel;
  const std::vector<std::string> gemm{std::string("SDCBENCH_GEMM_TUNING=") + (intel ? "generic" : "intel")};
  if (avx512) aten.push_back("ATEN_CPU_CAPABILITY=avx512");
  if (avx2) onednn.push_back("DNNL_MAX_CPU_ISA=AVX2");
  if (__builtin_cpu_supports("avx")) openblas.push_back("OPENBLAS_CORETYPE=Sandybridge");
  if (avx2) openblas.push_back("OPENBLAS_CORETYPE=Haswell");
  return {simd, gemm, aten, onednn, openblas};
}

// The capped runs: run i sets every library's i-th lower setting at once
// (the libraries are independent, so one run tests one setting of each:
// 3 runs instead of 9 on an AVX-512 CPU; a failure names the run's whole
// environment), then all of them at their lowest, scalar included.
std::vector<std::string> capped_runs() {
  const library_settings s = lower_settings();
  const std::vector<std::string>* libs[] = {&s.simd, &s.gemm, &s.aten, &s.onednn, &s.openblas};
  std::vector<std::string> runs;
  for (size_t i = 0;; ++i) {
    std::string env;
    for (const auto* lib : libs)
      if (i < lib->size()) env += (env.empty() ? "" : " ") + (*lib)[i];
    if (env.empty()) break;
    runs.push_back(env);
  }
  runs.push_back("SDCBENCH_SIMD=scalar " + s.aten.front() + " " + s.onednn.front() + " " + s.openblas.front());
  return runs;
}

struct run_result {
  json training, gemm;
  std::string checkpoint_sha;
};

// The training suite's configuration with a fifteenth of its pretraining (10
// steps, not 150): every step runs the same kinds of arithmetic, so a cap
// that changed a bit changes it in the first steps; the all-lowest run
// pretrains through the scalar GEMM, 14x slower (CI's time).
std::string short_pretraining_config(const std::string& dir) {
  json c = read_json(std::string(SDCBENCH_SOURCE_DIR) + "/suites/training/episodes_bf16.json");
  c["pretrain"]["steps"] = 10;
  const std::string path = dir + "/episodes_short_pretraining.json";
  std::ofstream(path) << c.dump();
  return path;
}

// Both suites at smoke scale in their own cache folder (so the pretraining runs
// under the cap too); the training suite limited to two sites, two natural
// runs (the least a band takes), a 6-step warm-up (the history the stateful
// detectors start from) and 4-step episodes (the fault at step 2, two
// steps after it) to stay small: what is compared is the same either way.
run_result run_under(const std::string& env, const std::string& dir, const std::string& config) {
  fs::create_directories(dir + "/cache");
  const std::string pre = "env SDCBENCH_CACHE=" + dir + "/cache " + env + " ";
  const std::string src = SDCBENCH_SOURCE_DIR;
  auto t = run_command(pre + SDCBENCH_BINARY + " run " + src +
                       "/suites/quick_training.json --scale smoke --quiet --axis site=grad:all,gemm:all --axis "
                       "natural_runs=2 --axis warmup_steps=6 --axis steps=4 --axis config=" +
                       config + " --out " + dir + "/t.json");
  EXPECT_EQ(t.code, 0) << env << ": " << t.output;
  auto g = run_command(pre + SDCBENCH_BINARY + " run " + src + "/suites/quick.json --scale smoke --quiet --out " + dir + "/g.json");
  EXPECT_EQ(g.code, 0) << env << ": " << g.output;
  run_result r;
  if (t.code != 0 || g.code != 0) return r;
  r.training = read_json(dir + "/t.json");
  r.gemm = read_json(dir + "/g.json");
  for (const auto& e : fs::directory_iterator(dir + "/cache"))
    if (e.path().extension() == ".pt") r.checkpoint_sha = sdc::file_sha256_hex(e.path().string());
  return r;
}

TEST(SameBits, CellsAndCheckpointAreIdenticalUnderEveryInstructionSetCap) {
  const std::string dir = scratch_dir("same-bits");
  const std::string config = short_pretraining_config(dir);
  const run_result base = run_under("", dir + "/uncapped", config);
  ASSERT_FALSE(base.checkpoint_sha.empty());
  ASSERT_GT(base.training["cells"].size(), 0u);
  EXPECT_TRUE(base.training["provenance"]["numerics"]["aten_capability_pinned"].get<bool>() ||
              !__builtin_cpu_supports("avx2"));
  int n = 0;
  for (const auto& env : capped_runs()) {
    const run_result r = run_under(env, dir + "/cap" + std::to_string(n++), config);
    EXPECT_EQ(r.checkpoint_sha, base.checkpoint_sha) << env;
    EXPECT_TRUE(r.training["cells"] == base.training["cells"]) << env;
    EXPECT_TRUE(r.training["recordings"] == base.training["recordings"]) << env;
    EXPECT_TRUE(r.gemm["cells"] == base.gemm["cells"]) << env;
  }
}

// A training set re-run by `validate --reproduce` (tests/test_reproduce_cli.cpp
// tests the command itself on a GEMM suite, under the sanitizers).
TEST(SameBits, ValidateReproduceOfATrainingSetSaysIdentical) {
  const std::string dir = scratch_dir("reproduce");
  const std::string set = dir + "/t.json";
  ASSERT_EQ(run_cli("run " + std::string(SDCBENCH_SOURCE_DIR) + "/suites/quick_training.json --scale smoke --quiet --axis site=grad:all --out " + set).code, 0);
  const auto ok = run_cli("validate --reproduce " + set + " --out-dir " + dir + "/again --threads 2");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("reproduced: "), std::string::npos) << ok.output;
}

// A set written before training had its `lifetime` axis (the smoke set of
// training_sites as committed until 69807fe, kept as a fixture) re-runs to
// the same cells: the axis's default is left out of the key (the same fault
// draws) and out of the comparison (axis_def::keyless_value).
TEST(SameBits, ATrainingSetFromBeforeTheLifetimeAxisStillReproduces) {
  const std::string dir = scratch_dir("reproduce_old");
  const std::string set = std::string(SDCBENCH_TEST_DATA) + "/fixtures/training_sites_before_lifetime.json";
  ASSERT_FALSE(read_json(set)["suite"]["axes"].contains("lifetime")) << "the set must predate the axis";
  const auto ok = run_cli("validate --reproduce " + set + " --out-dir " + dir + "/again --threads 2");
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("reproduced: 14 cells and 14 recordings identical"), std::string::npos) << ok.output;
}

}  // namespace
