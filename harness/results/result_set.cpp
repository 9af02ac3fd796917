// Result sets (result_set.hpp): making one from a run, and validating one
// against its schema and its own arithmetic. Provenance: provenance.cpp.
#include "harness/results/result_set.hpp"

#include "harness/results/cell_key.hpp"
#include "harness/results/clean_sets.hpp"
#include "harness/results/paired.hpp"
#include "harness/results/series.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>
#include <sstream>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/json_schema.hpp"
#include "foundation/scoring/proportions.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// Version 2: outcome counts add up to the rates' counts, localization and
// per-step rates are consistent, every rate lies inside its interval.
template <class CheckInterval>
void check_episode_arithmetic(const json& c, const std::string& at, std::vector<std::string>& problems,
                              const CheckInterval& check_interval) {
  const auto& f = c["faulty"];
  const auto& fo = f["outcome_counts"];
  const int64_t right = fo["detected_right_location"], wrong = fo["detected_wrong_location"];
  const int64_t det = right + wrong + fo["detected_unlocated"].get<int64_t>();
  if (det != f["detected"].get<int64_t>() || det + fo["missed"].get<int64_t>() != f["trials"].get<int64_t>())
    problems.push_back(at + "/faulty/outcome_counts: detections and misses do not add up to detected and trials");
  const auto& loc = f["localization"];
  if (loc["trials"].get<int64_t>() != right + wrong || loc["right"].get<int64_t>() != right)
    problems.push_back(at + "/faulty/localization: expected right/trials = detected_right_location/(right + wrong location)");
  check_interval(loc, at + "/faulty/localization", "right");
  if (f["latency_steps"]["detections"].get<int64_t>() != det)
    problems.push_back(at + "/faulty/latency_steps: detections != detected");
  const auto& cl = c["clean"];
  const auto& co = cl["outcome_counts"];
  if (co["false_alarm"].get<int64_t>() != cl["flagged"].get<int64_t>() ||
      co["false_alarm"].get<int64_t>() + co["clean_pass"].get<int64_t>() != cl["trials"].get<int64_t>())
    problems.push_back(at + "/clean/outcome_counts: false alarms and passes do not add up to flagged and trials");
  const auto& st = cl["steps"];
  if (st["flagged"].get<int64_t>() > st["trials"].get<int64_t>() || st["flagged"].get<int64_t>() < cl["flagged"].get<int64_t>() ||
      st["trials"].get<int64_t>() < cl["trials"].get<int64_t>())
    problems.push_back(at + "/clean/steps: flagged steps must lie between flagged episodes and steps");
  check_interval(st, at + "/clean/steps", "flagged");
  if (f.contains("by_reason")) {
    const auto& br = f["by_reason"];
    check_interval(br["own"], at + "/faulty/by_reason/own", "detected");
    if (br["own"]["detected"].get<int64_t>() + br["nonfinite"].get<int64_t>() != det || br["own"]["trials"] != f["trials"])
      problems.push_back(at + "/faulty/by_reason: own and nonfinite detections do not add up to detected of trials");
  }
  if (cl.contains("by_reason") && cl["by_reason"]["nonfinite"].get<int64_t>() > cl["flagged"].get<int64_t>())
    problems.push_back(at + "/clean/by_reason: more non-finite false alarms than false alarms");
}

}  // namespace

json make_result_set(json suite_block, int shard_index, int shard_count, json cells, json recordings, json timing,
                     json prov) {
  json j;
  j["schema"] = k_result_schema;
  j["complete"] = true;
  j["suite"] = std::move(suite_block);
  j["shard"] = {{"index", shard_index}, {"count", shard_count}};
  prov["finished"] = now_iso8601();
  j["provenance"] = std::move(prov);
  j["cells"] = std::move(cells);
  j["recordings"] = std::move(recordings);
  j["timing"] = std::move(timing);
  if (json c = paired_comparisons(j["suite"], j["recordings"]); !c.is_null()) j["comparisons"] = std::move(c);
  return j;
}

