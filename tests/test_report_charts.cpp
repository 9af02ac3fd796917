// The report's charts (harness/report): which charts a result set gets, and
// that the numbers they draw are the result set's, recomputed here the plain
// way from the cells (pooled counts, Wilson intervals, the paper's values).
// The committed smoke result sets (results/smoke) are the inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "harness/report/chart.hpp"
#include "harness/report/chart_data.hpp"

namespace {

using nlohmann::json;

json load(const std::string& name) {
  std::ifstream in(std::string(SDCBENCH_TEST_DATA) + "/../results/smoke/" + name + ".json");
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);
}

// The charts of a set: typed as the report reads it (the checks below read the JSON, independently).
std::vector<sdc::chart> charts_of(const json& doc, const std::string& id) { return sdc::charts_of(sdc::parse_result_set(doc, id), id); }

std::map<std::string, sdc::chart> by_id(const std::vector<sdc::chart>& charts) {
  std::map<std::string, sdc::chart> m;
  for (const auto& c : charts) EXPECT_TRUE(m.emplace(c.id, c).second) << "duplicate chart id " << c.id;
  return m;
}

// Wilson 95 % interval, written out here (not the harness's) as the twin.
std::pair<double, double> wilson(double x, double n) {
  const double z = 1.959963984540054, p = x / n, d = 1 + z * z / n;
  const double mid = (p + z * z / (2 * n)) / d, half = z * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d;
  return {100 * std::max(0.0, mid - half), 100 * std::min(1.0, mid + half)};
}

TEST(ReportCharts, EveryChartIsCompleteVegaLite) {
  for (const char* set : {"vabft_table8", "sdc_figure2", "sdc_table1_training", "consistency_002", "vabft_table4"}) {
    const auto charts = charts_of(load(set), "s");
    ASSERT_FALSE(charts.empty()) << set;
    for (const auto& c : charts) {
      EXPECT_NE(c.spec.value("$schema", "").find("vega-lite/v6"), std::string::npos) << c.id;
      EXPECT_FALSE(c.title.empty()) << c.id;
      EXPECT_GT(c.caption.size(), 40u) << c.id << ": a caption says what was measured";
      EXPECT_EQ(c.id.rfind("s-", 0), 0u) << c.id;
      EXPECT_TRUE(c.spec.contains("data") || c.spec.contains("hconcat") || c.spec.contains("vconcat")) << c.id;
    }
  }
}

TEST(ReportCharts, ChartsFollowWhatTheSetHolds) {
  auto ids = [](const char* set) {
    std::set<std::string> s;
    for (const auto& c : charts_of(load(set), "x")) s.insert(c.id);
    return s;
  };
  const auto t8 = ids("vabft_table8");
  for (const char* id : {"x-rates", "x-heatmap", "x-paper-rates", "x-roc", "x-localization", "x-campaign-timing"})
    EXPECT_TRUE(t8.count(id)) << id;
  EXPECT_FALSE(t8.count("x-timeline")) << "a GEMM set has no training timeline";
  EXPECT_TRUE(ids("sdc_figure2").count("x-histogram"));
  EXPECT_TRUE(ids("sdc_figure5").count("x-rate-vs-p"));
  EXPECT_TRUE(ids("vabft_table4").count("x-metric-0"));
  EXPECT_TRUE(ids("sdc_table1_training").count("x-timeline"));
  EXPECT_TRUE(ids("consistency_002").count("x-steps-0"));
}

TEST(ReportCharts, PooledRatesAndIntervalsAreTheCellsCounts) {
  const json r = load("vabft_table8");
  const auto charts = by_id(charts_of(r, "t"));
  const auto& rows = charts.at("t-rates").spec["data"]["values"];
  size_t checked = 0;
  for (const auto& row : rows) {
    if (row["measure"] != "all faults" && row["measure"] != "false alarms (clean)") continue;
    const bool clean = row["measure"] == "false alarms (clean)";
    double x = 0, n = 0;
    for (const auto& c : r["cells"]) {
      if (!c["skipped"].is_null() || c["detector"]["label"] != row["detector"]) continue;
      const auto& b = c[clean ? "clean" : "faulty"];
      if (b.is_null()) continue;
      x += b[clean ? "flagged" : "detected"].get<double>(), n += b["trials"].get<double>();
    }
    ASSERT_GT(n, 0);
    EXPECT_EQ(row["hits"].get<double>(), x);
    EXPECT_EQ(row["trials"].get<double>(), n);
    EXPECT_NEAR(row["rate"].get<double>(), 100 * x / n, 1e-9);
    const auto [lo, hi] = wilson(x, n);
    EXPECT_NEAR(row["lo"].get<double>(), lo, 1e-6);
    EXPECT_NEAR(row["hi"].get<double>(), hi, 1e-6);
    ++checked;
  }
  EXPECT_GE(checked, 4u);
}

