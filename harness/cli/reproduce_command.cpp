#include "harness/cli/reproduce_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "harness/campaign/engine.hpp"
#include "foundation/io/data_files.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_reader.hpp"
#include "protocol/workload.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The suite file the set was run from: --suite, else the recorded path, else
// the file of that name in the data directory's suites/ (foundation/io/data_files.hpp); it must have the
// recorded sha256.
std::string suite_file(const std::string& file, const suite_block& suite, const reproduce_options& o) {
  const std::string &recorded = suite.file, &sha = suite.sha256;
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

// The records compared: each entry's JSON as written (`raw`), since the
// contract is exact identity of every field recorded, the ones no reader
// types included; `name` heads its difference ("key / label").
struct compared_entry {
  std::string name;
  json raw;
};
std::vector<compared_entry> entries_of(const std::vector<cell_record>& cells) {
  std::vector<compared_entry> out;
  for (const auto& c : cells) out.push_back({c.key + " / " + c.detector.label, c.raw});
  return out;
}
std::vector<compared_entry> entries_of(const std::vector<recording_record>& recs) {
  std::vector<compared_entry> out;
  for (const auto& r : recs) out.push_back({r.key + " / " + r.recorder.name, r.raw});
  return out;
}

// "key / label: /faulty/detected 4 -> 3, ..." for one differing entry.
std::string describe_difference(const compared_entry& a, const json& b, const char* what) {
  const json patch = json::diff(a.raw, b);
  std::string s = fmt::format("  {} {}:", what, a.name);
  size_t shown = 0;
  for (const auto& op : patch) {
    if (shown++ == 4) {
      s += fmt::format(" and {} more", patch.size() - 4);
      break;
    }
    const std::string path = op["path"].get<std::string>();
    const json::json_pointer p(path);
    const std::string before = a.raw.contains(p) ? a.raw[p].dump() : "(absent)";
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

// Counts the differing entries of two lists in order; appends up to five.
size_t compare_entries(const std::vector<compared_entry>& a, const std::vector<compared_entry>& b, const char* what, std::string& text,
                       std::set<std::string>& added) {
  if (a.size() != b.size()) {
    text += fmt::format("  {}: {} recorded, {} in the re-run\n", what, a.size(), b.size());
    return std::max(a.size(), b.size());
  }
  size_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const json again = recorded_fields(a[i].raw, b[i].raw, "", added);
    if (a[i].raw != again && differ++ < 5) text += describe_difference(a[i], again, what);
  }
  return differ;
}

// A re-run's cells and recordings with the axes the recorded set lacks left
// out where they hold their keyless value (axis_def::keyless_value: an axis
// added after the set was written, at the value that behaves as before it
// existed); at any other value the axis stays and shows as a difference.
template <class Record>
std::vector<compared_entry> without_added_axes(const std::vector<Record>& records, const suite_block& recorded_suite) {
  std::vector<compared_entry> out = entries_of(records);
  const workload* w = find_workload(recorded_suite.workload);
  if (!w) return out;
  for (const auto& a : w->axes()) {
    if (a.keyless_value.empty() || recorded_suite.axis(a.name)) continue;
    for (size_t i = 0; i < records.size(); ++i)
      if (const std::string* v = records[i].axis(a.name); v && *v == a.keyless_value) erase_axis(out[i].raw, a.name);
  }
  return out;
}

}  // namespace

reproduce_report reproduce_result_set(const std::string& file, const json& as_written, const reproduce_options& o) {
  const std::string version = schema_of(as_written);
  if (version == k_result_schema_v1)
    throw input_error(file, "schema", "a version 2 or 3 result set (version 1 recorded no episodes to re-run)");
  // A version 2 set is compared as its migration to 3: the re-run must give
  // exactly the migrated cells, so this also checks the migration.
  const result_set recorded = parse_result_set(as_written, file);
  const suite_block& suite = recorded.suite;
  run_options ro;
  ro.suite_path = suite_file(file, suite, o);
  ro.scale = suite.scale;
  ro.axis_overrides = suite.axis_overrides;
  if (!recorded.shard.merged_from) ro.shard_index = int(recorded.shard.index), ro.shard_count = int(recorded.shard.count);
  ro.threads = o.threads;
  ro.argv = o.argv;
  fs::create_directories(o.out_dir);
  ro.out = (fs::path(o.out_dir) / fs::path(file).filename()).string();
  fs::remove(ro.out + ".journal");
  const json again_json = run_campaign(ro);

  reproduce_report r;
  r.out = ro.out;
  if (again_json.is_null()) {  // a process of an MPI job other than rank 0: rank 0 compares and prints
    r.identical = true;
    return r;
  }
  const result_set again = parse_result_set(again_json, ro.out);
  std::string diffs;
  std::set<std::string> added;
  const size_t cells = compare_entries(entries_of(recorded.cells), without_added_axes(again.cells, suite), "cell", diffs, added);
  const size_t recs =
      compare_entries(entries_of(recorded.recordings), without_added_axes(again.recordings, suite), "recording", diffs, added);
  r.identical = cells == 0 && recs == 0;
  const provenance_block& p = recorded.provenance;
  const std::string where = fmt::format("recorded on {} at {}; re-run on {} ({})", p.cpu.value_or("?"),
                                        p.git_commit.value_or("?").substr(0, 7), again.provenance.cpu.value_or("?"), r.out);
  const size_t n_cells = recorded.cells.size(), n_recs = recorded.recordings.size();
  if (r.identical)
    r.text = fmt::format("{}: reproduced: {} cells and {} recordings identical ({})\n", file, n_cells, n_recs, where);
  else
    r.text = fmt::format("{}: NOT reproduced: {} of {} cells and {} of {} recordings differ ({})\n{}", file, cells, n_cells, recs,
                         n_recs, where, diffs);
  if (!added.empty()) {
    std::string names;
    for (const auto& a : added) names += (names.empty() ? "" : ", ") + a;
    r.text += fmt::format("  note: fields this sdcbench writes and the recorded set does not have were not compared: {}\n", names);
  }
  const json &was = p.numerics, &now = again.provenance.numerics;
  if (was != now)
    r.text += fmt::format("  note: the workload's numerics differ (provenance.numerics): recorded {}, now {}\n", was.dump(),
                          now.dump());
  return r;
}

}  // namespace sdc
