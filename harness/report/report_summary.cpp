#include "harness/report/report_summary.hpp"

#include <fmt/format.h>

#include <map>

#include "harness/report/chart_data.hpp"
#include "harness/report/report_page.hpp"
#include "harness/results/clean_sets.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using report::pooled;

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.is_null() ? "-" : v.dump(); }

std::string rate_cell(const pooled& p) {
  if (p.trials == 0) return "<td class=\"num\">-</td>";
  const json f = report::rate_fields(p);
  return fmt::format("<td class=\"num\">{:.2f} % <span class=\"note\">[{:.1f}, {:.1f}] {}/{}</span></td>", f["rate"].get<double>(),
                     f["lo"].get<double>(), f["hi"].get<double>(), p.hits, p.trials);
}

}  // namespace

std::string provenance_html(const json& r, const std::string& file) {
  // Copies: a key missing from an older or partial set then reads as null.
  json p = r.value("provenance", json::object()), s = r.value("suite", json::object());
  json shard = r.value("shard", json::object());
  std::string reproduces = "-";
  if (s["reproduces"].is_object())
    reproduces = fmt::format("{} of {}", text_of(s["reproduces"].value("table", json("-"))), text_of(s["reproduces"].value("paper", json("-"))));
  const std::string trials = s["trials"].is_object()
                                 ? fmt::format("{} faulty + {} clean per cell", text_of(s["trials"]["faulty"]), text_of(s["trials"]["clean"]))
                                 : text_of(s["trials"]);
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"result set", fmt::format("{} ({}{}{})", file, text_of(r["schema"]),
                                 s.contains("migrated_from") ? ", written as " + text_of(s["migrated_from"]) : "",
                                 r.value("complete", false) ? "" : ", INCOMPLETE")},
      {"suite", fmt::format("{} (sha256 {}…), scale {}", text_of(s["file"]), text_of(s["sha256"]).substr(0, 12), text_of(s["scale"]))},
      {"reproduces", reproduces},
      {"seed, trials", fmt::format("{}; {}; workload {}", text_of(s["seed"]), trials, text_of(s["workload"]))},
      {"commit", fmt::format("{}{}", text_of(p["git_commit"]), p.value("git_dirty", false) ? " (uncommitted changes)" : "")},
      {"machine", fmt::format("{}, {} threads", text_of(p["cpu"]), text_of(p["threads"]))},
      {"build", fmt::format("sdcbench {}, {} {}", text_of(p["sdcbench_version"]), text_of(p["compiler"]), text_of(p["build_type"]))},
      {"ran", fmt::format("{} to {}", text_of(p["started"]), text_of(p["finished"]))},
      {"shard", fmt::format("{} of {}", text_of(shard["index"]), text_of(shard["count"]))}};
  std::string h = "<table class=\"provenance\">\n";
  for (const auto& [k, v] : rows) h += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", k, html_escape(v));
  return h + "</table>\n";
}

std::string summary_html(const json& r) {
  struct row {
    int cells = 0, skipped = 0;
    pooled detected, large, clean, located;
    int published = 0, inside = 0;
    double det_s = 0, kernel_s = 0;
  };
  std::map<std::string, row> rows;
  clean_pool sets;  // each clean set once per detector
  for (const auto& c : r["cells"]) {
    auto& w = rows[c["detector"]["label"].get<std::string>()];
    if (!c["skipped"].is_null()) {
      ++w.skipped;
      continue;
    }
    ++w.cells;
    if (!c["faulty"].is_null()) {
      w.detected.add(c["faulty"]["detected"], c["faulty"]["trials"]);
      if (c["faulty"].contains("localization")) w.located.add(c["faulty"]["localization"]["right"], c["faulty"]["localization"]["trials"]);
    }
    if (c.contains("by_significance") && c["by_significance"].is_object() && c["by_significance"].contains("large"))
      w.large.add(c["by_significance"]["large"]["detected"], c["by_significance"]["large"]["trials"]);
    if (!c["clean"].is_null() && sets.first(report::clean_set_of(c), c["detector"]["label"])) w.clean.add(c["clean"]["flagged"], c["clean"]["trials"]);
    if (c["reference"].is_object())
      for (const char* key : {"faulty.rate", "clean.rate"}) {
        const std::string block = std::string(key).substr(0, std::string(key).find('.'));
        if (!c["reference"].contains(key) || c[block].is_null()) continue;
        ++w.published;
        const double paper = c["reference"][key];
        w.inside += paper >= c[block]["ci95"][0].get<double>() && paper <= c[block]["ci95"][1].get<double>();
      }
  }
  for (const auto& t : report::array_of(r, "timing")) {
    auto& w = rows[t["detector"].get<std::string>()];
    w.det_s += t["detector_seconds"].get<double>(), w.kernel_s += t["kernel_seconds"].get<double>();
  }
  std::string h =
      "<h3>Summary</h3><table class=\"summary\"><tr><th>detector</th><th>cells</th><th>detected (95 % CI)</th>"
      "<th>on large faults</th><th>false alarms</th><th>located correctly</th><th>paper's rates inside our CI</th>"
      "<th>campaign time / kernel time</th></tr>\n";
  for (const auto& label : report::detector_labels(r)) {
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
