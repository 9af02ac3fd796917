#include "harness/cli/report_command.hpp"

#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/report/report_page.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {

size_t run_report(const std::vector<std::string>& files, const std::string& out_dir, const std::string& title) {
  std::vector<result_set> sets;
  for (const auto& f : files) sets.push_back(load_result_set(f));  // any version, as version 4, typed
  report_request req;
  req.title = title;
  std::vector<std::string> taken;
  for (size_t i = 0; i < files.size(); ++i) req.sections.push_back({files[i], &sets[i], section_id(files[i], taken)});
  return write_report(req, out_dir);
}

size_t write_compare_report(const result_set& a, const std::string& a_file, const result_set& b, const std::string& b_file,
                            const compare_summary& s, double alpha, const std::string& out_dir) {
  report_request req;
  req.title = fmt::format("sdcbench compare: {} (A) vs {} (B)", a_file, b_file);
  std::vector<std::string> taken = {"compare"};
  req.sections.push_back({a_file, &a, "a-" + section_id(a_file, taken)});
  req.sections.push_back({b_file, &b, "b-" + section_id(b_file, taken)});
  std::string rows;
  nlohmann::json tested = nlohmann::json::array();
  for (const auto& r : s.rows)
    if (!r["p"].is_null()) tested.push_back(r);
  for (const auto& r : tested)
    if (r["verdict"] == k_verdict_differs)
      rows += fmt::format("<tr class=\"significant\"><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{:.2f} %</td>"
                          "<td class=\"num\">{:.2f} %</td><td>{}</td><td class=\"num\">{:.3g}</td></tr>\n",
                          r["cell"].get<int64_t>(), html_escape(r["key"]), html_escape(r["detector"]), r["a"].get<double>(),
                          r["b"].get<double>(), html_escape(r["test"]), r["p"].get<double>());
  req.lead_html = fmt::format(
      "<section id=\"compare\"><h2>A against B</h2><p>{} cells and detectors compared; {} differ at family-wise alpha {} "
      "(Bonferroni){}. The rows that differ:</p>\n<table><tr><th>cell</th><th>key</th><th>detector</th><th>A detected</th>"
      "<th>B detected</th><th>test</th><th>p</th></tr>\n{}</table></section>\n",
      s.cells, s.significant, alpha,
      s.untested ? fmt::format("; {} not compared (a side ran no faulty trial)", s.untested) : "", rows.empty() ? "<tr><td colspan=\"7\">none</td></tr>" : rows);
  req.lead_charts.push_back(comparison_chart(tested, "compare-scatter", a_file, b_file));
  return write_report(req, out_dir);
}

}  // namespace sdc
