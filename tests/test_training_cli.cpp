// The training workload from the command line: `sdcbench train` (records,
// bad configurations), a training campaign (cells independent of the thread
// count, the training curves recorded) and `backend: mpi` under mpirun.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"

// `sdcbench train` end to end: records written, bad input ends with exit 2 and the field.

namespace {

TEST(TrainingCli, TrainWritesPerStepRecordsOfEveryRank) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train");
  std::ofstream(dir + "/cfg.json") << R"({"model": {"layers": 1, "width": 32, "heads": 2, "seq": 96},
    "ranks": 2, "micro_batch": 2, "steps": 3, "examples": 50, "eval_examples": 8, "tensor_norms": true})";
  const auto r = run_cli("train " + dir + "/cfg.json --out " + dir + "/out.json --quiet");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(dir + "/out.json");
  EXPECT_EQ(j["schema"], "sdcbench.train/1");
  EXPECT_TRUE(j["complete"].get<bool>());
  ASSERT_EQ(j["records"].size(), 3u);
  for (const auto& rec : j["records"]) {
    EXPECT_EQ(rec["loss"].size(), 2u);
    EXPECT_EQ(rec["grad_norm"].size(), 2u);
    EXPECT_EQ(rec["tensor_norms"][0].size(), j["parameters"].size());
  }
}

TEST(TrainingCli, ATrainingSuiteTrainsItsFirstConfiguration) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train-suite");
  std::filesystem::create_directories(dir + "/training");
  std::ofstream(dir + "/training/tiny.json") << R"({"model": {"layers": 1, "width": 16, "heads": 2, "seq": 64},
    "ranks": 2, "micro_batch": 2, "steps": 2, "examples": 20, "eval_examples": 4})";
  std::ofstream(dir + "/suite.json") << R"({"schema": "sdcbench.suite/1", "name": "s", "workload": "training",
    "axes": {"config": ["training/tiny.json"]}, "detectors": [{"name": "nonfinite_grad"}]})";
  auto r = run_cli("train " + dir + "/suite.json --quiet --out " + dir + "/out.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto j = read_json(dir + "/out.json");
  EXPECT_EQ(j["config"]["model"]["width"], 16);
  EXPECT_EQ(j["records"].size(), 2u);
  std::ofstream(dir + "/gemm.json") << R"({"schema": "sdcbench.suite/1", "name": "g", "workload": "gemm", "axes": {}})";
  r = run_cli("train " + dir + "/gemm.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("workload: a suite of the training workload"), std::string::npos) << r.output;
}

TEST(TrainingCli, BadConfigurationsExitTwoNamingFileAndField) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train-bad");
  std::ofstream(dir + "/heads.json") << R"({"model": {"width": 30, "heads": 4}})";
  auto r = run_cli("train " + dir + "/heads.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("heads.json: /model/heads: a divisor of width 30; got 4"), std::string::npos) << r.output;
  std::ofstream(dir + "/data.json") << R"({"data": "missing.json"})";
  r = run_cli("train " + dir + "/data.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
  std::ofstream(dir + "/corpus.json") << R"({"pretrain": {"corpus": "no-such-corpus"}})";
  r = run_cli("train " + dir + "/corpus.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no-such-corpus: corpus:"), std::string::npos) << r.output;
}

}  // namespace

