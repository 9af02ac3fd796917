// `compare` (report.hpp): the same cells of two result sets, or two
// detectors of one, with the statistical test their trials allow, rows
// below the family-wise alpha (Bonferroni) marked.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "foundation/errors.hpp"
#include "foundation/scoring/proportions.hpp"
#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using table = text_table;

// Trials only `a` flags and trials only `b` flags, over the same faulty trials.
std::pair<int64_t, int64_t> disagreements(const faulty_side& fa, const faulty_side& fb) {
  const size_t n = size_t(fa.detected.trials + fa.skipped);
  const auto ba = outcome_bits::from_hex(fa.outcomes, n), bb = outcome_bits::from_hex(fb.outcomes, n);
  int64_t only_a = 0, only_b = 0;
  for (size_t i = 0; i < n; ++i) {
    only_a += ba.get(i) && !bb.get(i);
    only_b += !ba.get(i) && bb.get(i);
  }
  return {only_a, only_b};
}

// A row of the table, and its test's p-value; none where a side ran no
// faulty trial (its rate is null: nothing to compare, not a rate of 0).
using compare_row = std::pair<std::vector<std::string>, std::optional<double>>;

// A record's faulty side; none (no trials, rate null) where it has none.
const faulty_side& faulty_of(const cell_record& c) {
  static const faulty_side none;
  return c.faulty ? *c.faulty : none;
}
bool has_faulty_trials(const faulty_side& f) { return f.detected.trials > 0; }
json percent_or_null(const std::optional<double>& rate) { return rate ? json(100 * *rate) : json(nullptr); }

// Marks rows whose p-value is below alpha / (rows tested) (Bonferroni) with
// '*' in the last column and renders them; rows without a test are shown
// and counted apart.
compare_summary finish_comparison(table t, std::vector<compare_row> rows, double alpha) {
  compare_summary s;
  for (const auto& r : rows) (r.second ? s.cells : s.untested) += 1;
  for (auto& [row, p] : rows) {
    if (p && *p < alpha / std::max(1, s.cells)) {
      row.back() = "*";
      ++s.significant;
    }
    t.rows.push_back(row);
  }
  s.table = t.render();
  return s;
}

std::string untested_text(const compare_summary& s) {
  return s.untested ? fmt::format("; {} not compared (no faulty trials on a side)", s.untested) : "";
}

}  // namespace

compare_summary compare_results(const result_set& a, const result_set& b, double alpha) {
  const bool paired = a.suite.sha256 == b.suite.sha256 && a.suite.seed == b.suite.seed &&
                      a.suite.faulty_trials == b.suite.faulty_trials && a.suite.clean_trials == b.suite.clean_trials;
  std::map<std::pair<std::string, std::string>, const cell_record*> in_b;
  for (const auto& c : b.cells) in_b[{c.key, c.detector.label}] = &c;
  table t;
  t.head = {"cell", "detector", "A detected", "B detected", "B - A", "test", "p", ""};
  std::vector<compare_row> rows;
  json pairs = json::array();
  for (const auto& ca : a.cells) {
    if (ca.skipped) continue;
    auto it = in_b.find({ca.key, ca.detector.label});
    if (it == in_b.end() || it->second->skipped) continue;
    const cell_record& cb = *it->second;
    const faulty_side &fa = faulty_of(ca), &fb = faulty_of(cb);
    const std::string& label = ca.detector.label;
    const std::string cell = std::to_string(ca.cell);
    json pair = {{"cell", ca.cell}, {"key", ca.key}, {"detector", label}, {"a", percent_or_null(fa.detected.rate)},
                 {"b", percent_or_null(fb.detected.rate)}, {"test", nullptr}, {"p", nullptr}};
    if (!has_faulty_trials(fa) || !has_faulty_trials(fb)) {
      rows.push_back({{cell, label, rate_text(fa.detected.rate), rate_text(fb.detected.rate), "-", "no faulty trials", "-", ""},
                      std::nullopt});
      pairs.push_back(std::move(pair));
      continue;
    }
    double p;
    std::string test;
    if (paired && fa.outcomes.size() == fb.outcomes.size()) {
      const auto [only_a, only_b] = disagreements(fa, fb);
      p = mcnemar_p(only_a, only_b);
      test = fmt::format("McNemar {}/{}", only_a, only_b);
    } else {
      p = two_proportion_p(fa.detected.count, fa.detected.trials, fb.detected.count, fb.detected.trials);
      test = "two-proportion";
    }
    const double da = *fa.detected.rate, db = *fb.detected.rate;
    rows.push_back({{cell, label, rate_text(fa.detected.rate), rate_text(fb.detected.rate), fmt::format("{:+.2f}%", 100 * (db - da)),
                     test, fmt::format("{:.3g}", p), ""},
                    p});
    pair["test"] = test, pair["p"] = p;
    pairs.push_back(std::move(pair));
  }
  compare_summary s = finish_comparison(t, std::move(rows), alpha);
  for (auto& row : pairs)
    row["verdict"] = row["p"].is_null()                                         ? k_verdict_untested
                     : row["p"].get<double>() < alpha / std::max(1, s.cells) ? k_verdict_differs
                                                                             : k_verdict_same;
  s.rows = std::move(pairs);
  s.table += fmt::format("{} cells compared, {} differ at family-wise alpha {} (Bonferroni, '*'); test: {}{}\n", s.cells,
                         s.significant, alpha,
                         paired ? "McNemar on the same faults (same suite file and seed)" : "pooled two-proportion z-test",
                         untested_text(s));
  return s;
}

compare_summary compare_detectors(const result_set& r, const std::string& first, const std::string& second, double alpha) {
  std::map<int64_t, const cell_record*> a, b;
  for (const auto& c : r.cells) {
    if (c.skipped) continue;
    if (c.detector.label == first) a[c.cell] = &c;
    if (c.detector.label == second) b[c.cell] = &c;
  }
  if (a.empty()) throw input_error("--detectors", first, "no detector with this label ran in the result set");
  if (b.empty()) throw input_error("--detectors", second, "no detector with this label ran in the result set");
  table t;
  t.head = {"cell", "key", first, second, "only " + first, "only " + second, "McNemar p", ""};
  std::vector<compare_row> rows;
  for (const auto& [cell, ca] : a) {
    auto it = b.find(cell);
    if (it == b.end()) continue;
    const faulty_side &fa = faulty_of(*ca), &fb = faulty_of(*it->second);
    if (!has_faulty_trials(fa)) {  // one cell: the same faulty trials on both sides
      rows.push_back({{std::to_string(cell), ca->key, "-", "-", "-", "-", "-", ""}, std::nullopt});
      continue;
    }
    const auto [only_a, only_b] = disagreements(fa, fb);
    const double p = mcnemar_p(only_a, only_b);
    rows.push_back({{std::to_string(cell), ca->key, rate_text(fa.detected.rate), rate_text(fb.detected.rate), std::to_string(only_a),
                     std::to_string(only_b), fmt::format("{:.3g}", p), ""},
                    p});
  }
  compare_summary s = finish_comparison(t, std::move(rows), alpha);
  s.table += fmt::format("{} cells, {} differ at family-wise alpha {} (McNemar on the same faults, Bonferroni){}\n", s.cells,
                         s.significant, alpha, untested_text(s));
  return s;
}

}  // namespace sdc
