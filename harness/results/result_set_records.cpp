#include "harness/results/result_set_records.hpp"

#include <algorithm>

namespace sdc {
namespace {

axis_values parse_axes(const json_field& f, const std::vector<std::string>& order) {
  std::map<std::string, std::string> by_name = f.string_map();
  axis_values out;
  for (const auto& name : order)
    if (auto it = by_name.find(name); it != by_name.end()) {
      out.emplace_back(name, std::move(it->second));
      by_name.erase(it);
    }
  for (auto& [name, value] : by_name) out.emplace_back(name, std::move(value));
  return out;
}

counted_rate parse_rate(const json_field& f, const char* count) {
  counted_rate r;
  r.trials = f["trials"].integer();
  if (count) r.count = f[count].integer();
  r.rate = f["rate"].number_or_null();
  r.lo = f["ci95"].at(0).number(), r.hi = f["ci95"].at(1).number();
  return r;
}

band parse_band(const json_field& f) { return {f["trials"].integer(), f["detected"].integer()}; }

faulty_side parse_faulty(const json_field& f) {
  faulty_side s;
  s.detected = parse_rate(f, "detected");
  s.skipped = f["skipped"].integer();
  s.outcomes = f["outcomes"].str();
  const json_field oc = f["outcome_counts"];
  s.right_location = oc["detected_right_location"].integer(), s.wrong_location = oc["detected_wrong_location"].integer();
  s.unlocated = oc["detected_unlocated"].integer(), s.missed = oc["missed"].integer();
  const json_field loc = f["localization"];
  s.localization = parse_rate(loc, loc.has("right") ? "right" : nullptr);
  const json_field l = f["latency_steps"];
  s.latency_steps = {l["detections"].integer(), l["p50"].number_or_null(), l["p90"].number_or_null(), l["max"].number_or_null()};
  s.early_flags = f["early_flags"].integer();
  if (const auto r = f.optional("by_reason")) s.by_reason = faulty_side::reasons{(*r)["nonfinite"].integer(), parse_rate((*r)["own"], "detected")};
  return s;
}

clean_side parse_clean(const json_field& f) {
  clean_side s;
  s.flagged = parse_rate(f, "flagged");
  s.outcomes = f["outcomes"].str();
  s.false_alarm = f["outcome_counts"]["false_alarm"].integer(), s.clean_pass = f["outcome_counts"]["clean_pass"].integer();
  const json_field steps = f["steps"];
  s.steps = parse_rate(steps, steps.has("flagged") ? "flagged" : nullptr);
  if (const auto r = f.optional("by_reason")) s.nonfinite = (*r)["nonfinite"].integer();
  return s;
}

std::optional<series_stats> parse_stats(const json_field& s, const char* kind) {
  const auto f = s.optional(kind);
  if (!f) return std::nullopt;
  return series_stats{(*f)["median"].numbers_or_null(), (*f)["mean"].numbers_or_null(), (*f)["max"].numbers_or_null(),
                      (*f)["count"].numbers(), (*f)["nan"].numbers()};
}

std::vector<series_entry> parse_series(const json_field& r, const char* name) {
  std::vector<series_entry> out;
  const auto list = r.optional(name);
  if (!list) return out;
  for (const auto& s : list->elements()) {
    const auto rank = s["rank"];
    out.push_back({s["name"].str(), s["over"].str(), rank.is_null() ? std::nullopt : std::optional<int64_t>(rank.integer()),
                   parse_stats(s, "clean"), parse_stats(s, "faulty")});
  }
  return out;
}

const std::string* record_axis(const axis_values& axes, const std::string& name) {
  for (const auto& [n, v] : axes)
    if (n == name) return &v;
  return nullptr;
}

std::optional<double> find_metric(const metric_map& m, const std::string& name) {
  const auto it = m.find(name);
  return it == m.end() ? std::nullopt : it->second;
}

// What a cell's and a recording's entries start with: where they ran (cell,
// key, axes), what ran there (`ran`: the detector or the recorder, the
// entry's field `ran_field`), the reason it was skipped and its clean set.
template <class Record>
Record parse_record_head(const json_field& f, const std::vector<std::string>& axis_order, component Record::*ran, const char* ran_field) {
  Record r;
  r.cell = f["cell"].integer();
  r.key = f["key"].str();
  r.axes = parse_axes(f["axes"], axis_order);
  r.*ran = parse_component(f[ran_field]);
  r.skipped = f["skipped"].string_or_null();
  r.clean_set = f["clean_set"].string_or_null();
  return r;
}

}  // namespace

component parse_component(const json_field& f) {
  component c;
  c.label = f["label"].str(), c.name = f["name"].str();
  c.params = f["params"].json();
  if (const auto cf = f.optional("closed_forms")) c.closed_forms = cf->strings();
  return c;
}

cell_record parse_cell(const json_field& c, const std::vector<std::string>& axis_order) {
  cell_record r = parse_record_head(c, axis_order, &cell_record::detector, "detector");
  if (const auto f = c.optional("faulty")) r.faulty = parse_faulty(*f);
  if (const auto f = c.optional("clean")) r.clean = parse_clean(*f);
  if (const auto b = c.optional("by_significance"))
    r.by_significance = significance_bands{parse_band((*b)["masked"]), parse_band((*b)["within_noise"]), parse_band((*b)["small"]),
                                     parse_band((*b)["large"])};
  if (const auto m = c.optional("metrics")) r.metrics = m->metric_map();
  if (const auto m = c.optional("workload_metrics")) r.workload_metrics = m->metric_map();
  r.series_list = parse_series(c, "series");
  r.workload_series = parse_series(c, "workload_series");
  if (const auto b = c.optional("by_label")) {
    r.by_label.emplace();
    for (const char* l : k_outcome_labels) {
      const json_field x = (*b)[l];
      const json_field p50 = x["latency_p50"];
      r.by_label->emplace(l, label_count{x["trials"].integer(), x["detected"].integer(), x["rate"].number_or_null(),
                                         x["ci95"].at(0).number(), x["ci95"].at(1).number(),
                                         p50.is_null() ? std::nullopt : std::optional<int64_t>(p50.integer())});
    }
  }
  if (const auto ref = c["reference"]; !ref.is_null()) {
    r.reference.emplace();
    for (const auto& [key, value] : ref.members()) r.reference->emplace(key, value.json());
  }
  r.raw = c.json();
  return r;
}

recording_record parse_recording(const json_field& c, const std::vector<std::string>& axis_order) {
  recording_record r = parse_record_head(c, axis_order, &recording_record::recorder, "recorder");
  if (const auto m = c.optional("metrics")) r.metrics = m->metric_map();
  if (const auto e = c.optional("episodes")) {
    r.episodes.emplace();
    for (const char* kind : {"faulty", "clean"})
      for (const auto& [name, values] : (*e)[kind].members()) (*r.episodes)[kind][name] = values.numbers_or_null();
  }
  r.series_list = parse_series(c, "series");
  r.raw = c.json();
  return r;
}

const std::string* cell_record::axis(const std::string& name) const { return record_axis(axes, name); }
const std::string* recording_record::axis(const std::string& name) const { return record_axis(axes, name); }
std::optional<double> cell_record::metric(const std::string& name) const { return find_metric(metrics, name); }
std::optional<double> cell_record::workload_metric(const std::string& name) const { return find_metric(workload_metrics, name); }

}  // namespace sdc
