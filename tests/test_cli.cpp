// End-to-end tests of the sdcbench command: determinism whatever the thread
// count, resumption after a crash, sharding, validation, axis overrides,
// compare and the published numbers beside ours. Bad input:
// test_cli_inputs.cpp; the paper suites at smoke scale: test_cli_suites.cpp
// (one program, test_cli).
#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "cli_runner.hpp"

using namespace sdc::testing;
using json = nlohmann::json;

namespace {

const std::string k_suite = test_data("suites/determinism.json");

json run_ok(const std::string& args, const std::string& out) {
  auto r = run_cli("run " + args + " --quiet --out " + out);
  EXPECT_EQ(r.code, 0) << r.output;
  return read_json(out);
}

// The suite on one thread, run once for every test that compares a run with it
// (the cells are the same on any thread count: SameCellsWithOneOrTwoThreads).
const json& reference_run() {
  static const json r = run_ok(k_suite + " --threads 1", scratch_dir("reference-run") + "/r.json");
  return r;
}

}  // namespace

TEST(Cli, SameCellsWithOneOrTwoThreads) {
  const auto d = scratch_dir("threads");
  const json& a = reference_run();
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
  const json& full = reference_run();
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
  const json& whole = reference_run();
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

// A cell whose faulty trials are zero on a side has no detection rate (null):
// compare shows it, tests nothing and says so, never a difference of 0;
// the family (Bonferroni) is the pairs tested.
TEST(Cli, CompareLeavesCellsWithoutFaultyTrialsUncompared) {
  const auto d = scratch_dir("compare-no-faulty");
  json suite = read_json(k_suite);
  suite["trials"]["faulty"] = 0;
  std::ofstream(d + "/s.json") << suite.dump();
  const std::string axes = " --axis dtype=fp32 --axis target=C --axis bit=exp2";
  const json z = run_ok(d + "/s.json" + axes, d + "/z.json");
  run_ok(k_suite + axes, d + "/r.json");
  int cells = 0;
  for (const auto& c : z["cells"]) {
    if (!c["skipped"].is_null()) continue;  // a cell that can never run: compare leaves it out
    EXPECT_EQ(c["faulty"]["trials"], 0);
    EXPECT_TRUE(c["faulty"]["rate"].is_null());
    ++cells;
  }
  ASSERT_GT(cells, 0);
  for (const std::string& args : {"compare " + d + "/z.json " + d + "/z.json", "compare " + d + "/r.json " + d + "/z.json"}) {
    auto c = run_cli(args);
    ASSERT_EQ(c.code, 0) << c.output;
    EXPECT_NE(c.output.find("no faulty trials"), std::string::npos) << c.output;
    EXPECT_EQ(c.output.find("+0.00%"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find("0 cells compared, 0 differ"), std::string::npos) << c.output;
    EXPECT_NE(c.output.find(fmt::format("; {} not compared (no faulty trials on a side)", cells)), std::string::npos) << c.output;
  }
  auto det = run_cli("compare " + d + "/z.json --detectors 'nan_inf,abft(1e-4)'");
  ASSERT_EQ(det.code, 0) << det.output;
  EXPECT_NE(det.output.find("0 cells, 0 differ"), std::string::npos) << det.output;
  EXPECT_NE(det.output.find("not compared"), std::string::npos) << det.output;
  // The suite with its faulty trials: cells whose every faulty trial was
  // skipped (no site for the fault) are the uncompared ones, the rest tested.
  const json r = read_json(d + "/r.json");
  int tested = 0, untested = 0;
  for (const auto& c : r["cells"])
    if (c["skipped"].is_null()) (c["faulty"]["trials"].get<int>() > 0 ? tested : untested) += 1;
  ASSERT_GT(tested, 0);
  auto same = run_cli("compare " + d + "/r.json " + d + "/r.json");
  ASSERT_EQ(same.code, 0) << same.output;
  EXPECT_NE(same.output.find(fmt::format("{} cells compared, 0 differ", tested)), std::string::npos) << same.output;
  EXPECT_EQ(same.output.find("not compared") != std::string::npos, untested > 0) << same.output;
  auto rep = run_cli("compare " + d + "/r.json " + d + "/z.json --report " + d + "/rep0");
  ASSERT_EQ(rep.code, 0) << rep.output;
  std::ifstream page(d + "/rep0/index.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find(fmt::format("0 cells and detectors compared; 0 differ at family-wise alpha 0.05 (Bonferroni); {} not compared", cells)),
            std::string::npos);
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
