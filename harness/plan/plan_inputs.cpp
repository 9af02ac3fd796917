#include "harness/plan/plan_inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "foundation/errors.hpp"
#include "foundation/io/data_files.hpp"
#include "foundation/io/input_schemas.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/json_schema.hpp"

namespace sdc {

using json = nlohmann::json;

const char* plan_action_name(plan_action a) {
  switch (a) {
    case plan_action::rerun: return "rerun";
    case plan_action::rollback: return "rollback";
    case plan_action::evict: return "evict";
  }
  return "?";
}

namespace {

plan_action plan_action_of(const std::string& s) {
  if (s == "rerun") return plan_action::rerun;
  if (s == "rollback") return plan_action::rollback;
  return plan_action::evict;  // the schema admits only these three
}

plan_weights plan_weights_of(const json& j) {
  if (j.is_null()) return std::nullopt;
  std::map<std::string, double> w;
  for (const auto& [k, v] : j.items()) w[k] = v.get<double>();
  return w;
}

}  // namespace

double plan_fleet::events_per_hour(const plan_job& job) const {
  if (!rate) throw input_error(file, "/rate/value", "a published rate; this fleet has none (" + rate_source + "): write one in a copy of the file");
  return per_accelerator ? *rate * double(job.accelerators) : *rate;
}

plan_job read_plan_job(const std::string& file) {
  static const json_schema schema(json::parse(job_schema_text()));
  const json j = read_json_file(file);
  schema.check(j, file);
  plan_job job;
  job.name = j.value("name", std::filesystem::path(file).stem().string());
  job.accelerators = j["accelerators"];
  job.step_seconds = j["step_seconds"];
  job.checkpoint_interval_hours = j["checkpoint_interval_hours"];
  job.checkpoint_seconds = j["checkpoint_seconds"];
  job.restart_seconds = j["restart_seconds"];
  job.evict_seconds = j["evict_seconds"];
  job.undetected_notice_hours = j["undetected_notice_hours"];
  job.measured_ranks = j["measured_ranks"];
  job.max_checks = j.value("max_checks", job.max_checks);
  if (j.contains("actions")) {
    job.actions.clear();
    for (const auto& a : j["actions"]) job.actions.push_back(plan_action_of(a.get<std::string>()));
  }
  if (job.checkpoint_seconds >= job.checkpoint_interval_hours * 3600)
    throw input_error(file, "/checkpoint_seconds", "less than checkpoint_interval_hours (in seconds): the job would only checkpoint");
  return job;
}

plan_fleet read_plan_fleet(const std::string& file) {
  static const json_schema schema(json::parse(fleet_schema_text()));
  const json j = read_json_file(file);
  schema.check(j, file);
  plan_fleet f;
  f.name = j["name"];
  f.file = file;
  f.per_accelerator = j["rate"]["per"] == "accelerator_hour";
  if (!j["rate"]["value"].is_null()) f.rate = j["rate"]["value"].get<double>();
  f.rate_source = j["rate"]["source"];
  f.mix_source = j["mix"]["source"];
  f.site = plan_weights_of(j["mix"]["site"]);
  f.lifetime = plan_weights_of(j["mix"]["lifetime"]);
  for (const char* axis : {"site", "lifetime"}) {
    const auto& w = std::string(axis) == "site" ? f.site : f.lifetime;
    if (!w) continue;
    double total = 0;
    for (const auto& [k, v] : *w) total += v;
    if (!(total > 0)) throw input_error(file, std::string("/mix/") + axis, "weights with a positive sum, or null (uniform)");
  }
  return f;
}

std::vector<std::string> fleet_preset_files() {
  std::vector<std::string> out;
  const auto dir = data_file("suites/fleets");
  if (!std::filesystem::is_directory(dir)) throw input_error(dir.string(), "fleets", "the shipped fleet presets (suites/fleets/)");
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sdc