TEST(ReportCharts, HeatMapAndPaperValuesArePerCent) {
  const json r = load("vabft_table8");
  const auto charts = by_id(charts_of(r, "t"));
  size_t measured = 0, paper = 0;
  for (const auto& row : charts.at("t-heatmap").spec["data"]["values"]) {
    if (row.value("placeholder", false) || !row.contains("rate")) continue;
    ASSERT_GE(row["rate"].get<double>(), 0.0);
    ASSERT_LE(row["rate"].get<double>(), 100.0);
    if (row.contains("trials")) {
      EXPECT_NEAR(row["rate"].get<double>(), 100 * row["hits"].get<double>() / row["trials"].get<double>(), 1e-9);
      ++measured;
    } else {
      ++paper;
    }
  }
  EXPECT_GT(measured, 0u);
  EXPECT_GT(paper, 0u) << "Table 8 carries the paper's rates";
  // Paper vs measured: every paper row is 100 x a cell's reference value.
  std::multiset<double> published;
  for (const auto& c : r["cells"])
    if (c.contains("reference") && c["reference"].is_object() && c["reference"].contains("faulty.rate"))
      published.insert(std::round(1e6 * c["reference"]["faulty.rate"].get<double>()));
  size_t found = 0;
  for (const auto& row : charts.at("t-paper-rates").spec["data"]["values"])
    if (row["source"] == "paper" && row["measure"] == "detection")
      found += published.count(std::round(1e4 * row["rate"].get<double>())) > 0;
  EXPECT_GT(found, 0u);
}

TEST(ReportCharts, NumericAxes) {
  using sdc::report::numeric_axis;
  EXPECT_DOUBLE_EQ(*numeric_axis("0.1"), 0.1);
  EXPECT_DOUBLE_EQ(*numeric_axis("crit(1.5)"), 1.5);
  EXPECT_DOUBLE_EQ(*numeric_axis("512x512x512"), 512);
  EXPECT_FALSE(numeric_axis("128x256x128"));
  EXPECT_FALSE(numeric_axis("exp1"));
  EXPECT_FALSE(numeric_axis(""));
  EXPECT_FALSE(numeric_axis("nan"));
}

TEST(ReportCharts, RateFieldsAreWilsonPercent) {
  sdc::report::pooled p;
  EXPECT_TRUE(sdc::report::rate_fields(p)["rate"].is_null());
  p.add(5, 10);
  const json f = sdc::report::rate_fields(p);
  EXPECT_DOUBLE_EQ(f["rate"].get<double>(), 50.0);
  EXPECT_NEAR(f["lo"].get<double>(), 23.659, 1e-3);  // Wilson 5/10
  EXPECT_NEAR(f["hi"].get<double>(), 76.341, 1e-3);
}

TEST(ReportCharts, FacetGridGetsPlaceholdersForEmptyPanels) {
  json rows = json::array({{{"r", "a"}, {"c", "x"}, {"rate", 1.0}}, {{"r", "b"}, {"c", "y"}, {"rate", 2.0}}});
  sdc::report::fill_facet_grid(rows, "r", "c");
  ASSERT_EQ(rows.size(), 4u);
  std::set<std::pair<std::string, std::string>> panels;
  int placeholders = 0;
  for (const auto& row : rows) {
    panels.emplace(row["r"], row["c"]);
    placeholders += row.value("placeholder", false);
  }
  EXPECT_EQ(panels.size(), 4u);
  EXPECT_EQ(placeholders, 2);
}

}  // namespace

// The trajectory chart's facets: a cell whose every label's median loss
// excess is null draws no curve, and gets no band either (a facet of bands
// alone has no extent on the excess axis: the SVG renderer fails on it).
TEST(ReportCharts, TrajectoryFacetsWithoutACurveGetNoBand) {
  std::ifstream in(std::string(SDCBENCH_TEST_DATA) + "/../results/quick_training-full.json");
  json r = json::parse(in);
  int64_t blanked = -1;
  for (auto& c : r["cells"]) {
    if (!c.contains("workload_series")) continue;
    if (blanked < 0) blanked = c["cell"].get<int64_t>();
    if (c["cell"].get<int64_t>() != blanked) continue;
    for (auto& s : c["workload_series"])
      if (s["name"].get<std::string>().starts_with("loss_excess/") && s["faulty"].is_object())
        for (auto& m : s["faulty"]["median"]) m = nullptr;
  }
  ASSERT_GE(blanked, 0);
  const auto charts = by_id(sdc::charts_of(sdc::parse_result_set(r, "quick_training-full.json"), "q"));
  ASSERT_TRUE(charts.count("q-trajectories"));
  std::set<std::string> with_lines, with_bands;
  for (const auto& row : charts.at("q-trajectories").spec["data"]["values"])
    (row.contains("excess") ? with_lines : with_bands).insert(row["cell"].get<std::string>());
  EXPECT_FALSE(with_lines.empty());
  for (const auto& c : with_bands) EXPECT_TRUE(with_lines.count(c)) << c << ": a band without a curve";
}
