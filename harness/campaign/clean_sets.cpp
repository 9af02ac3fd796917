#include "harness/campaign/clean_sets.hpp"

#include <string>

namespace sdc {

clean_set_plan plan_clean_sets(const expansion& ex, const std::vector<size_t>& todo) {
  clean_set_plan p;
  std::map<std::string, size_t> first;
  for (size_t n : todo) {
    if (ex.skipped[n] || ex.cells[n].clean_set.empty()) continue;
    const size_t o = first.emplace(ex.cells[n].clean_set, n).first->second;
    p.owner[n] = o;
    if (o != n) p.sharers_of[o].push_back(n);
  }
  return p;
}

void share_clean(const std::vector<episode_result>& clean, int64_t faulty_trials, std::vector<episode_result>& to) {
  for (size_t i = 0; i < clean.size(); ++i) {
    to[size_t(faulty_trials) + i] = clean[i];
    to[size_t(faulty_trials) + i].shared = true;
  }
}

}  // namespace sdc
