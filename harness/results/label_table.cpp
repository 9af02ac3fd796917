#include "harness/results/label_table.hpp"

#include <fmt/format.h>

#include <set>

#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

namespace sdc {

std::string label_table(const result_set& r) {
  const auto axes = varying_axes(r);
  text_table t;
  t.head = axes;
  t.head.push_back("detector");
  for (const char* l : k_outcome_labels) t.head.push_back(l);
  std::set<int64_t> counted;
  for (const auto& c : r.cells) {
    if (!c.by_label) continue;
    const auto& labels = *c.by_label;
    std::vector<std::string> row;
    for (const auto& a : axes) row.push_back(axis_text(c, a));
    if (counted.insert(c.cell).second) {  // the cell's label counts, once
      auto head = row;
      head.push_back("(faulty episodes)");
      for (const char* l : k_outcome_labels) head.push_back(std::to_string(labels.at(l).trials));
      t.rows.push_back(head);
    }
    row.push_back(c.detector.label);
    for (const char* l : k_outcome_labels) {
      const label_count& b = labels.at(l);
      row.push_back(b.trials == 0 ? "-" : !b.latency_p50 ? fmt::format("{}/{}", b.detected, b.trials)
                                                        : fmt::format("{}/{} @{}", b.detected, b.trials, *b.latency_p50));
    }
    t.rows.push_back(row);
  }
  if (t.rows.empty()) return {};
  return "\nOutcome labels: faulty episodes per label; per detector detected/with the label @ median latency in steps "
         "(Wilson intervals in the set's by_label)\n" + t.render();
}

}  // namespace sdc
