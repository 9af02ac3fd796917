// The `show` table's published numbers (paper_columns.hpp).
#include "harness/results/paper_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "foundation/scoring/proportions.hpp"
#include "harness/results/cell_key.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using table = text_table;

std::string number_text(const std::string& key, const json& v) {
  if (v.is_null()) return "-";
  if (!v.is_number()) return v.dump();  // a reference may carry text: the schema allows any value (fuzz finding)
  return key.ends_with(".rate") ? fmt::format("{:.2f}%", 100 * v.get<double>()) : fmt::format("{:.4g}", v.get<double>());
}

std::string number_text(const std::string& key, const std::optional<double>& v) { return number_text(key, v ? json(*v) : json(nullptr)); }

}  // namespace

std::optional<double> measured_value(const cell_record& cell, const std::string& key) {
  if (key == "faulty.rate") return cell.faulty ? cell.faulty->detected.rate : std::nullopt;
  if (key == "clean.rate") return cell.clean ? cell.clean->flagged.rate : std::nullopt;
  if (key.starts_with("metrics.")) return cell.metric(key.substr(8));
  if (key.starts_with("workload_metrics.")) return cell.workload_metric(key.substr(17));
  return std::nullopt;
}

std::map<std::string, std::vector<std::string>> closed_forms_of(const result_set& r) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& d : r.suite.detectors)
    if (!d.closed_forms.empty()) out[d.label] = d.closed_forms;
  return out;
}

std::string paper_column(const cell_record& cell) {
  if (!cell.reference) return "";
  std::string s;
  for (const auto& [key, value] : *cell.reference) {
    if (key == "note") continue;
    std::string label = key.starts_with("metrics.") ? key.substr(8) : key.starts_with("workload_metrics.") ? key.substr(17) : key;
    s += (s.empty() ? "" : "; ") + label + " paper " + number_text(key, value) + " / ours " + number_text(key, measured_value(cell, key));
  }
  return s;
}

std::string closed_form_column(const cell_record& cell, const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string s;
  bool any = false;
  for (const auto& n : names) {
    const std::optional<double> v = cell.metric("faulty." + n + ".mean");
    any |= v.has_value();
    s += (s.empty() ? "" : " / ") + rate_text(v);
  }
  return any ? s : "";
}

std::string closed_form_header(const std::map<std::string, std::vector<std::string>>& forms) {
  std::vector<std::string> names;
  for (const auto& [label, ns] : forms)
    if (ns.size() > names.size()) names = ns;
  return "closed form: " + fmt::format("{}", fmt::join(names, " / "));
}

std::string pooled_table(const result_set& r, const std::vector<std::string>& pooled) {
  const auto axes = varying_axes(r);
  std::vector<std::string> kept;
  for (const auto& a : axes)
    if (std::find(pooled.begin(), pooled.end(), a) == pooled.end()) kept.push_back(a);
  using reference_values = std::optional<std::map<std::string, json>>;
  struct group {
    std::vector<std::string> row;
    int64_t cells = 0, det = 0, n = 0, flag = 0, nc = 0;
    std::vector<double> form_sum, form_w;  // per closed form: trial-weighted sum of means, weights
    reference_values reference;
    bool same_reference = true;
  };
  std::vector<group> groups;
  std::map<std::vector<std::string>, size_t> at;
  auto forms = closed_forms_of(r);
  clean_pool sets;
  for (const auto& c : r.cells) {
    if (c.skipped) continue;
    std::vector<std::string> key;
    for (const auto& a : kept) key.push_back(axis_text(c, a));
    key.push_back(c.detector.label);
    auto [it, fresh] = at.emplace(key, groups.size());
    const auto& names = forms[c.detector.label];
    if (fresh) groups.push_back({key, 0, 0, 0, 0, 0, std::vector<double>(names.size()), std::vector<double>(names.size()), c.reference, true});
    group& g = groups[it->second];
    ++g.cells;
    const int64_t trials = c.faulty ? c.faulty->detected.trials : 0;
    if (c.faulty) g.det += c.faulty->detected.count, g.n += trials;
    std::string pool;  // each clean set once per group
    for (const auto& k : key) pool += k + "\n";
    if (c.clean && sets.first(c.clean_set, pool)) g.flag += c.clean->flagged.count, g.nc += c.clean->flagged.trials;
    g.same_reference &= c.reference == g.reference;
    const double w = double(trials);
    for (size_t f = 0; f < names.size(); ++f)
      if (const auto m = c.metric("faulty." + names[f] + ".mean")) g.form_sum[f] += w * *m, g.form_w[f] += w;
  }
  table t;
  t.head = kept;
  for (const char* h : {"detector", "cells", "detected / not", "rate (95% CI)", "clean flagged / not"}) t.head.push_back(h);
  t.head.push_back(closed_form_header(forms));
  t.head.push_back("published (paper) vs measured (ours)");
  for (const auto& g : groups) {
    std::vector<std::string> row = g.row;
    row.push_back(std::to_string(g.cells));
    row.push_back(fmt::format("{} / {}", g.det, g.n - g.det));
    const interval ci = wilson_interval(g.det, g.n);
    row.push_back(g.n ? fmt::format("{:.2f}% [{:.1f},{:.1f}]", 100.0 * double(g.det) / double(g.n), 100 * ci.lo, 100 * ci.hi) : "-");
    row.push_back(fmt::format("{} / {}", g.flag, g.nc - g.flag));
    auto share = [](double sum, double w) { return w > 0 ? fmt::format("{:.2f}%", 100 * sum / w) : std::string("-"); };
    std::string forms_text;
    bool any_form = false;
    for (size_t f = 0; f < g.form_sum.size(); ++f)
      forms_text += (f ? " / " : "") + share(g.form_sum[f], g.form_w[f]), any_form |= g.form_w[f] > 0;
    row.push_back(any_form ? forms_text : "");
    std::string paper;
    if (g.same_reference && g.reference)
      for (const auto& [key, value] : *g.reference) {
        if (key == "note") continue;
        const std::optional<double> ours = key == "faulty.rate"  ? std::optional<double>(g.n ? double(g.det) / double(g.n) : 0.0)
                                           : key == "clean.rate" ? std::optional<double>(g.nc ? double(g.flag) / double(g.nc) : 0.0)
                                                                 : std::nullopt;
        paper += (paper.empty() ? "" : "; ") + key + " paper " + number_text(key, value) + " / ours " + number_text(key, ours);
      }
    row.push_back(paper);
    t.rows.push_back(row);
  }
  std::string names;
  for (const auto& p : pooled) names += (names.empty() ? "" : ", ") + p;
  return fmt::format("\npooled over {} (the paper's totals):\n", names) + t.render();
}

}  // namespace sdc