namespace {

// A training campaign's cells do not depend on the thread count (episodes fork
// from one checkpoint; every stream is keyed by the episode).
TEST(TrainingCli, CampaignCellsAreTheSameOnOneAndTwoThreads) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train-campaign");
  const std::string suite = std::string(SDCBENCH_SOURCE_DIR) + "/suites/training_sites.json";
  // 2 natural runs (the least a band takes, not the preset's 6) and a 6-step
  // warm-up: what is compared is the same either way (CI's time).
  const std::string axes = " --axis site=grad:blocks.0.mlp.fc1.weight,bucket --axis fault=bitflip --axis bit=exp1"
                           " --axis natural_runs=2 --axis warmup_steps=6 --quiet";
  auto a = run_cli("run " + suite + " --scale smoke --threads 1 --out " + dir + "/a.json" + axes);
  ASSERT_EQ(a.code, 0) << a.output;
  auto b = run_cli("run " + suite + " --scale smoke --threads 2 --out " + dir + "/b.json" + axes);
  ASSERT_EQ(b.code, 0) << b.output;
  const auto ja = read_json(dir + "/a.json"), jb = read_json(dir + "/b.json");
  EXPECT_EQ(ja["cells"], jb["cells"]);
  ASSERT_EQ(ja["cells"].size(), 2u);
  for (const auto& c : ja["cells"]) {
    EXPECT_EQ(c["faulty"]["trials"].get<int>() + c["faulty"].value("skipped", 0), 4) << c.dump();
    EXPECT_TRUE(c.contains("workload_metrics")) << c.dump();
  }
  EXPECT_EQ(ja["recordings"], jb["recordings"]);
  ASSERT_EQ(ja["recordings"].size(), 2u);
  for (const auto& r : ja["recordings"]) {  // the training curves as typed series: 6 steps, clean and faulty
    std::set<std::string> names;
    for (const auto& s : r["series"]) {
      EXPECT_EQ(s["over"], "step");
      for (const char* kind : {"clean", "faulty"}) {
        ASSERT_TRUE(s[kind].is_object()) << s.dump();
        EXPECT_EQ(s[kind]["median"].size(), 6u) << s.dump();
        const double episodes = s[kind]["count"][0], trials = ja["suite"]["trials"][kind];
        EXPECT_GE(episodes, 1.0);
        EXPECT_LE(episodes, trials);
        EXPECT_EQ(s[kind]["count"][5].get<double>(), episodes) << "every episode of the kind reached step 5";
      }
      if (s["rank"].is_null()) names.insert(s["name"].get<std::string>());
    }
    EXPECT_EQ(names, (std::set<std::string>{"grad_norm", "grad_norm_range", "loss", "loss_range"}));
    EXPECT_TRUE(r["metrics"].empty()) << "the curves are series, not scalar names";
  }
  EXPECT_EQ(run_cli("validate " + dir + "/a.json").code, 0);
}

}  // namespace

namespace {

// `backend: mpi` under mpirun (OpenMPI, --oversubscribe on 2 cores): with the
// ordered reduction the trajectory is bit-identical to the in-process run.
TEST(TrainingMpi, OrderedReductionGivesTheInProcessTrajectoryBitForBit) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train-mpi");
  for (const char* buckets : {"fp32", "bf16"}) {
    SCOPED_TRACE(buckets);
    const std::string common = std::string(R"("model": {"layers": 1, "width": 32, "heads": 2, "seq": 96, "dropout": 0.1},
      "ranks": 4, "micro_batch": 2, "steps": 4, "examples": 100, "eval_examples": 8, "tensor_norms": true, "consistency": true,
      "seed_policy": "S1-3", "buckets": ")") + buckets + "\"";
    std::ofstream(dir + "/in.json") << "{" << common << R"(, "backend": "inprocess"})";
    std::ofstream(dir + "/mpi.json") << "{" << common << R"(, "backend": "mpi"})";
    std::ofstream(dir + "/own.json") << "{" << common << R"(, "backend": "mpi", "reduction": "mpi"})";
    auto a = run_cli("train " + dir + "/in.json --quiet --out " + dir + "/a.json");
    ASSERT_EQ(a.code, 0) << a.output;
    auto b = run_mpirun(4, "train " + dir + "/mpi.json --quiet --out " + dir + "/b.json");
    ASSERT_EQ(b.code, 0) << b.output;
    auto c = run_mpirun(4, "train " + dir + "/own.json --quiet --out " + dir + "/c.json");
    ASSERT_EQ(c.code, 0) << c.output;
    const auto ja = read_json(dir + "/a.json"), jb = read_json(dir + "/b.json"), jc = read_json(dir + "/c.json");
    EXPECT_EQ(ja["records"], jb["records"]);  // 002's cosines too: the extra all-reduce of unit vectors
    ASSERT_EQ(ja["records"][0]["cos_to_rest"].size(), 4u);
    EXPECT_GT(ja["records"][0]["cos_mean"].get<double>(), -1);
    EXPECT_EQ(ja["final_params_sha256"], jb["final_params_sha256"]);
    EXPECT_EQ(ja["eval_response_loss"], jb["eval_response_loss"]);
    // MPI's own algorithm sums in its own order: the same run up to rounding.
    for (size_t s = 0; s < ja["records"].size(); ++s)
      for (int r = 0; r < 4; ++r)
        EXPECT_NEAR(jc["records"][s]["loss"][r].get<double>(), ja["records"][s]["loss"][r].get<double>(), 1e-3);
  }
}

TEST(TrainingMpi, AProcessCountThatIsNotTheRankCountEndsTheJobWithExitTwo) {
  using namespace sdc::testing;
  const std::string dir = scratch_dir("train-mpi-bad");
  std::ofstream(dir + "/mpi.json") << R"({"model": {"layers": 1, "width": 32, "heads": 2}, "ranks": 4, "backend": "mpi",
    "examples": 50, "eval_examples": 4})";
  const auto r = run_mpirun(2, "train " + dir + "/mpi.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("ranks: 4 (backend mpi runs one process per rank); mpirun started 2"), std::string::npos) << r.output;
}

}  // namespace
