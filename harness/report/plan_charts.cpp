// The goodput planner's Pareto charts (harness/plan/, METHODOLOGY "Goodput
// planner"): for a training set with outcome labels and timing, one chart per
// shipped fleet preset that publishes a rate, for the shipped example job
// suites/jobs/llm_pretraining_16k.json (the report takes no job of its own:
// `sdcbench plan --job` plans for yours). A point per set of checks, at its
// best action: the checks' cost per step against the harmful SDCs it misses
// per day, with the bootstrap's 95 % interval on the front.
#include <filesystem>
#include <set>
#include <fmt/format.h>

#include "foundation/io/data_files.hpp"
#include "harness/plan/plan_model.hpp"
#include "harness/report/chart_builders.hpp"

namespace sdc::report {

namespace {

bool plan_chart_applies(const result_set& r) {
  if (r.timing.empty()) return false;
  for (const auto& c : r.cells)
    if (c.by_label && c.faulty && c.faulty->detected.trials > 0) return true;
  return false;
}

}  // namespace

void plan_pareto_charts(const result_set& r, const std::string& id, std::vector<chart>& out) {
  if (!plan_chart_applies(r)) return;
  const auto job_file = data_file("suites/jobs/llm_pretraining_16k.json");
  if (!std::filesystem::exists(job_file)) return;
  const plan_job job = read_plan_job(job_file.string());
  const plan_table t = make_plan_table(r, id);
  for (const auto& fleet_file : fleet_preset_files()) {
    const plan_fleet fleet = read_plan_fleet(fleet_file);
    if (!fleet.rate) continue;  // no published rate: nothing to plan
    const auto ranked = rank_policies(t, job, fleet, plan_options{});
    // One point per set of checks: its best action (ranked is best first).
    std::vector<const plan_result*> best;
    std::set<std::vector<size_t>> seen;
    for (const auto& p : ranked)
      if (seen.insert(p.policy.checks).second) best.push_back(&p);
    json rows = json::array();
    for (const auto* p : best) {
      // On the front: no other set costs no more and misses no more, one of them strictly.
      bool front = true;
      for (const auto* q : best)
        front = front && !(q->point.overhead <= p->point.overhead && q->point.missed_harmful_per_day <= p->point.missed_harmful_per_day &&
                           (q->point.overhead < p->point.overhead || q->point.missed_harmful_per_day < p->point.missed_harmful_per_day));
      rows.push_back({{"policy", plan_policy_name(t, p->policy)}, {"cost", 100 * p->point.overhead},
                      {"missed", p->missed_harmful_per_day.value}, {"missed_lo", p->missed_harmful_per_day.lo},
                      {"missed_hi", p->missed_harmful_per_day.hi}, {"goodput", p->goodput.value},
                      {"goodput_lo", p->goodput.lo}, {"goodput_hi", p->goodput.hi},
                      {"bound", p->identified ? "exact" : "at most"}, {"front", front ? "Pareto front" : "dominated"}});
    }
    const std::string title = fmt::format("Which checks: cost against harmful SDCs missed ({})", fleet.name);
    json spec = frame(title, fmt::format("job {}: {} accelerators, {:.3g} SDC events per day", job.name, job.accelerators,
                                         24 * fleet.events_per_hour(job)));
    spec["data"] = {{"values", rows}};
    spec["width"] = 420, spec["height"] = 300;
    // symlog: the costs run from 0 to above 100 %, the front sits near 0.
    const json x = {{"field", "cost"}, {"type", "quantitative"}, {"scale", {{"type", "symlog"}, {"constant", 0.1}}},
                    {"axis", {{"values", {0, 0.1, 0.3, 1, 3, 10, 30, 100}}, {"format", ".3~g"}}},
                    {"title", "the checks' time per step in this harness (%, symlog scale)"}};
    const json y = {{"field", "missed"}, {"type", "quantitative"}, {"title", "harmful SDCs missed per day"}};
    const json color = {{"field", "front"}, {"type", "nominal"}, {"title", nullptr},
                        {"scale", {{"domain", {"Pareto front", "dominated"}}, {"range", {"#1565c0", "#cfd8dc"}}}}};
    spec["layer"] = json::array(
        {{{"transform", {{{"filter", "datum.front == 'Pareto front'"}}}},
          {"mark", {{"type", "rule"}, {"color", "#1565c0"}}},
          {"encoding", {{"x", x}, {"y", {{"field", "missed_lo"}, {"type", "quantitative"}}}, {"y2", {{"field", "missed_hi"}}}}}},
         {{"mark", {{"type", "point"}, {"filled", true}, {"size", 36}, {"tooltip", {{"content", "data"}}}}},
          {"encoding", {{"x", x}, {"y", y}, {"color", color}, {"order", {{"field", "front"}, {"sort", "descending"}}}}}}});
    out.push_back(make_chart(
        fmt::format("{}-plan-{}", id, fleet.name), title,
        fmt::format("sdcbench plan on this set for the example job suites/jobs/llm_pretraining_16k.json (illustrative, not "
                    "published) in the fleet preset {} (its rate: {}; its site and lifetime mix: {}). One point per set of up "
                    "to {} checks at its best alarm action: x its checks' cost per step as this harness timed them, y the "
                    "harmful SDCs (outcome labels spike_and_degrade, silent_degradation, gradual_drift, non_finite) it "
                    "misses per day, with the 95 % bootstrap interval over episodes on the Pareto front (blue). For two or "
                    "more checks the set's counts bound the missed events from above (tooltip: bound). METHODOLOGY "
                    "\"Goodput planner\" states the model; `sdcbench plan` prints the goodput ranking.",
                    fleet.name, fleet.rate_source, fleet.mix_source, job.max_checks),
        spec));
  }
}

}  // namespace sdc::report
