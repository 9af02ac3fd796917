#include "harness/cli/plan_command.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "foundation/errors.hpp"
#include "foundation/io/data_files.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/plan/plan_model.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {

namespace {

struct plan_cli_options {
  std::vector<std::string> sets, fleets;
  std::string job, out;
  int top = 10;
  plan_options model;
};

// A fleet a user names: a file, or a preset's name (suites/fleets/NAME.json).
std::string plan_fleet_path(const std::string& name) {
  if (std::filesystem::exists(name)) return name;
  const auto preset = data_file("suites/fleets/" + name + ".json");
  if (std::filesystem::exists(preset)) return preset.string();
  throw input_error("--fleet", name, "a fleet file, or a preset of suites/fleets/ (sdcbench list fleets)");
}

nlohmann::json plan_figure_json(const plan_figure& f) { return {{"value", f.value}, {"ci95", {f.lo, f.hi}}}; }

std::string plan_fmt_figure(const plan_figure& f, const char* spec) {
  return fmt::format(fmt::runtime(std::string("{:") + spec + "} [{:" + spec + "}, {:" + spec + "}]"), f.value, f.lo, f.hi);
}

nlohmann::json plan_one(const plan_table& t, const plan_job& job, const plan_fleet& fleet, const plan_cli_options& o) {
  const auto ranked = rank_policies(t, job, fleet, o.model);
  const double lambda = fleet.events_per_hour(job);
  std::cout << fmt::format("\n{}: job {} ({} accelerators, step {} s, checkpoint every {} h), fleet {}\n", t.file, job.name,
                           job.accelerators, job.step_seconds, job.checkpoint_interval_hours, fleet.name);
  std::cout << fmt::format("  SDC rate {:.3g} per {} ({}): {:.3g} events per day for this job\n", *fleet.rate,
                           fleet.per_accelerator ? "accelerator-hour" : "job-hour", fleet.rate_source, 24 * lambda);
  std::cout << fmt::format("  mix: {}\n", fleet.mix_source);
  std::vector<std::string> missing;
  plan_cell_weights(t, fleet, &missing);
  for (const auto& m : missing) std::cout << fmt::format("  mix: the set ran no faulty episode of {}: its weight goes to the rest\n", m);
  const plan_result* none = nullptr;
  for (const auto& r : ranked)
    if (r.policy.checks.empty() && !none) none = &r;
  if (none)
    std::cout << fmt::format("  no checks: goodput {}, harmful SDCs missed per day {}\n", plan_fmt_figure(none->goodput, ".6f"),
                             plan_fmt_figure(none->missed_harmful_per_day, ".3g"));
  std::cout << fmt::format("  {:>4}   {:<34} {:<28} {:<24} {:>8}  {}\n", "rank", "goodput [95 % CI]", "missed harmful/day [CI]",
                           "false alarms/day [CI]", "cost", "policy");
  const plan_figure best = ranked.front().goodput, best_measured = ranked.front().goodput_at_measured_alarms;
  nlohmann::json policies = nlohmann::json::array();
  for (size_t i = 0; i < ranked.size(); ++i) {
    const auto& r = ranked[i];
    // "~": its interval overlaps the best's, so the intervals cannot order the two.
    const bool undecided = i > 0 && r.goodput.hi >= best.lo;
    // "=": even at the measured false-alarm rate (the bootstrap alone) the intervals overlap.
    const bool undecided_at_measured = i > 0 && r.goodput_at_measured_alarms.hi >= best_measured.lo;
    if (int(i) < o.top)
      std::cout << fmt::format("  {:>4}{}{} {:<34} {:<28} {:<24} {:>7.3f}%  {}{}\n", i + 1, undecided ? "~" : " ",
                               undecided_at_measured ? "=" : " ",
                               plan_fmt_figure(r.goodput, ".6f"), plan_fmt_figure(r.missed_harmful_per_day, ".3g"),
                               plan_fmt_figure(r.false_alarms_per_day, ".3g"), 100 * r.point.overhead, plan_policy_name(t, r.policy),
                               r.identified ? "" : fmt::format(" (missed: at most; at least {:.3g})", r.point.missed_harmful_per_day_fewest));
    nlohmann::json checks = nlohmann::json::array();
    for (size_t k : r.policy.checks) checks.push_back(t.checks[k].label);
    policies.push_back({{"rank", i + 1}, {"checks", checks}, {"action", r.policy.checks.empty() ? nlohmann::json(nullptr) : nlohmann::json(plan_action_name(r.policy.action))},
                        {"goodput", plan_figure_json(r.goodput)}, {"goodput_at_measured_alarms", plan_figure_json(r.goodput_at_measured_alarms)}, {"missed_harmful_per_day", plan_figure_json(r.missed_harmful_per_day)},
                        {"false_alarms_per_day", plan_figure_json(r.false_alarms_per_day)},
                        {"missed_harmful_per_day_fewest", r.point.missed_harmful_per_day_fewest}, {"overhead", r.point.overhead},
                        {"detected_per_day", r.point.detected_per_day}, {"identified", r.identified},
                        {"undecided_against_best", undecided}, {"undecided_at_measured_alarms", undecided_at_measured}});
  }
  std::cout << "  ~: its goodput interval overlaps the best's; =: so does its interval at the measured false-alarm rate (the\n"
               "  bootstrap alone, without the false alarms' Wilson interval). cost: the checks' time per step in this harness.\n";
  return {{"set", portable_path(t.file)},
          {"job", job.name},
          {"fleet", {{"name", fleet.name}, {"file", portable_path(fleet.file)}, {"rate", *fleet.rate},
                     {"per", fleet.per_accelerator ? "accelerator_hour" : "job_hour"}, {"rate_source", fleet.rate_source},
                     {"mix_source", fleet.mix_source}}},
          {"events_per_day", 24 * lambda},
          {"replicates", o.model.replicates},
          {"seed", o.model.seed},
          {"policies", policies}};
}

int run_plan(const plan_cli_options& o) {
  const plan_job job = read_plan_job(o.job);
  std::vector<plan_fleet> fleets;
  if (o.fleets.empty())
    for (const auto& f : fleet_preset_files()) fleets.push_back(read_plan_fleet(f));
  else
    for (const auto& f : o.fleets) fleets.push_back(read_plan_fleet(plan_fleet_path(f)));
  nlohmann::json runs = nlohmann::json::array(), skipped = nlohmann::json::array();
  for (const auto& file : o.sets) {
    const plan_table t = make_plan_table(load_result_set(file), file);
    for (const auto& f : fleets) {
      if (!f.rate) {  // no run, and --out says so: a skipped fleet is not silently absent
        const std::string why = fmt::format("no rate per hour is published ({})", f.rate_source);
        std::cout << fmt::format("\n{}: fleet {}: {}; skipped\n", file, f.name, why);
        skipped.push_back({{"set", portable_path(file)}, {"fleet", f.name}, {"reason", why}});
        continue;
      }
      runs.push_back(plan_one(t, job, f, o));
    }
  }
  if (!o.out.empty()) write_json_atomic(o.out, {{"schema", "sdcbench.plan/1"}, {"runs", runs}, {"skipped", skipped}});
  return 0;
}

}  // namespace

subcommand add_plan_subcommand(CLI::App& app) {
  auto o = std::make_shared<plan_cli_options>();
  auto* c = app.add_subcommand("plan", "rank the checks, periods and alarm actions a training result set allows by expected goodput");
  c->add_option("results", o->sets, "training result JSON files")->required();
  c->add_option("--job", o->job, "job JSON (suites/schema/job-1.schema.json)")->required();
  c->add_option("--fleet", o->fleets, "fleet JSON or preset name (suites/fleets/); default: every preset")->take_all();
  c->add_option("--top", o->top, "policies printed per fleet")->check(CLI::NonNegativeNumber);
  c->add_option("--replicates", o->model.replicates, "bootstrap replicates")->check(CLI::PositiveNumber);
  c->add_option("--seed", o->model.seed, "bootstrap seed");
  c->add_option("--out", o->out, "every policy of every run as JSON (sdcbench.plan/1)");
  return {c, [o] { return run_plan(*o); }};
}

}  // namespace sdc
