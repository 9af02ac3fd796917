#include "harness/report/report_summary.hpp"

#include <fmt/format.h>

#include <map>

#include "harness/report/chart_data.hpp"
#include "harness/report/report_page.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using report::pooled;

std::string rate_cell(const pooled& p) {
  if (p.trials == 0) return "<td class=\"num\">-</td>";
  const json f = report::rate_fields(p);
  return fmt::format("<td class=\"num\">{:.2f} % <span class=\"note\">[{:.1f}, {:.1f}] {}/{}</span></td>", f["rate"].get<double>(),
                     f["lo"].get<double>(), f["hi"].get<double>(), p.hits, p.trials);
}

}  // namespace

std::string provenance_html(const result_set& r, const std::string& file) {
  const provenance_block& p = r.provenance;
  const suite_block& s = r.suite;
  auto text = [](const std::optional<std::string>& v) { return v.value_or("-"); };
  std::string reproduces = "-";
  if (s.reproduces) reproduces = fmt::format("{} of {}", text(s.reproduces->table), text(s.reproduces->paper));
  const std::string trials = fmt::format("{} faulty + {} clean per cell", s.faulty_trials, s.clean_trials);
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"result set", fmt::format("{} ({}{}{})", file, r.schema, s.migrated_from ? ", written as " + *s.migrated_from : "",
                                 r.complete ? "" : ", INCOMPLETE")},
      {"suite", fmt::format("{} (sha256 {}…), scale {}", s.file, s.sha256.substr(0, 12), s.scale)},
      {"reproduces", reproduces},
      {"seed, trials", fmt::format("{}; {}; workload {}", s.seed, trials, s.workload)},
      {"commit", fmt::format("{}{}", text(p.git_commit), p.git_dirty.value_or(false) ? " (uncommitted changes)" : "")},
      {"machine", fmt::format("{}, {} threads", text(p.cpu), p.threads ? std::to_string(*p.threads) : "-")},
      {"build", fmt::format("sdcbench {}, {} {}", text(p.sdcbench_version), text(p.compiler), text(p.build_type))},
      {"ran", fmt::format("{} to {}", text(p.started), text(p.finished))},
      {"shard", fmt::format("{} of {}", r.shard.index, r.shard.count)}};
  std::string h = "<table class=\"provenance\">\n";
  for (const auto& [k, v] : rows) h += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", k, html_escape(v));
  return h + "</table>\n";
}

std::string summary_html(const result_set& r) {
  struct row {
    int cells = 0, skipped = 0;
    pooled detected, large, clean, located;
    int published = 0, inside = 0;
    double det_s = 0, kernel_s = 0;
  };
  std::map<std::string, row> rows;
  clean_pool sets;  // each clean set once per detector
  for (const auto& c : r.cells) {
    auto& w = rows[c.detector.label];
    if (c.skipped) {
      ++w.skipped;
      continue;
    }
    ++w.cells;
    if (c.faulty) {
      w.detected.add(c.faulty->detected.count, c.faulty->detected.trials);
      w.located.add(c.faulty->localization.count, c.faulty->localization.trials);
    }
    if (c.by_significance) w.large.add(c.by_significance->large.detected, c.by_significance->large.trials);
    if (c.clean && sets.first(c.clean_set, c.detector.label)) w.clean.add(c.clean->flagged.count, c.clean->flagged.trials);
    if (c.reference)
      for (const char* key : {"faulty.rate", "clean.rate"}) {
        const auto published = c.reference->find(key);
        const counted_rate* ours = std::string(key) == "faulty.rate" ? (c.faulty ? &c.faulty->detected : nullptr)
                                                                      : (c.clean ? &c.clean->flagged : nullptr);
        if (published == c.reference->end() || !ours) continue;
        ++w.published;
        const double paper = published->second.get<double>();
        w.inside += paper >= ours->lo && paper <= ours->hi;
      }
  }
  for (const auto& t : r.timing) {
    auto& w = rows[t.detector];
    w.det_s += t.detector_seconds, w.kernel_s += t.kernel_seconds;
  }
  std::string h =
      "<h3>Summary</h3><table class=\"summary\"><tr><th>detector</th><th>cells</th><th>detected (95 % CI)</th>"
      "<th>on large faults</th><th>false alarms</th><th>located correctly</th><th>paper's rates inside our CI</th>"
      "<th>campaign time / kernel time</th></tr>\n";
  for (const auto& d : r.suite.detectors) {
    const std::string& label = d.label;
    const auto& w = rows[label];
    h += fmt::format("<tr><td>{}</td><td class=\"num\">{}{}</td>{}{}{}{}<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                     html_escape(label), w.cells, w.skipped ? fmt::format(" (+{} skipped)", w.skipped) : "", rate_cell(w.detected),
                     rate_cell(w.large), rate_cell(w.clean), rate_cell(w.located),
                     w.published ? fmt::format("{} of {}", w.inside, w.published) : "-",
                     w.kernel_s > 0 ? fmt::format("{:.1f} %", 100 * w.det_s / w.kernel_s) : "-");
  }
  return h +
         "</table>\n<p class=\"note\">Counts pooled over the detector's cells, the clean episodes its cells share (a clean set) once. \"Campaign time / kernel time\" is what the "
         "run spent in the detector as the campaign runs it (encoding included, on the campaign's copies) against the "
         "workload's kernels, not the detector's cost in deployment (bench/ measures that).</p>\n";
}

}  // namespace sdc
