// The result-set reader's top (result_set_reader.hpp): the suite, shard,
// provenance, timing and paired comparisons; the records are typed in
// result_set_records.cpp.
#include "harness/results/result_set_reader.hpp"

#include <algorithm>

#include "harness/results/cell_key.hpp"
#include "harness/results/json_fields.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_records.hpp"

namespace sdc {
namespace {

std::vector<component> parse_components(const json_field& f) {
  std::vector<component> out;
  for (const auto& e : f.elements()) out.push_back(parse_component(e));
  return out;
}

// The suite's axes in the workload's order: the first cell key's, then the
// axes no key names (at their keyless value) by name.
std::vector<std::pair<std::string, std::vector<std::string>>> ordered_axes(const json_field& axes, const json_field& cells) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_name;
  for (const auto& [name, values] : axes.members()) by_name.emplace_back(name, values.strings());
  if (cells.json().empty()) return by_name;
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  if (const auto parts = split_cell_key(cells.at(0)["key"].str()))
    for (const auto& part : *parts) {
      const std::string& name = part.first;  // a structured binding would not be capturable by clang 14
      auto it = std::find_if(by_name.begin(), by_name.end(), [&](const auto& a) { return a.first == name; });
      if (it == by_name.end()) continue;
      out.push_back(std::move(*it));
      by_name.erase(it);
    }
  for (auto& a : by_name) out.push_back(std::move(a));
  return out;
}

suite_block parse_suite(const json_field& s, const json_field& cells) {
  suite_block b;
  b.name = s["name"].str(), b.file = s["file"].str(), b.sha256 = s["sha256"].str();
  b.scale = s["scale"].str(), b.workload = s["workload"].str();
  if (const auto d = s.optional("description")) b.description = d->str();
  if (const auto m = s.optional("migrated_from")) b.migrated_from = m->str();
  b.seed = s["seed"].unsigned_integer();
  b.faulty_trials = s["trials"]["faulty"].integer(), b.clean_trials = s["trials"]["clean"].integer();
  b.axes = ordered_axes(s["axes"], cells);
  b.axis_overrides = s["axis_overrides"].strings();
  b.fault_axes = s["fault_axes"].strings();
  b.truth_metrics = s["truth_metrics"].strings();
  b.detectors = parse_components(s["detectors"]);
  b.recorders = parse_components(s["recorders"]);
  if (const auto r = s.optional("reproduces")) {
    published_source p;
    if (const auto paper = r->optional("paper")) p.paper = paper->str();
    if (const auto table = r->optional("table")) p.table = table->str();
    if (const auto pool = r->optional("pool_over")) p.pool_over = pool->strings();
    b.reproduces = std::move(p);
  }
  if (const auto c = s.optional("compare")) {
    suite_block::compare_axis a;
    a.axis = (*c)["axis"].str(), a.recorder = (*c)["recorder"].str();
    a.clusters = (*c)["clusters"].string_or_null();
    b.compare = std::move(a);
  }
  return b;
}

provenance_block parse_provenance(const json_field& p) {
  provenance_block b;
  if (const auto cpu = p.optional("cpu")) b.cpu = cpu->str();
  if (const auto g = p.optional("git_commit")) b.git_commit = g->str();
  if (const auto d = p.optional("git_dirty")) b.git_dirty = d->boolean();
  const std::pair<const char*, std::optional<std::string>*> texts[] = {
      {"sdcbench_version", &b.sdcbench_version}, {"compiler", &b.compiler}, {"build_type", &b.build_type},
      {"started", &b.started}, {"finished", &b.finished}};
  for (const auto& [name, field] : texts)
    if (const auto v = p.optional(name)) *field = v->str();
  if (const auto t = p.optional("threads")) b.threads = t->integer();
  if (const auto t = p.optional("throughput"); t && t->json().is_object())
    b.rate = throughput{(*t)["episodes"].number(), (*t)["wall_seconds"].number(), (*t)["cores"].number()};
  if (const auto n = p.optional("numerics")) b.numerics = n->json();
  b.raw = p.json();
  return b;
}

estimate parse_estimate(const json_field& e) {
  return {e["mean"].number_or_null(), e["ci95"].at(0).number_or_null(), e["ci95"].at(1).number_or_null()};
}

paired_comparisons_block parse_comparisons(const json_field& c) {
  paired_comparisons_block b;
  b.axis = c["axis"].str(), b.recorder = c["recorder"].str(), b.method = c["method"].str();
  b.clusters = c["clusters"].string_or_null();
  for (const auto& g : c["groups"].elements()) {
    paired_group pg;
    pg.axes = g["axes"].string_map();
    pg.kind = g["kind"].str();
    pg.units = g["units"].integer(), pg.clusters = g["clusters"].integer();
    for (const auto& [name, m] : g["metrics"].members()) {
      paired_metric pm;
      for (const auto& [value, e] : m["values"].members()) pm.values.emplace(value, parse_estimate(e));
      for (const auto& d : m["differences"].elements()) pm.differences.push_back({d["a"].str(), d["b"].str(), parse_estimate(d)});
      pg.metrics.emplace(name, std::move(pm));
    }
    b.groups.push_back(std::move(pg));
  }
  return b;
}

}  // namespace

const std::vector<std::string>* suite_block::axis(const std::string& name) const {
  for (const auto& [n, values] : axes)
    if (n == name) return &values;
  return nullptr;
}

result_set parse_result_set(const nlohmann::json& doc, const std::string& file) {
  if (const std::string version = schema_of(doc); version != k_result_schema && !version.empty())
    return parse_result_set(migrate_result_set(doc, file), file);
  const json_field top(doc, "", file);
  result_set r;
  r.schema = top["schema"].str();
  if (r.schema != k_result_schema) top["schema"].fail(std::string("\"") + k_result_schema + "\" (older versions are migrated first)");
  r.complete = top["complete"].boolean();
  const json_field cells = top["cells"];
  r.suite = parse_suite(top["suite"], cells);
  const json_field shard = top["shard"];
  r.shard.index = shard["index"].integer(), r.shard.count = shard["count"].integer();
  if (const auto m = shard.optional("merged_from")) r.shard.merged_from = m->strings();
  r.provenance = parse_provenance(top["provenance"]);
  std::vector<std::string> order;
  for (const auto& [name, values] : r.suite.axes) order.push_back(name);
  for (const auto& c : cells.elements()) r.cells.push_back(parse_cell(c, order));
  for (const auto& c : top["recordings"].elements()) r.recordings.push_back(parse_recording(c, order));
  for (const auto& t : top["timing"].elements())
    r.timing.push_back({t["cell"].integer(), t["detector"].str(), t["kernel_seconds"].number(), t["detector_seconds"].number(),
                        t["overhead"].number_or_null()});
  if (const auto c = top.optional("comparisons")) r.comparisons = parse_comparisons(*c);
  return r;
}

std::string schema_of(const nlohmann::json& doc) {
  if (!doc.is_object()) return "";
  const auto it = doc.find("schema");
  return it != doc.end() && it->is_string() ? it->get<std::string>() : "";
}

void erase_axis(nlohmann::json& raw_record, const std::string& name) {
  if (const auto it = raw_record.find("axes"); it != raw_record.end() && it->is_object()) it->erase(name);
}

result_set load_result_set(const std::string& file) { return parse_result_set(load_result_document(file), file); }

}  // namespace sdc
