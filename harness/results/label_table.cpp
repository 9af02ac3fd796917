#include "harness/results/label_table.hpp"

#include <fmt/format.h>

#include <set>

#include "harness/results/report.hpp"
#include "harness/results/text_table.hpp"

namespace sdc {

std::string label_table(const nlohmann::json& r) {
  static const char* labels[] = {"masked", "spike_and_recover", "spike_and_degrade", "silent_degradation", "gradual_drift", "non_finite"};
  const auto axes = varying_axes(r);
  text_table t;
  t.head = axes;
  t.head.push_back("detector");
  for (const char* l : labels) t.head.push_back(l);
  std::set<int64_t> counted;
  for (const auto& c : r["cells"]) {
    if (!c.contains("by_label")) continue;
    std::vector<std::string> row;
    for (const auto& a : axes) row.push_back(c["axes"].value(a, std::string("-")));
    if (counted.insert(c["cell"].get<int64_t>()).second) {  // the cell's label counts, once
      auto head = row;
      head.push_back("(faulty episodes)");
      for (const char* l : labels) head.push_back(std::to_string(c["by_label"][l]["trials"].get<int64_t>()));
      t.rows.push_back(head);
    }
    row.push_back(c["detector"]["label"]);
    for (const char* l : labels) {
      const auto& b = c["by_label"][l];
      const int64_t n = b["trials"], d = b["detected"];
      row.push_back(n == 0 ? "-" : b["latency_p50"].is_null() ? fmt::format("{}/{}", d, n)
                                                               : fmt::format("{}/{} @{}", d, n, b["latency_p50"].get<int64_t>()));
    }
    t.rows.push_back(row);
  }
  if (t.rows.empty()) return {};
  return "\nOutcome labels: faulty episodes per label; per detector detected/with the label @ median latency in steps "
         "(Wilson intervals in the set's by_label)\n" + t.render();
}

}  // namespace sdc