std::vector<std::string> validate_result_set(const json& j) {
  std::vector<std::string> problems;
  if (!j.is_object() || !j.contains("schema") ||
      (j["schema"] != k_result_schema && j["schema"] != k_result_schema_v3 && j["schema"] != k_result_schema_v2 &&
       j["schema"] != k_result_schema_v1))
    return {std::string("schema: expected \"schema\": \"") + k_result_schema + "\" (or \"" + k_result_schema_v3 + "\", \"" +
            k_result_schema_v2 + "\", \"" + k_result_schema_v1 + "\")"};
  const bool v4 = j["schema"] == k_result_schema, v3 = v4 || j["schema"] == k_result_schema_v3,
             v2 = v3 || j["schema"] == k_result_schema_v2;
  {
    static const json_schema schema_v1(json::parse(result_schema_text_v1())), schema_v2(json::parse(result_schema_text_v2())),
        schema_v3(json::parse(result_schema_text_v3())), schema_v4(json::parse(result_schema_text_v4()));
    const json_schema& schema = v4 ? schema_v4 : v3 ? schema_v3 : v2 ? schema_v2 : schema_v1;
    for (const auto& p : schema.problems(j)) problems.push_back("schema: " + (p.pointer.empty() ? "/" : p.pointer) + ": " + p.expected);
    if (!problems.empty()) return problems;
  }
  // Arithmetic: every number derivable from others must agree with them.
  if (j["shard"]["index"].get<int64_t>() >= j["shard"]["count"].get<int64_t>())
    problems.push_back("/shard: index must be below count");
  const auto& cells = j["cells"];
  std::set<std::pair<int64_t, std::string>> seen;
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    const std::string at = fmt::format("/cells/{}", i);
    if (!seen.insert({c["cell"].get<int64_t>(), c["detector"]["label"].get<std::string>()}).second)
      problems.push_back(at + ": duplicate (cell, detector)");
    // A published number is a number (show, compare and report compute with
    // it); text only in `note`.
    if (c.contains("reference") && c["reference"].is_object())
      for (auto it = c["reference"].begin(); it != c["reference"].end(); ++it)
        if (it.key() == "note" ? !it->is_string() : !it->is_number())
          problems.push_back(at + "/reference/" + it.key() + (it.key() == "note" ? ": expected text" : ": expected a number (text only in note)"));
    // A cell names one value of every axis of the suite and of no other axis:
    // show, compare and report index every cell by the suite's axes (its key
    // names them in the suite's order).
    if (c["key"].is_string()) {
      const auto parts = split_cell_key(c["key"].get<std::string>());
      if (!parts) problems.push_back(at + "/key: expected NAME=VALUE parts joined by ';'");
      else if (j["suite"]["axes"].is_object())
        for (const auto& part : *parts)
          if (!j["suite"]["axes"].contains(part.first)) problems.push_back(at + "/key: " + part.first + " is not an axis of the suite");
    }
    if (c["axes"].is_object() && j["suite"]["axes"].is_object()) {
      for (auto it = j["suite"]["axes"].begin(); it != j["suite"]["axes"].end(); ++it)
        if (!c["axes"].contains(it.key())) problems.push_back(at + "/axes: no value of the suite's axis " + it.key());
      for (auto it = c["axes"].begin(); it != c["axes"].end(); ++it)
        if (!j["suite"]["axes"].contains(it.key())) problems.push_back(at + "/axes/" + it.key() + ": not an axis of the suite");
    }
    if (!c["skipped"].is_null()) continue;
    if (!c.contains("faulty") || !c.contains("clean") || !c.contains("by_significance")) {
      problems.push_back(at + ": a cell that ran needs faulty, clean and by_significance");
      continue;
    }
    auto check_interval = [&](const json& b, const std::string& bp, const char* hits_name) {
      const int64_t n = b["trials"], x = b[hits_name];
      const interval ci = wilson_interval(x, n);
      const double lo = b["ci95"][0].get<double>(), hi = b["ci95"][1].get<double>();
      if (std::fabs(lo - ci.lo) > 1e-9 || std::fabs(hi - ci.hi) > 1e-9)
        problems.push_back(bp + ": ci95 is not the Wilson interval of " + hits_name + "/trials");
      if (v2 && b["rate"].is_number() && !(lo <= b["rate"].get<double>() && b["rate"].get<double>() <= hi))
        problems.push_back(bp + ": rate lies outside its own ci95");
    };
    auto check_block = [&](const json& b, const char* name, const char* hits_name, int64_t outcome_trials) {
      const int64_t n = b["trials"], x = b[hits_name];
      const std::string bp = at + "/" + name;
      if (x > n) problems.push_back(fmt::format("{}: {} {} > trials {}", bp, hits_name, x, n));
      if (n > 0 && (b["rate"].is_null() || std::fabs(b["rate"].get<double>() - double(x) / double(n)) > 1e-12))
        problems.push_back(bp + ": rate is not " + hits_name + "/trials");
      if (n == 0 && !b["rate"].is_null()) problems.push_back(bp + ": rate must be null with no trials");
      check_interval(b, bp, hits_name);
      try {
        const auto bits = outcome_bits::from_hex(b["outcomes"].get<std::string>(), size_t(outcome_trials));
        if (bits.count() != x) problems.push_back(fmt::format("{}: outcome bits count {} != {} {}", bp, bits.count(), hits_name, x));
      } catch (const value_error& e) {
        problems.push_back(bp + "/outcomes: " + e.what());
      }
    };
    const int64_t faulty_total = c["faulty"]["trials"].get<int64_t>() + c["faulty"]["skipped"].get<int64_t>();
    check_block(c["faulty"], "faulty", "detected", faulty_total);
    check_block(c["clean"], "clean", "flagged", c["clean"]["trials"].get<int64_t>());
    int64_t band_trials = 0, band_detected = 0;
    for (auto it = c["by_significance"].begin(); it != c["by_significance"].end(); ++it) {
      band_trials += (*it)["trials"].get<int64_t>();
      band_detected += (*it)["detected"].get<int64_t>();
    }
    if (band_trials != c["faulty"]["trials"].get<int64_t>() || band_detected != c["faulty"]["detected"].get<int64_t>())
      problems.push_back(at + "/by_significance: bands do not add up to the faulty trials and detections");
    if (v2) check_episode_arithmetic(c, at, problems, check_interval);
    if (v3) check_series(c, j["suite"]["trials"], at, problems);
  }
  if (v3)
    for (size_t i = 0; i < j["recordings"].size(); ++i)
      if (j["recordings"][i]["skipped"].is_null()) check_series(j["recordings"][i], j["suite"]["trials"], fmt::format("/recordings/{}", i), problems);
  if (v4) check_clean_sets(j, problems);
  // The paired comparisons follow from the recordings: recomputed, they must
  // be equal. Version 3's were a cluster bootstrap, recomputed by migration.
  if (v4 && j.contains("comparisons")) {
    try {
      if (paired_comparisons(j.at("suite"), j.at("recordings")) != j["comparisons"])
        problems.push_back("/comparisons: not what the recordings' episodes give (harness/results/paired.hpp)");
    } catch (const std::exception& e) {
      problems.push_back(std::string("/comparisons: cannot be recomputed from the suite and recordings: ") + e.what());
    }
  }
  return problems;
}

