#include "harness/results/brief_summary.hpp"

#include <fmt/format.h>

#include <map>

#include "harness/results/text_table.hpp"
#include "harness/results/clean_sets.hpp"
#include "foundation/scoring/proportions.hpp"

namespace sdc {
namespace {

struct counts {
  int64_t hits = 0, trials = 0;
  void add(int64_t x, int64_t n) { hits += x, trials += n; }
  std::string text() const {
    if (trials == 0) return "-";
    const auto ci = wilson_interval(hits, trials);
    return fmt::format("{:6.2f}% [{:.1f},{:.1f}] {}/{}", 100.0 * double(hits) / double(trials), 100 * ci.lo, 100 * ci.hi, hits, trials);
  }
};

}  // namespace

std::string brief_table(const result_set& r) {
  struct row {
    int cells = 0;
    counts detected, large, clean, located;
    double det_s = 0, kernel_s = 0;
  };
  std::map<std::string, row> rows;
  clean_pool sets;  // each clean set once per detector: n is the clean episodes that ran
  for (const auto& c : r.cells) {
    if (c.skipped) continue;
    auto& w = rows[c.detector.label];
    ++w.cells;
    if (c.faulty) {
      w.detected.add(c.faulty->detected.count, c.faulty->detected.trials);
      w.located.add(c.faulty->localization.count, c.faulty->localization.trials);
    }
    if (c.by_significance) w.large.add(c.by_significance->large.detected, c.by_significance->large.trials);
    if (c.clean && sets.first(c.clean_set, c.detector.label)) w.clean.add(c.clean->flagged.count, c.clean->flagged.trials);
  }
  for (const auto& t : r.timing) {
    auto it = rows.find(t.detector);
    if (it != rows.end()) it->second.det_s += t.detector_seconds, it->second.kernel_s += t.kernel_seconds;
  }
  text_table t;
  t.head = {"detector", "cells", "detected (95% CI) n", "on large faults", "false alarms (95% CI) n", "located right", "run time vs kernel*"};
  for (const auto& d : r.suite.detectors) {
    const auto it = rows.find(d.label);
    if (it == rows.end()) {
      t.rows.push_back({d.label, "0", "skipped in every cell"});
      continue;
    }
    const auto& w = it->second;
    t.rows.push_back({d.label, std::to_string(w.cells), w.detected.text(), w.large.text(), w.clean.text(), w.located.text(),
                      w.kernel_s > 0 ? fmt::format("{:.1f}%", 100 * w.det_s / w.kernel_s) : "-"});
  }
  std::string out = fmt::format("{} ({} scale, workload {}): {}\n", r.suite.name, r.suite.scale, r.suite.workload,
                                r.suite.description.value_or(""));
  return out + t.render() +
         "counts pooled over each detector's cells, a clean set its cells share once; * detector seconds (encoding and checks, encoding every trial as "
         "the campaign does; in training also the work the step did for it) / workload kernel seconds in this run, "
         "not the cost beside an optimized kernel: bench/ measures that\n" +
         throughput_line(r);
}

std::string throughput_line(const result_set& r) {
  const provenance_block& p = r.provenance;
  if (!p.rate) return "";
  const throughput& t = *p.rate;
  const double episodes = t.episodes, core_seconds = t.wall_seconds * t.cores;
  if (episodes <= 0 || core_seconds <= 0) return "";
  const bool training = r.suite.workload == "training";
  const std::string rate = training ? fmt::format("{:.0f} episodes per hour per core", 3600 * episodes / core_seconds)
                                    : fmt::format("{:.0f} trials per second per core", episodes / core_seconds);
  return fmt::format("throughput: {} ({} {} in {:.1f} s on {} cores, setup included; {})\n", rate, int64_t(t.episodes),
                     training ? "episodes" : "trials", t.wall_seconds, int64_t(t.cores), p.cpu.value_or("this machine"));
}

}  // namespace sdc
