#include "harness/results/report.hpp"

#include "harness/results/recording_summary.hpp"
#include "harness/results/label_table.hpp"
#include "harness/results/paper_columns.hpp"
#include "harness/results/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "foundation/errors.hpp"
#include "foundation/scoring/proportions.hpp"

namespace sdc {
namespace {

using table = text_table;

std::string rate_ci(const counted_rate& b) {
  if (b.trials == 0) return "-";
  return fmt::format("{:>7} [{:.1f},{:.1f}] {}/{}", rate_text(b.rate), 100 * b.lo, 100 * b.hi, b.count, b.trials);
}

// A workload's judged 0/1 metric (e.g. the training workload's
// attribution_right: a rerun's label against the injected lifetime) over a
// kind's episodes as a rate with its Wilson interval; "" when none has it.
std::string judged_rate(const cell_record& cell, const std::string& kind, const std::string& name) {
  const auto count = cell.workload_metric(kind + "." + name + ".count"), mean = cell.workload_metric(kind + "." + name + ".mean");
  if (!count || *count == 0 || !mean) return "";
  const int64_t n = int64_t(*count), k = std::llround(*mean * double(n));
  const interval ci = wilson_interval(k, n);
  return fmt::format("{} {:.0f}% [{:.1f},{:.1f}] {}/{}", kind, 100.0 * double(k) / double(n), 100 * ci.lo, 100 * ci.hi, k, n);
}

std::string attribution_column(const cell_record& cell) {
  const std::string f = judged_rate(cell, "faulty", "attribution_right"), c = judged_rate(cell, "clean", "attribution_right");
  return f.empty() ? c : c.empty() ? f : f + "; " + c;
}

}  // namespace

std::vector<std::string> varying_axes(const result_set& r) {
  std::vector<std::string> out;
  if (r.cells.empty()) return out;
  // The suite's axes are in the workload's order (the cell key's, then an
  // axis left out of the key at its keyless value, axis_def::keyless_value).
  for (const auto& [name, values] : r.suite.axes)
    if (values.size() > 1) out.push_back(name);
  return out;
}

std::string show_table(const result_set& r) {
  const auto& su = r.suite;
  std::string out = fmt::format("suite {} ({} scale, workload {}), {} faulty + {} clean trials per cell, seed {}\n", su.name,
                                su.scale, su.workload, su.faulty_trials, su.clean_trials, su.seed);
  if (su.reproduces) out += fmt::format("reproduces {} {}\n", su.reproduces->paper.value_or("-"), su.reproduces->table.value_or("-"));
  const auto axes = varying_axes(r);
  std::map<std::pair<int64_t, std::string>, double> overhead;
  for (const auto& t : r.timing)
    if (t.overhead) overhead[{t.cell, t.detector}] = *t.overhead;
  bool any_ref = false;
  for (const auto& c : r.cells) any_ref |= c.reference.has_value();
  table t;
  t.head = axes;
  const auto forms = closed_forms_of(r);
  auto forms_of = [&](const cell_record& c) {
    auto it = forms.find(c.detector.label);
    return it == forms.end() ? std::vector<std::string>{} : it->second;
  };
  bool any_closed = false, any_located = false, multi_step = false, any_nonfinite = false, any_attributed = false;
  for (const auto& c : r.cells) {
    if (c.skipped) continue;
    any_attributed |= !attribution_column(c).empty();
    if (c.faulty && c.faulty->by_reason) any_nonfinite |= c.faulty->by_reason->nonfinite > 0;
    any_closed |= !closed_form_column(c, forms_of(c)).empty();
    if (c.faulty) any_located |= c.faulty->localization.trials > 0;
    if (c.clean) multi_step |= c.clean->steps.trials != c.clean->flagged.trials;
  }
  for (const char* h : {"detector", "detected (95% CI) n", "on large faults", "false alarms (95% CI) n"}) t.head.push_back(h);
  if (any_nonfinite) t.head.push_back("own detections, not by NaN/Inf (95% CI) n");
  if (any_located) t.head.push_back("located right (95% CI) n");
  if (multi_step) t.head.push_back("latency p50/p90 (steps)"), t.head.push_back("false alarms per clean step");
  if (any_attributed) t.head.push_back("rerun label right (95% CI) n");
  t.head.push_back("run time vs kernel*");
  if (any_closed) t.head.push_back(closed_form_header(forms));
  if (any_ref) t.head.push_back("published (paper) vs measured (ours)");
  int skipped = 0;
  for (const auto& c : r.cells) {
    std::vector<std::string> row;
    for (const auto& a : axes) row.push_back(axis_text(c, a));
    row.push_back(c.detector.label);
    if (c.skipped) {
      ++skipped;
      row.push_back("skipped: " + *c.skipped);
      for (size_t k = row.size(); k < t.head.size(); ++k) row.push_back("");
      t.rows.push_back(row);
      continue;
    }
    row.push_back(c.faulty ? rate_ci(c.faulty->detected) : "-");
    const band large = c.by_significance ? c.by_significance->large : band{};
    row.push_back(large.trials > 0 ? fmt::format("{}/{}", large.detected, large.trials) : "-");
    row.push_back(c.clean ? rate_ci(c.clean->flagged) : "-");
    if (any_nonfinite) row.push_back(c.faulty && c.faulty->by_reason ? rate_ci(c.faulty->by_reason->own) : "-");
    if (any_located) row.push_back(c.faulty ? rate_ci(c.faulty->localization) : "-");
    if (multi_step) {
      const latency l = c.faulty ? c.faulty->latency_steps : latency{};
      auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : std::string("-"); };
      row.push_back(num(l.p50) + "/" + num(l.p90));
      row.push_back(c.clean ? rate_ci(c.clean->steps) : "-");
    }
    if (any_attributed) row.push_back(attribution_column(c));
    auto it = overhead.find({c.cell, c.detector.label});
    row.push_back(it == overhead.end() ? "-" : fmt::format("{:.1f}%", 100 * it->second));
    if (any_closed) row.push_back(closed_form_column(c, forms_of(c)));
    if (any_ref) row.push_back(paper_column(c));
    t.rows.push_back(row);
  }
  out += t.render();
  out += "* seconds in the detector as the campaign runs it (encoding included, on the campaign's copies) over seconds in "
         "the workload's kernels in this run: what the campaign cost, not the detector's cost beside an optimized kernel "
         "(bench/ measures that)\n";
  if (skipped) out += fmt::format("{} rows skipped (reason shown)\n", skipped);
  if (!r.recordings.empty())
    out += fmt::format("{} recordings (recorders' metrics per cell) in the file\n", r.recordings.size()) +
           recording_summary_table(r) + comparison_table(r);
  out += label_table(r);
  if (su.reproduces && su.reproduces->pool_over) out += pooled_table(r, *su.reproduces->pool_over);
  return out;
}

}  // namespace sdc
