#include "harness/campaign/clean_sets.hpp"

#include <string>

namespace sdc {

std::vector<size_t> clean_set_plan::sharers(size_t cell) const {
  std::vector<size_t> out;
  for (const auto& [n, o] : owner)
    if (o == cell && n != cell) out.push_back(n);
  return out;
}

clean_set_plan plan_clean_sets(const expansion& ex, const std::vector<size_t>& todo) {
  clean_set_plan p;
  std::map<std::string, size_t> first;
  for (size_t n : todo) {
    if (ex.skipped[n] || ex.cells[n].clean_set.empty()) continue;
    p.owner[n] = first.emplace(ex.cells[n].clean_set, n).first->second;
  }
  return p;
}

void share_clean(const std::vector<episode_result>& from, int64_t faulty_trials, std::vector<episode_result>& to) {
  for (size_t t = size_t(faulty_trials); t < from.size(); ++t) {
    to[t] = from[t];
    to[t].shared = true;
  }
}

}  // namespace sdc