json merge_result_sets(const std::vector<json>& shards, const std::vector<std::string>& files,
                       const std::vector<std::string>& argv) {
  if (shards.empty()) throw input_error("merge", "inputs", "expected at least one result file");
  const json& first = shards[0];
  const int64_t count = first["shard"]["count"];
  std::map<int64_t, size_t> by_index;
  for (size_t i = 0; i < shards.size(); ++i) {
    const auto& s = shards[i];
    if (auto p = validate_result_set(s); !p.empty()) throw input_error(files[i], p.front(), "expected a valid result set");
    if (s["schema"] != first["schema"]) throw input_error(files[i], "/schema", "differs from " + files[0] + ": shards must come from one run");
    for (const char* k : {"name", "sha256", "scale", "seed", "axis_overrides", "trials", "fault_axes"})
      if (s["suite"].value(k, json()) != first["suite"].value(k, json()))  // fault_axes: version 4 only
        throw input_error(files[i], std::string("/suite/") + k, "differs from " + files[0] + ": shards must come from one run");
    if (s["shard"]["count"] != count)
      throw input_error(files[i], "/shard/count", "differs from " + files[0] + " (" + std::to_string(count) + ")");
    const int64_t idx = s["shard"]["index"];
    if (!by_index.emplace(idx, i).second) throw input_error(files[i], "/shard/index", "shard " + std::to_string(idx) + " given twice");
  }
  for (int64_t i = 0; i < count; ++i)
    if (!by_index.count(i))
      throw input_error("merge", "shards", fmt::format("shard {}/{} is missing", i, count));
  // Cells in the order an unsharded run writes them: by cell index, detectors in suite order.
  std::vector<json> cells, timing, recordings;
  for (const auto& s : shards) {
    for (const auto& c : s["cells"]) cells.push_back(c);
    for (const auto& t : s["timing"]) timing.push_back(t);
    if (s.contains("recordings"))
      for (const auto& r : s["recordings"]) recordings.push_back(r);
  }
  std::map<std::string, size_t> det_order;
  for (size_t d = 0; d < first["suite"]["detectors"].size(); ++d) det_order[first["suite"]["detectors"][d]["label"]] = d;
  std::stable_sort(cells.begin(), cells.end(), [&](const json& a, const json& b) {
    return std::make_pair(a["cell"].get<int64_t>(), det_order[a["detector"]["label"]]) <
           std::make_pair(b["cell"].get<int64_t>(), det_order[b["detector"]["label"]]);
  });
  std::stable_sort(timing.begin(), timing.end(), [&](const json& a, const json& b) {
    return std::make_pair(a["cell"].get<int64_t>(), det_order[a["detector"]]) <
           std::make_pair(b["cell"].get<int64_t>(), det_order[b["detector"]]);
  });
  std::map<std::string, size_t> rec_order;
  if (first["suite"].contains("recorders"))
    for (size_t d = 0; d < first["suite"]["recorders"].size(); ++d) rec_order[first["suite"]["recorders"][d]["label"]] = d;
  std::stable_sort(recordings.begin(), recordings.end(), [&](const json& a, const json& b) {
    return std::make_pair(a["cell"].get<int64_t>(), rec_order[a["recorder"]["label"]]) <
           std::make_pair(b["cell"].get<int64_t>(), rec_order[b["recorder"]["label"]]);
  });
  json out = first;
  out["shard"] = {{"index", 0}, {"count", 1}, {"merged_from", files}};
  out["cells"] = cells;
  if (first.contains("recordings")) out["recordings"] = recordings;
  out["timing"] = timing;
  out.erase("comparisons");  // a shard's are over its cells only: recomputed over all of them
  if (json c = paired_comparisons(out["suite"], out["recordings"]); !c.is_null()) out["comparisons"] = std::move(c);
  out["provenance"]["argv"] = argv;
  out["provenance"]["finished"] = now_iso8601();
  if (out["provenance"].contains("throughput")) out["provenance"]["throughput"] = nullptr;  // the shards ran apart: no one wall time
  return out;
}

}  // namespace sdc
