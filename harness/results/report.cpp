#include "harness/results/report.hpp"

#include "harness/results/cell_key.hpp"
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

using json = nlohmann::json;
using table = text_table;

std::string rate_ci(const json& block, const char* hits) {
  if (block.is_null() || block["trials"].get<int64_t>() == 0) return "-";
  return fmt::format("{:>7} [{:.1f},{:.1f}] {}/{}", rate_text(block["rate"]), 100 * block["ci95"][0].get<double>(),
                     100 * block["ci95"][1].get<double>(), block[hits].get<int64_t>(), block["trials"].get<int64_t>());
}

// A workload's judged 0/1 metric (e.g. the training workload's
// attribution_right: a rerun's label against the injected lifetime) over a
// kind's episodes as a rate with its Wilson interval; "" when none has it.
std::string judged_rate(const json& cell, const std::string& kind, const std::string& name) {
  const auto& wm = cell["workload_metrics"];
  const std::string n_key = kind + "." + name + ".count", mean_key = kind + "." + name + ".mean";
  if (!wm.contains(n_key) || !wm[n_key].is_number() || wm[n_key].get<double>() == 0 || !wm[mean_key].is_number()) return "";
  const int64_t n = int64_t(wm[n_key].get<double>()), k = std::llround(wm[mean_key].get<double>() * double(n));
  const interval ci = wilson_interval(k, n);
  return fmt::format("{} {:.0f}% [{:.1f},{:.1f}] {}/{}", kind, 100.0 * double(k) / double(n), 100 * ci.lo, 100 * ci.hi, k, n);
}

std::string attribution_column(const json& cell) {
  if (!cell.contains("workload_metrics")) return "";
  const std::string f = judged_rate(cell, "faulty", "attribution_right"), c = judged_rate(cell, "clean", "attribution_right");
  return f.empty() ? c : c.empty() ? f : f + "; " + c;
}

}  // namespace

std::vector<std::string> varying_axes(const json& r) {
  std::vector<std::string> out;
  if (r["cells"].empty()) return out;
  // The key's order first (the suite's axis order); validate_result_set
  // refuses a key split_cell_key cannot read.
  if (const auto parts = split_cell_key(r["cells"][0]["key"].get<std::string>()))
    for (const auto& [name, value] : *parts)
      if (r["suite"]["axes"].contains(name) && r["suite"]["axes"][name].size() > 1) out.push_back(name);
  // An axis left out of the key at its keyless value (axis_def::keyless_value) varies too.
  for (const auto& [name, values] : r["suite"]["axes"].items())
    if (values.size() > 1 && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

std::string show_table(const json& r) {
  const auto& su = r["suite"];
  std::string out = fmt::format("suite {} ({} scale, workload {}), {} faulty + {} clean trials per cell, seed {}\n",
                                su["name"].get<std::string>(), su["scale"].get<std::string>(),
                                su["workload"].get<std::string>(), su["trials"]["faulty"].get<int64_t>(),
                                su["trials"]["clean"].get<int64_t>(), su["seed"].get<uint64_t>());
  if (su["reproduces"].is_object())
    out += fmt::format("reproduces {} {}\n", su["reproduces"]["paper"].get<std::string>(),
                       su["reproduces"]["table"].get<std::string>());
  const auto axes = varying_axes(r);
  std::map<std::pair<int64_t, std::string>, double> overhead;
  for (const auto& t : r["timing"])
    if (!t["overhead"].is_null()) overhead[{t["cell"], t["detector"]}] = t["overhead"];
  bool any_ref = false;
  for (const auto& c : r["cells"]) any_ref |= !c["reference"].is_null();
  table t;
  t.head = axes;
  const auto forms = closed_forms_of(r);
  auto forms_of = [&](const json& c) {
    auto it = forms.find(c["detector"]["label"]);
    return it == forms.end() ? std::vector<std::string>{} : it->second;
  };
  bool any_closed = false, any_located = false, multi_step = false, any_nonfinite = false, any_attributed = false;
  for (const auto& c : r["cells"]) {
    if (!c["skipped"].is_null()) continue;
    any_attributed |= !attribution_column(c).empty();
    if (c["faulty"].contains("by_reason")) any_nonfinite |= c["faulty"]["by_reason"]["nonfinite"].get<int64_t>() > 0;
    any_closed |= !closed_form_column(c, forms_of(c)).empty();
    if (c["faulty"].contains("localization")) any_located |= c["faulty"]["localization"]["trials"].get<int64_t>() > 0;
    if (c["clean"].contains("steps")) multi_step |= c["clean"]["steps"]["trials"] != c["clean"]["trials"];
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
  for (const auto& c : r["cells"]) {
    std::vector<std::string> row;
    for (const auto& a : axes) row.push_back(c["axes"][a].get<std::string>());
    row.push_back(c["detector"]["label"]);
    if (!c["skipped"].is_null()) {
      ++skipped;
      row.push_back("skipped: " + c["skipped"].get<std::string>());
      for (size_t k = row.size(); k < t.head.size(); ++k) row.push_back("");
      t.rows.push_back(row);
      continue;
    }
    row.push_back(rate_ci(c["faulty"], "detected"));
    const auto& large = c["by_significance"]["large"];
    row.push_back(large["trials"].get<int64_t>() > 0
                      ? fmt::format("{}/{}", large["detected"].get<int64_t>(), large["trials"].get<int64_t>())
                      : "-");
    row.push_back(rate_ci(c["clean"], "flagged"));
    if (any_nonfinite) row.push_back(c["faulty"].contains("by_reason") ? rate_ci(c["faulty"]["by_reason"]["own"], "detected") : "-");
    if (any_located) row.push_back(c["faulty"].contains("localization") ? rate_ci(c["faulty"]["localization"], "right") : "-");
    if (multi_step) {
      const auto& l = c["faulty"]["latency_steps"];
      auto num = [](const json& v) { return v.is_null() ? std::string("-") : fmt::format("{:g}", v.get<double>()); };
      row.push_back(num(l["p50"]) + "/" + num(l["p90"]));
      row.push_back(rate_ci(c["clean"]["steps"], "flagged"));
    }
    if (any_attributed) row.push_back(attribution_column(c));
    auto it = overhead.find({c["cell"], c["detector"]["label"]});
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
  if (r.contains("recordings") && !r["recordings"].empty())
    out += fmt::format("{} recordings (recorders' metrics per cell) in the file\n", r["recordings"].size()) +
           recording_summary_table(r) + comparison_table(r);
  out += label_table(r);
  if (su["reproduces"].is_object() && su["reproduces"].contains("pool_over")) {
    std::vector<std::string> pooled;
    for (const auto& p : su["reproduces"]["pool_over"]) pooled.push_back(p.get<std::string>());
    out += pooled_table(r, pooled);
  }
  return out;
}

}  // namespace sdc
