#include "harness/results/result_set.hpp"

#include <boost/version.hpp>
#include <cblas.h>
#include <mpfr.h>
#include <unistd.h>

#include <CLI/Version.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "harness/campaign/engine.hpp"
#include "harness/errors.hpp"
#include "harness/scoring/proportions.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

std::string run_command(const std::string& cmd) {
  std::string out;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

std::string now_iso8601() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json provenance(const std::vector<std::string>& argv, int threads, uint64_t seed, const std::string& started) {
  // The git state of the source tree this binary was built from, read at run time.
  const std::string src = SDCBENCH_SOURCE_DIR;
  const std::string commit = run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  json dirty = nullptr;
  if (!commit.empty()) dirty = !run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty();
  return {{"sdcbench_version", SDCBENCH_VERSION},
          {"git_commit", commit.empty() ? "unknown" : commit},
          {"git_dirty", dirty},
          {"compiler", SDCBENCH_COMPILER},
          {"build_type", SDCBENCH_BUILD_TYPE},
          {"cpu", cpu_model()},
          {"threads", threads},
          {"seed", seed},
          {"argv", argv},
          {"started", started},
          {"finished", now_iso8601()},
          {"libraries",
           {{"mpfr", mpfr_get_version()},
            {"boost", fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100)},
            {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                                          NLOHMANN_JSON_VERSION_PATCH)},
            {"openblas", openblas_get_config()},
            {"fmt", std::to_string(FMT_VERSION)},
            {"cli11", CLI11_VERSION}}}};
}

json make_result_set(const suite& s, const run_options& o, json cells, json timing, json prov) {
  json axes = json::object();
  for (const auto& [name, vals] : s.axes) axes[name] = vals;
  json dets = json::array();
  for (const auto& d : s.detectors) dets.push_back({{"label", d.label}, {"name", d.info->name}, {"params", d.params}});
  json j;
  j["schema"] = k_result_schema;
  j["complete"] = true;
  j["suite"] = {{"name", s.name},
                {"file", s.file},
                {"sha256", s.sha256},
                {"scale", s.scale},
                {"workload", s.wl->name()},
                {"description", s.description},
                {"seed", s.seed},
                {"trials", {{"faulty", s.faulty_trials}, {"clean", s.clean_trials}}},
                {"axes", axes},
                {"axis_overrides", s.axis_overrides},
                {"detectors", dets},
                {"reproduces", s.reproduces}};
  j["shard"] = {{"index", o.shard_index}, {"count", o.shard_count}};
  prov["finished"] = now_iso8601();
  j["provenance"] = std::move(prov);
  j["cells"] = std::move(cells);
  j["timing"] = std::move(timing);
  return j;
}

void write_json_atomic(const std::string& path, const json& j) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) throw input_error(path, "file", "cannot open a temporary file beside it for writing");
    const std::string text = j.dump(1) + "\n";
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    std::fclose(f);
    if (!ok) {
      std::filesystem::remove(tmp);
      throw input_error(path, "file", "writing failed (disk full?); nothing was written");
    }
  }
  std::filesystem::rename(tmp, path);
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "file", "expected a readable JSON file; cannot open it");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw input_error(path, "byte " + std::to_string(e.byte), std::string("expected valid JSON: ") + e.what());
  }
}

std::vector<std::string> validate_result_set(const json& j) {
  std::vector<std::string> problems;
  {
    static const json schema_doc = json::parse(result_schema_text());
    valijson::Schema schema;
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter schema_adapter(schema_doc);
    parser.populateSchema(schema_adapter, schema);
    valijson::Validator validator;
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter target(j);
    if (!validator.validate(schema, target, &results)) {
      valijson::ValidationResults::Error e;
      while (results.popError(e)) {
        std::string where;
        for (const auto& c : e.context) where += c;
        problems.push_back("schema: " + where + ": " + e.description);
      }
      return problems;
    }
  }
  // Arithmetic: every number derivable from others must agree with them.
  const auto& cells = j["cells"];
  std::set<std::pair<int64_t, std::string>> seen;
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    const std::string at = fmt::format("/cells/{}", i);
    if (!seen.insert({c["cell"].get<int64_t>(), c["detector"]["label"].get<std::string>()}).second)
      problems.push_back(at + ": duplicate (cell, detector)");
    if (!c["skipped"].is_null()) continue;
    if (!c.contains("faulty") || !c.contains("clean") || !c.contains("by_significance")) {
      problems.push_back(at + ": a cell that ran needs faulty, clean and by_significance");
      continue;
    }
    auto check_block = [&](const json& b, const char* name, const char* hits_name, int64_t outcome_trials) {
      const int64_t n = b["trials"], x = b[hits_name];
      const std::string bp = at + "/" + name;
      if (x > n) problems.push_back(fmt::format("{}: {} {} > trials {}", bp, hits_name, x, n));
      if (n > 0 && (b["rate"].is_null() || std::fabs(b["rate"].get<double>() - double(x) / double(n)) > 1e-12))
        problems.push_back(bp + ": rate is not " + hits_name + "/trials");
      if (n == 0 && !b["rate"].is_null()) problems.push_back(bp + ": rate must be null with no trials");
      const interval ci = wilson_interval(x, n);
      if (std::fabs(b["ci95"][0].get<double>() - ci.lo) > 1e-9 || std::fabs(b["ci95"][1].get<double>() - ci.hi) > 1e-9)
        problems.push_back(bp + ": ci95 is not the Wilson interval of " + hits_name + "/trials");
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
    for (const char* k : {"name", "sha256", "scale", "seed", "axis_overrides", "trials"})
      if (s["suite"][k] != first["suite"][k])
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
  std::vector<json> cells, timing;
  for (const auto& s : shards) {
    for (const auto& c : s["cells"]) cells.push_back(c);
    for (const auto& t : s["timing"]) timing.push_back(t);
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
  json out = first;
  out["shard"] = {{"index", 0}, {"count", 1}, {"merged_from", files}};
  out["cells"] = cells;
  out["timing"] = timing;
  out["provenance"]["argv"] = argv;
  out["provenance"]["finished"] = now_iso8601();
  return out;
}

}  // namespace sdc
