// `compare` (report.hpp): the same cells of two result sets, or two
// detectors of one, with the statistical test their trials allow, rows
// below the family-wise alpha (Bonferroni) marked.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "foundation/errors.hpp"
#include "foundation/scoring/proportions.hpp"
#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using table = text_table;

// Trials only `a` flags and trials only `b` flags, over the same faulty trials.
std::pair<int64_t, int64_t> disagreements(const json& fa, const json& fb) {
  const size_t n = size_t(fa["trials"].get<int64_t>() + fa["skipped"].get<int64_t>());
  const auto ba = outcome_bits::from_hex(fa["outcomes"], n), bb = outcome_bits::from_hex(fb["outcomes"], n);
  int64_t only_a = 0, only_b = 0;
  for (size_t i = 0; i < n; ++i) {
    only_a += ba.get(i) && !bb.get(i);
    only_b += !ba.get(i) && bb.get(i);
  }
  return {only_a, only_b};
}

// Marks rows whose p-value is below alpha / rows (Bonferroni) with '*' in the
// last column and renders them.
compare_summary finish_comparison(table t, std::vector<std::pair<std::vector<std::string>, double>> rows, double alpha) {
  compare_summary s;
  s.cells = int(rows.size());
  for (auto& [row, p] : rows) {
    if (p < alpha / std::max(1, s.cells)) {
      row.back() = "*";
      ++s.significant;
    }
    t.rows.push_back(row);
  }
  s.table = t.render();
  return s;
}

}  // namespace

compare_summary compare_results(const json& a, const json& b, double alpha) {
  const bool paired = a["suite"]["sha256"] == b["suite"]["sha256"] && a["suite"]["seed"] == b["suite"]["seed"] &&
                      a["suite"]["trials"] == b["suite"]["trials"];
  std::map<std::pair<std::string, std::string>, const json*> in_b;
  for (const auto& c : b["cells"]) in_b[{c["key"], c["detector"]["label"]}] = &c;
  compare_summary s;
  table t;
  t.head = {"cell", "detector", "A detected", "B detected", "B - A", "test", "p", ""};
  std::vector<std::pair<std::vector<std::string>, double>> rows;
  json pairs = json::array();
  for (const auto& ca : a["cells"]) {
    if (!ca["skipped"].is_null()) continue;
    auto it = in_b.find({ca["key"], ca["detector"]["label"]});
    if (it == in_b.end() || !(*it->second)["skipped"].is_null()) continue;
    const json& cb = *it->second;
    const auto& fa = ca["faulty"];
    const auto& fb = cb["faulty"];
    double p;
    std::string test;
    if (paired && fa["outcomes"].get<std::string>().size() == fb["outcomes"].get<std::string>().size()) {
      const auto [only_a, only_b] = disagreements(fa, fb);
      p = mcnemar_p(only_a, only_b);
      test = fmt::format("McNemar {}/{}", only_a, only_b);
    } else {
      p = two_proportion_p(fa["detected"], fa["trials"], fb["detected"], fb["trials"]);
      test = "two-proportion";
    }
    const double da = fa["rate"].is_null() ? 0 : fa["rate"].get<double>();
    const double db = fb["rate"].is_null() ? 0 : fb["rate"].get<double>();
    rows.push_back({{std::to_string(ca["cell"].get<int64_t>()), ca["detector"]["label"], rate_text(fa["rate"]), rate_text(fb["rate"]),
                     fmt::format("{:+.2f}%", 100 * (db - da)), test, fmt::format("{:.3g}", p), ""},
                    p});
    pairs.push_back({{"cell", ca["cell"]}, {"key", ca["key"]}, {"detector", ca["detector"]["label"]}, {"a", 100 * da},
                     {"b", 100 * db}, {"test", test}, {"p", p}});
  }
  s = finish_comparison(t, std::move(rows), alpha);
  for (auto& row : pairs)
    row["verdict"] = row["p"].get<double>() < alpha / std::max(1, s.cells) ? "differs (family-wise alpha)" : "no significant difference";
  s.rows = std::move(pairs);
  s.table += fmt::format("{} cells compared, {} differ at family-wise alpha {} (Bonferroni, '*'); test: {}\n", s.cells,
                        s.significant, alpha,
                        paired ? "McNemar on the same faults (same suite file and seed)" : "pooled two-proportion z-test");
  return s;
}

compare_summary compare_detectors(const json& r, const std::string& first, const std::string& second, double alpha) {
  std::map<int64_t, const json*> a, b;
  for (const auto& c : r["cells"]) {
    if (!c["skipped"].is_null()) continue;
    if (c["detector"]["label"] == first) a[c["cell"]] = &c;
    if (c["detector"]["label"] == second) b[c["cell"]] = &c;
  }
  if (a.empty()) throw input_error("--detectors", first, "no detector with this label ran in the result set");
  if (b.empty()) throw input_error("--detectors", second, "no detector with this label ran in the result set");
  compare_summary s;
  table t;
  t.head = {"cell", "key", first, second, "only " + first, "only " + second, "McNemar p", ""};
  std::vector<std::pair<std::vector<std::string>, double>> rows;
  for (const auto& [cell, ca] : a) {
    auto it = b.find(cell);
    if (it == b.end()) continue;
    const auto& fa = (*ca)["faulty"];
    const auto& fb = (*it->second)["faulty"];
    const auto [only_a, only_b] = disagreements(fa, fb);
    const double p = mcnemar_p(only_a, only_b);
    rows.push_back({{std::to_string(cell), (*ca)["key"], rate_text(fa["rate"]), rate_text(fb["rate"]), std::to_string(only_a),
                     std::to_string(only_b), fmt::format("{:.3g}", p), ""},
                    p});
  }
  s = finish_comparison(t, std::move(rows), alpha);
  s.table += fmt::format("{} cells, {} differ at family-wise alpha {} (McNemar on the same faults, Bonferroni)\n",
                                     s.cells, s.significant, alpha);
  return s;
}

}  // namespace sdc
