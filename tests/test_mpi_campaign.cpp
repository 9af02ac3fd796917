// Campaigns over the processes of an MPI job (harness/campaign/distributed.*):
// `mpirun --oversubscribe -np 3 sdcbench run` gives the one-process cells byte
// for byte; a job killed after some cells resumes with another process count,
// or from its journaled chunks alone in one process, and still gives them; a bad suite and an error on a worker end the whole job
// with exit 2 and one sdcbench message.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "cli_runner.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;


size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::string suite(const char* name) { return std::string(SDCBENCH_SOURCE_DIR) + "/suites/" + name + ".json"; }

// The training suites only in a build with the training workload
// (tests/CMakeLists.txt: the clang sanitizer build has none).
#ifdef SDCBENCH_WITH_TRAINING
const std::vector<const char*> k_suites = {"quick", "sdc_table1_training"};
#else
const std::vector<const char*> k_suites = {"quick"};
#endif

// The training suite smaller than its smoke preset (one bit, not two: 32
// cells; 2 natural runs, the least a band takes, not 6; a 6-step warm-up,
// which every process of the job runs, not 20): what is compared is the same
// either way (CI's time).
std::string smaller(const std::string& s) {
  return s == "sdc_table1_training" ? " --axis bit=exp1 --axis natural_runs=2 --axis warmup_steps=6" : "";
}

TEST(MpiCampaign, ThreeProcessesGiveTheOneProcessCells) {
  const std::string dir = scratch_dir("mpi-cells");
  for (const char* s : k_suites) {
    SCOPED_TRACE(s);
    const auto one = run_cli("run " + suite(s) + " --scale smoke --quiet" + smaller(s) + " --out " + dir + "/one.json");
    ASSERT_EQ(one.code, 0) << one.output;
    const auto three = run_mpirun(3, "run " + suite(s) + " --scale smoke --quiet --threads 2" + smaller(s) + " --out " + dir + "/three.json");
    ASSERT_EQ(three.code, 0) << three.output;
    const json a = read_json(dir + "/one.json"), b = read_json(dir + "/three.json");
    EXPECT_EQ(a["cells"], b["cells"]);
    EXPECT_EQ(a["recordings"], b["recordings"]);
    EXPECT_EQ(b["provenance"]["job"]["processes"], 3);
    EXPECT_EQ(b["provenance"]["job"]["hosts"].size(), 1u);
    EXPECT_EQ(run_cli("validate " + dir + "/three.json").code, 0);
    EXPECT_EQ(count_of(three.output, "wrote "), 1u) << three.output;  // rank 0 alone writes and prints
  }
}

TEST(MpiCampaign, AKilledJobResumesWithAnotherProcessCount) {
  const std::string dir = scratch_dir("mpi-resume");
  const std::string args = "run " + suite("quick") + " --scale smoke --quiet --out " + dir + "/r.json";
  const auto one = run_cli("run " + suite("quick") + " --scale smoke --quiet --out " + dir + "/one.json");
  ASSERT_EQ(one.code, 0) << one.output;
  const auto killed = run_mpirun(3, args + " --stop-after-cells 5");
  EXPECT_NE(killed.code, 0);
  std::ifstream journal(dir + "/r.json.journal");
  int cells = 0, chunks = 0;
  std::string header, chunk_lines;
  for (std::string l; std::getline(journal, l);) {
    if (header.empty()) header = l + "\n";
    else if (l.find("\"chunk\"") != std::string::npos) ++chunks, chunk_lines += l + "\n";
    else ++cells;
  }
  EXPECT_EQ(cells, 5);
  EXPECT_GE(chunks, 5);  // every finished chunk is journaled as it arrives
  // The same journal without its cell lines: a job killed with chunks of unfinished cells.
  std::ofstream(dir + "/c.json.journal") << header << chunk_lines;
  const auto resumed = run_mpirun(2, args + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  const json one_cells = read_json(dir + "/one.json")["cells"];
  EXPECT_EQ(one_cells, read_json(dir + "/r.json")["cells"]);
  const auto alone = run_cli("run " + suite("quick") + " --scale smoke --quiet --resume --out " + dir + "/c.json");
  ASSERT_EQ(alone.code, 0) << alone.output;
  EXPECT_EQ(one_cells, read_json(dir + "/c.json")["cells"]);  // one process finishes the chunks' cells
}

TEST(MpiCampaign, ErrorsEndTheJobWithExitTwoAndOneMessage) {
  const std::string dir = scratch_dir("mpi-errors");
  std::ofstream(dir + "/bad.json") << R"({"schema": "sdcbench.suite/1", "name": "bad", "workload": "gemm",
    "axes": {"dtype": ["fp32"]}, "detectors": [{"name": "nan_inf"}], "trials": {"faulty": 1, "clean": 1},
    "presets": {"smoke": {}, "full": {}}})";
  auto r = run_mpirun(3, "run " + dir + "/bad.json --out " + dir + "/o.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(count_of(r.output, "sdcbench: error"), 1u) << r.output;
  EXPECT_NE(r.output.find("bad.json: /seed"), std::string::npos) << r.output;
#ifdef SDCBENCH_WITH_TRAINING
  // A detector that fails while running, on whichever process runs it.
  std::ofstream(dir + "/run.json") << R"js({"schema": "sdcbench.suite/1", "name": "r", "workload": "training", "seed": 1,
    "axes": {"config": [")js" << SDCBENCH_SOURCE_DIR << R"js(/suites/training/episodes.json"], "steps": ["2"], "when": ["specific(1)"]},
    "detectors": [{"name": "feature_value", "params": {"tensor": "no.such.tensor"}}],
    "trials": {"faulty": 4, "clean": 4}, "presets": {"smoke": {}, "full": {}}})js";
  r = run_mpirun(3, "run " + dir + "/run.json --quiet --out " + dir + "/o.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(count_of(r.output, "sdcbench: error"), 1u) << r.output;
  EXPECT_NE(r.output.find("tensor 'no.such.tensor' is no parameter"), std::string::npos) << r.output;
  EXPECT_FALSE(std::ifstream(dir + "/o.json").good());  // no result set that looks complete
#endif
}

}  // namespace
