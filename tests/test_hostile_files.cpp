// Hostile files end with exit 2 and a message naming the file and what was
// expected, never a crash, a hang or a huge allocation (issue 15's list):
// tensor headers that claim more than the file holds, samples every `stat`
// must answer, journals of another run, shards of other suites, result sets
// whose counts do not add up, two runs on one --out, and kills at any moment.
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <regex>

#include "cli_runner.hpp"
#include "foundation/io/npy.hpp"

namespace {

using namespace sdc::testing;
using json = nlohmann::json;

void write_bytes(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

// A .npy whose header says `shape`, followed by `data` bytes.
std::string npy_with_shape(const std::string& shape, size_t data) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  h += std::string((64 - (10 + h.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += char(h.size() & 0xff), out += char(h.size() >> 8);
  return out + h + std::string(data, '\0');
}

std::string safetensors_with(const std::string& header, size_t data, uint64_t claimed_len = 0) {
  std::string out(8, '\0');
  const uint64_t n = claimed_len ? claimed_len : header.size();
  std::memcpy(out.data(), &n, 8);
  return out + header + std::string(data, '\0');
}

TEST(HostileFiles, NpyHeadersClaimingMoreThanTheFileAreRefusedBeforeAllocating) {
  const auto dir = scratch_dir("hostile-npy");
  const std::pair<const char*, const char*> cases[] = {{"576460752303423488,", "truncated"},        // 2^59 elements
                                                       {"4294967296, 4294967296, 16", "2^62"},    // the product overflows
                                                       {"99999999999999999999999,", "2^62"},      // no int64 holds it
                                                       {"100,", "truncated"}};
  for (const auto& [shape, says] : cases) {
    write_bytes(dir + "/x.npy", npy_with_shape(shape, 16));
    const auto r = run_cli("stat w1 " + dir + "/x.npy");
    EXPECT_EQ(r.code, 2) << shape << "\n" << r.output;
    EXPECT_NE(r.output.find("x.npy"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << shape << "\n" << r.output;
  }
}

TEST(HostileFiles, SafetensorsHeadersThatLieAreRefused) {
  const auto dir = scratch_dir("hostile-st");
  const std::string suite = R"js({"schema": "sdcbench.suite/1", "name": "st", "workload": "gradient", "seed": 1,
    "axes": {"source": ["file(g.safetensors#*)"], "shape": ["file"], "dtype": ["fp32"]}, "detectors": [{"name": "w1"}],
    "trials": {"faulty": 1, "clean": 1}, "presets": {"smoke": {}, "full": {}}})js";
  write_bytes(dir + "/s.json", suite);
  const std::string two = R"js({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)js";
  const std::pair<std::string, const char*> cases[] = {
      {safetensors_with("{}", 0, uint64_t(1) << 40), "header_size"},
      {safetensors_with(two + R"js("b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})js", 12), "overlap"},
      {safetensors_with(R"js({"a": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})js", 8), "2^62"},
      {safetensors_with(R"js({"a": {"dtype": "F32", "shape": [2], "data_offsets": "0-8"}})js", 8), "data_offsets"},
      {safetensors_with(two + R"js("b": {"dtype": "F32", "shape": [100], "data_offsets": [8, 408]}})js", 8), "truncated"}};
  for (const auto& [bytes, says] : cases) {
    write_bytes(dir + "/g.safetensors", bytes);
    const auto r = run_cli("run " + dir + "/s.json --quiet --out " + dir + "/o.json");
    EXPECT_EQ(r.code, 2) << says << "\n" << r.output;
    EXPECT_NE(r.output.find("g.safetensors"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/o.json"));
  }
}

TEST(HostileFiles, EveryStatAnswersEmptySingleConstantAndNonFiniteSamples) {
  const auto dir = scratch_dir("hostile-stat");
  write_bytes(dir + "/empty.txt", "");
  write_bytes(dir + "/one.txt", "3\n");
  write_bytes(dir + "/const.txt", "5 5 5 5\n");
  for (const char* test : {"w1", "folding", "folding_w1", "dip", "silverman", "uu_test", "robust_z"}) {
    for (const char* f : {"empty", "one"}) {
      const auto r = run_cli(std::string("stat ") + test + " " + dir + "/" + f + ".txt");
      EXPECT_EQ(r.code, 2) << test << " " << f << "\n" << r.output;
      EXPECT_NE(r.output.find("expected at least 3 values"), std::string::npos) << r.output;
    }
    const auto c = run_cli(std::string("stat ") + test + " " + dir + "/const.txt");
    ASSERT_EQ(c.code, 0) << test << "\n" << c.output;
    EXPECT_EQ(json::parse(c.output)["decision"], "constant sample") << test;
    // Every position, for one test (they share the reader); the last for the others.
    for (const char* bad : {"nan", "inf", "-inf"})
      for (int at = std::string(test) == "w1" ? 0 : 3; at < 4; ++at) {
        std::string v[4] = {"1", "2", "3", "4"};
        v[at] = bad;
        write_bytes(dir + "/bad.txt", v[0] + " " + v[1] + " " + v[2] + " " + v[3] + "\n");
        const auto r = run_cli(std::string("stat ") + test + " " + dir + "/bad.txt");
        EXPECT_EQ(r.code, 2) << test << " " << bad << " at " << at << "\n" << r.output;
        EXPECT_NE(r.output.find("value " + std::to_string(at + 1) + ": expected finite numbers"), std::string::npos) << r.output;
      }
  }
}

// The determinism suite, one dtype and accumulation: a few seconds a run.
std::string small_suite(const std::string& dir, const std::string& name, int seed) {
  json s = read_json(std::string(SDCBENCH_TEST_DATA) + "/suites/determinism.json");
  s["name"] = name, s["seed"] = seed;
  s["axes"]["dtype"] = {"bf16"}, s["axes"]["accumulation"] = {"sequential"};
  const std::string path = dir + "/" + name + ".json";
  std::ofstream(path) << s.dump(1);
  return path;
}

TEST(HostileFiles, AJournalOfAnotherRunIsRefusedNotMerged) {
  const auto dir = scratch_dir("hostile-journal");
  const auto a = small_suite(dir, "small", 1);
  ASSERT_EQ(run_cli("run " + a + " --quiet --out " + dir + "/r.json --stop-after-cells 1").code, 3);
  ASSERT_TRUE(std::filesystem::exists(dir + "/r.json.journal"));
  small_suite(dir, "small", 2);  // the same file, another seed
  auto r = run_cli("run " + a + " --quiet --resume --out " + dir + "/r.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("written for another suite version, scale, seed"), std::string::npos) << r.output;
  small_suite(dir, "small", 1);
  for (const char* other : {"--scale full", "--axis bit=exp1"}) {
    r = run_cli("run " + a + " --quiet --resume " + other + " --out " + dir + "/r.json");
    EXPECT_EQ(r.code, 2) << other << "\n" << r.output;
    EXPECT_NE(r.output.find("r.json.journal: line 1"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/r.json"));
  r = run_cli("run " + a + " --quiet --resume --out " + dir + "/r.json");  // the right run still resumes
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(run_cli("validate " + dir + "/r.json").code, 0);
}

TEST(HostileFiles, ShardsOfDifferentSuitesAreNotMerged) {
  const auto dir = scratch_dir("hostile-merge");
  const auto a = small_suite(dir, "first", 1), b = small_suite(dir, "second", 1);
  ASSERT_EQ(run_cli("run " + a + " --quiet --shard 0/2 --out " + dir + "/a0.json").code, 0);
  ASSERT_EQ(run_cli("run " + b + " --quiet --shard 1/2 --out " + dir + "/b1.json").code, 0);
  const auto r = run_cli("merge " + dir + "/a0.json " + dir + "/b1.json --out " + dir + "/m.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("b1.json: /suite/name: differs from"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/m.json"));
}

TEST(HostileFiles, ValidateRejectsCountsThatDoNotAddUp) {
  const auto dir = scratch_dir("hostile-validate");
  json r = read_json(std::string(SDCBENCH_TEST_DATA) + "/fixtures/compare_a.json");
  ASSERT_EQ(run_cli("validate " + std::string(SDCBENCH_TEST_DATA) + "/fixtures/compare_a.json").code, 0);
  r["cells"][0]["faulty"]["detected"] = r["cells"][0]["faulty"]["trials"].get<int64_t>() + 1;
  std::ofstream(dir + "/bad.json") << r.dump();
  const auto v = run_cli("validate " + dir + "/bad.json");
  EXPECT_EQ(v.code, 1) << v.output;
  EXPECT_NE(v.output.find("detected"), std::string::npos) << v.output;
  EXPECT_EQ(run_cli("show " + dir + "/bad.json").code, 2);
}

TEST(HostileFiles, TwoRunsOnOneOutAreRefusedWhileTheFirstHoldsIt) {
  const auto dir = scratch_dir("hostile-lock");
  const auto a = small_suite(dir, "small", 1);
  // A run in progress holds its journal's lock; take it as that run would.
  const int fd = ::open((dir + "/r.json.journal").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const auto r = run_cli("run " + a + " --quiet --out " + dir + "/r.json");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("another sdcbench run is writing"), std::string::npos) << r.output;
  ::close(fd);  // the first run ends: the lock goes with it
  EXPECT_EQ(run_cli("run " + a + " --quiet --out " + dir + "/r.json").code, 0);
}

TEST(HostileFiles, AKillAtAnyMomentLeavesNoResultThatLooksComplete) {
  const auto dir = scratch_dir("hostile-kill");
  const auto a = small_suite(dir, "small", 1);
  for (int delay_ms : {30, 120, 250, 400, 700}) {
    std::filesystem::remove(dir + "/r.json"), std::filesystem::remove(dir + "/r.json.journal");
    run_command("timeout -s KILL " + std::to_string(delay_ms / 1000.0) + " " + std::string(SDCBENCH_BINARY) + " run " + a +
                " --quiet --out " + dir + "/r.json");
    if (std::filesystem::exists(dir + "/r.json")) {  // finished before the kill: then it is whole
      EXPECT_EQ(run_cli("validate " + dir + "/r.json").code, 0) << delay_ms;
    } else {  // else the journal resumes to a whole result
      const auto r = run_cli("run " + a + " --quiet --resume --out " + dir + "/r.json");
      EXPECT_EQ(r.code, 0) << delay_ms << "\n" << r.output;
      EXPECT_EQ(run_cli("validate " + dir + "/r.json").code, 0) << delay_ms;
    }
  }
}

}  // namespace
