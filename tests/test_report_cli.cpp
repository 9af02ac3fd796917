// `sdcbench report`, `compare --report` and `show --brief` from the command
// line: what they write, and how they refuse bad input (the page itself is
// rendered in Chromium by tests/browser/run_browser_test.sh).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "tests/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using sdc::testing::run_cli;
using sdc::testing::scratch_dir;

const std::string k_smoke = std::string(SDCBENCH_TEST_DATA) + "/../results/smoke/";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

size_t count_files(const fs::path& dir, const std::string& ext) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().string().ends_with(ext);
  return n;
}

TEST(ReportCli, WritesAnOfflinePageSpecsAndFigures) {
  const std::string dir = scratch_dir("report");
  fs::create_directories(dir + "/out/figures");
  std::ofstream(dir + "/out/figures/stale.svg") << "<svg/>";  // from an earlier run: must go
  const auto r = run_cli("report " + k_smoke + "vabft_table4.json " + k_smoke + "sdc_figure2.json --out " + dir +
                         "/out --title 'A <b>test</b>'");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string html = slurp(dir + "/out/index.html");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("\\((\\d+) charts;"))) << r.output;
  const size_t charts = std::stoul(m[1]);
  EXPECT_GE(charts, 8u);
  EXPECT_EQ(count_files(dir + "/out/specs", ".vl.json"), charts);
  EXPECT_EQ(count_files(dir + "/out/figures", ".svg"), charts) << "one figure per chart, the stale one removed";
  EXPECT_FALSE(fs::exists(dir + "/out/figures/stale.svg"));
  EXPECT_FALSE(fs::exists(dir + "/out/index.html.partial"));
  // Offline: no script or stylesheet loaded from anywhere.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("A &lt;b&gt;test&lt;/b&gt;"), std::string::npos) << "the title is escaped";
  for (const char* s : {"vabft_table4", "sdc_figure2", "commit", "machine", "seed", "scale"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  size_t figures = 0;
  const std::string div = "<div class=\"chart\" data-chart=";
  for (size_t p = html.find(div); p != std::string::npos; p = html.find(div, p + 1)) ++figures;
  EXPECT_EQ(figures, charts);
  // Each figure is a standalone SVG file.
  for (const auto& e : fs::directory_iterator(dir + "/out/figures")) {
    const std::string svg = slurp(e.path());
    EXPECT_EQ(svg.rfind("<svg", 0), 0u) << e.path();
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << e.path();
  }
  fs::remove_all(dir);
}

TEST(ReportCli, RefusesBadInputWithoutWritingAPage) {
  const std::string dir = scratch_dir("report-bad");
  std::ofstream(dir + "/bad.json") << R"({"schema": "sdcbench.result/2", "cells": 3})";
  std::ofstream(dir + "/cut.json") << slurp(k_smoke + "sdc_figure2.json").substr(0, 5000);
  std::ofstream(dir + "/file") << "x";
  auto r = run_cli("report " + dir + "/bad.json --out " + dir + "/out");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/index.html"));
  r = run_cli("report " + dir + "/cut.json --out " + dir + "/out");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("cut.json"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/index.html"));
  r = run_cli("report " + k_smoke + "sdc_figure2.json --out " + dir + "/file/sub");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("file/sub"), std::string::npos) << r.output;
  r = run_cli("report " + k_smoke + "sdc_figure2.json");
  EXPECT_NE(r.code, 0) << "--out is required";
  EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
  r = run_cli("report " + dir + "/missing.json --out " + dir + "/out");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST(ReportCli, CompareReportHighlightsTheDifferences) {
  const std::string dir = scratch_dir("compare-report");
  const std::string fx = std::string(SDCBENCH_TEST_DATA) + "/fixtures/";
  const auto r = run_cli("compare " + fx + "compare_a.json " + fx + "compare_b.json --report " + dir + "/cmp");
  ASSERT_EQ(r.code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex("(\\d+) differ at family-wise"))) << r.output;
  const size_t differ = std::stoul(m[1]);
  EXPECT_EQ(differ, 1u) << "the fixtures differ in one cell (75 % vs 25 %)";
  const std::string html = slurp(dir + "/cmp/index.html");
  EXPECT_NE(html.find("A against B"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir + "/cmp/figures/compare-scatter.svg"));
  EXPECT_TRUE(fs::exists(dir + "/cmp/specs/compare-scatter.vl.json"));
  size_t highlighted = 0;
  for (size_t p = html.find("class=\"significant\""); p != std::string::npos; p = html.find("class=\"significant\"", p + 1))
    ++highlighted;
  EXPECT_EQ(highlighted, differ) << "exactly the significant rows are highlighted";
  fs::remove_all(dir);
}

TEST(ReportCli, BriefSummaryIsOneLinePerDetector) {
  const auto r = run_cli("show --brief " + k_smoke + "vabft_table4.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto set = sdc::testing::read_json(k_smoke + "vabft_table4.json");
  std::set<std::string> labels;
  for (const auto& c : set["cells"]) labels.insert(c["detector"]["label"].get<std::string>());
  for (const auto& l : labels) {
    size_t n = 0;
    for (size_t p = r.output.find("\n" + l + " "); p != std::string::npos; p = r.output.find("\n" + l + " ", p + 1)) ++n;
    EXPECT_EQ(n, 1u) << l << "\n" << r.output;
  }
  EXPECT_NE(r.output.find("not the cost beside an optimized kernel"), std::string::npos) << "the timing column says what it is";
}

}  // namespace
