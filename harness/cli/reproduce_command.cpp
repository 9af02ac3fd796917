#include "harness/cli/reproduce_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "harness/campaign/engine.hpp"
#include "foundation/io/data_files.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "harness/results/result_set.hpp"
#include "protocol/workload.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The suite file the set was run from: --suite, else the recorded path, else
// the file of that name in the data directory's suites/ (foundation/io/data_files.hpp); it must have the
// recorded sha256.
std::string suite_file(const std::string& file, const json& suite, const reproduce_options& o) {
  const std::string recorded = suite.at("file").get<std::string>(), sha = suite.at("sha256").get<std::string>();
  std::vector<std::string> candidates;
  if (!o.suite_override.empty()) candidates = {o.suite_override};
  else candidates = {recorded, (data_file("suites") / fs::path(recorded).filename()).string()};
  std::string tried;
  for (const auto& c : candidates) {
    if (!fs::is_regular_file(c)) {
      tried += fmt::format("; {}: no such file", c);
      continue;
    }
    const std::string got = file_sha256_hex(c);
    if (got == sha) return c;
    tried += fmt::format("; {} has sha256 {}", c, got.substr(0, 16));
  }
  throw input_error(file, "suite.sha256",
                    fmt::format("the suite file the set was run from (sha256 {}, recorded at {}; check out the set's "
                                "git_commit or pass --suite){}",
                                sha.substr(0, 16), recorded, tried));
}

// "key / label: /faulty/detected 4 -> 3, ..." for one differing entry.
std::string describe_difference(const json& a, const json& b, const char* what) {
  const json patch = json::diff(a, b);
  std::string s = fmt::format("  {} {} / {}:", what, a.value("key", std::string("?")),
                              a.contains("detector") ? a["detector"].value("label", std::string("?"))
                                                     : a.value("recorder", json::object()).value("name", std::string("?")));
  size_t shown = 0;
  for (const auto& op : patch) {
    if (shown++ == 4) {
      s += fmt::format(" and {} more", patch.size() - 4);
      break;
    }
    const std::string path = op["path"].get<std::string>();
    const json::json_pointer p(path);
    const std::string before = a.contains(p) ? a[p].dump() : "(absent)";
    const std::string after = b.contains(p) ? b[p].dump() : "(absent)";
    s += fmt::format(" {} {} -> {};", path, before.substr(0, 40), after.substr(0, 40));
  }
  return s + "\n";
}

// The re-run's entry cut to the fields the recorded one has, object by object
// (arrays whole): a set written before sdcbench added a field (by_label, a
// workload metric) is compared on every number it recorded, and the added
// fields are named in `added`.
json recorded_fields(const json& recorded, const json& again, const std::string& at, std::set<std::string>& added) {
  if (!recorded.is_object() || !again.is_object()) return again;
  json out = json::object();
  for (auto it = again.begin(); it != again.end(); ++it) {
    if (!recorded.contains(it.key())) {
      added.insert(at + "/" + it.key());
      continue;
    }
    out[it.key()] = recorded_fields(recorded[it.key()], it.value(), at + "/" + it.key(), added);
  }
  return out;
}

// Counts the differing entries of two arrays in order; appends up to five.
size_t compare_entries(const json& a, const json& b, const char* what, std::string& text, std::set<std::string>& added) {
  if (a.size() != b.size()) {
    text += fmt::format("  {}: {} recorded, {} in the re-run\n", what, a.size(), b.size());
    return std::max(a.size(), b.size());
  }
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const json again = recorded_fields(a[i], b[i], "", added);
    if (a[i] != again && differ++ < 5) text += describe_difference(a[i], again, what);
  }
  return differ;
}

// A re-run's cells and recordings with the axes the recorded set lacks left
// out where they hold their keyless value (axis_def::keyless_value: an axis
// added after the set was written, at the value that behaves as before it
// existed); at any other value the axis stays and shows as a difference.
json without_added_axes(json entries, const json& recorded_suite) {
  const workload* w = find_workload(recorded_suite.at("workload").get<std::string>());
  if (!w) return entries;
  for (const auto& a : w->axes()) {
    if (a.keyless_value.empty() || recorded_suite.at("axes").contains(a.name)) continue;
    for (auto& e : entries)
      if (e.contains("axes") && e["axes"].value(a.name, "") == a.keyless_value) e["axes"].erase(a.name);
  }
  return entries;
}

}  // namespace

reproduce_report reproduce_result_set(const std::string& file, const json& as_written, const reproduce_options& o) {
  if (as_written.value("schema", "") == k_result_schema_v1)
    throw input_error(file, "schema", "a version 2 or 3 result set (version 1 recorded no episodes to re-run)");
  // A version 2 set is compared as its migration to 3: the re-run must give
  // exactly the migrated cells, so this also checks the migration.
  const json recorded = as_written["schema"] == k_result_schema ? as_written : migrate_result_set(as_written, file);
  const json& suite = recorded.at("suite");
  run_options ro;
  ro.suite_path = suite_file(file, suite, o);
  ro.scale = suite.at("scale").get<std::string>();
  ro.axis_overrides = suite.at("axis_overrides").get<std::vector<std::string>>();
  const json& shard = recorded.at("shard");
  if (!shard.contains("merged_from")) ro.shard_index = shard.at("index").get<int>(), ro.shard_count = shard.at("count").get<int>();
  ro.threads = o.threads;
  ro.argv = o.argv;
  fs::create_directories(o.out_dir);
  ro.out = (fs::path(o.out_dir) / fs::path(file).filename()).string();
  fs::remove(ro.out + ".journal");
  const json again = run_campaign(ro);

  reproduce_report r;
  r.out = ro.out;
  if (again.is_null()) {  // a process of an MPI job other than rank 0: rank 0 compares and prints
    r.identical = true;
    return r;
  }
  std::string diffs;
  const json &was_cells = recorded.at("cells"), &was_recs = recorded.at("recordings");
  std::set<std::string> added;
  const size_t cells = compare_entries(was_cells, without_added_axes(again.at("cells"), suite), "cell", diffs, added);
  const size_t recs = compare_entries(was_recs, without_added_axes(again.at("recordings"), suite), "recording", diffs, added);
  r.identical = cells == 0 && recs == 0;
  const json& p = recorded.at("provenance");
  const std::string where = fmt::format("recorded on {} at {}; re-run on {} ({})", p.value("cpu", "?"),
                                        p.value("git_commit", "?").substr(0, 7), again.at("provenance").value("cpu", "?"), r.out);
  if (r.identical)
    r.text = fmt::format("{}: reproduced: {} cells and {} recordings identical ({})\n", file, was_cells.size(), was_recs.size(), where);
  else
    r.text = fmt::format("{}: NOT reproduced: {} of {} cells and {} of {} recordings differ ({})\n{}", file, cells,
                         was_cells.size(), recs, was_recs.size(), where, diffs);
  if (!added.empty()) {
    std::string names;
    for (const auto& a : added) names += (names.empty() ? "" : ", ") + a;
    r.text += fmt::format("  note: fields this sdcbench writes and the recorded set does not have were not compared: {}\n", names);
  }
  const json& was = p.value("numerics", json(nullptr));
  const json& now = again.at("provenance").value("numerics", json(nullptr));
  if (was != now)
    r.text += fmt::format("  note: the workload's numerics differ (provenance.numerics): recorded {}, now {}\n", was.dump(),
                          now.dump());
  return r;
}

}  // namespace sdc
