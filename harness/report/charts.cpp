#include <fmt/format.h>

#include "harness/report/chart_builders.hpp"
#include "harness/results/report.hpp"

namespace sdc {

std::vector<chart> charts_of(const result_set& r, const std::string& set_id) {
  using namespace report;
  std::vector<chart> out;
  for (auto* build : {rate_charts, paper_rate_chart, heat_map_chart, rate_vs_axis_charts, metric_vs_axis_charts, roc_chart,
                      histogram_charts, step_series_charts, timeline_chart, outcome_charts, localization_chart, overhead_chart,
                      plan_pareto_charts})
    build(r, set_id, out);
  return out;
}

chart comparison_chart(const nlohmann::json& rows, const std::string& id, const std::string& a_name, const std::string& b_name) {
  using namespace report;
  json spec = frame("Detection rate per cell and detector: A against B", fmt::format("A = {}, B = {}", a_name, b_name));
  spec["data"] = {{"values", rows}};
  spec["width"] = 360, spec["height"] = 360;
  const json x = {{"field", "a"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}}, {"title", "A: detected (% of faulty trials)"}};
  const json y = {{"field", "b"}, {"type", "quantitative"}, {"scale", {{"domain", {0, 100}}}}, {"title", "B: detected (% of faulty trials)"}};
  spec["layer"] = json::array(
      {{{"data", {{"values", {{{"a", 0}, {"b", 0}}, {{"a", 100}, {"b", 100}}}}}},
        {"mark", {{"type", "line"}, {"color", "#bdbdbd"}, {"strokeDash", {4, 3}}}},
        {"encoding", {{"x", x}, {"y", y}}}},
       {{"mark", {{"type", "point"}, {"filled", true}, {"size", 40}, {"tooltip", {{"content", "data"}}}}},
        {"encoding", {{"x", x}, {"y", y},
                      {"color", {{"field", "verdict"}, {"type", "nominal"}, {"title", nullptr},
                                 {"scale", {{"domain", {k_verdict_differs, k_verdict_same}},
                                            {"range", {"#c62828", "#90a4ae"}}}}}}}}}});
  return make_chart(id, "Detection rate per cell and detector: A against B",
                    "One point per cell and detector that both result sets ran: its detection rate in A (x) and B (y). "
                    "Red points differ at the family-wise significance level (compare's test: McNemar on the same faults "
                    "when both sets ran the same suite and seed, else the two-proportion z-test; Bonferroni over all "
                    "points). The dashed line is equality.",
                    spec);
}

}  // namespace sdc
