#include "harness/campaign/label_summary.hpp"

#include <algorithm>
#include <cmath>

#include "harness/campaign/cell_summary.hpp"

namespace sdc {

bool has_labels(const std::vector<episode_result>& results, int64_t nf) {
  for (int64_t t = 0; t < nf; ++t)
    if (!results[size_t(t)].skipped && results[size_t(t)].truth.label) return true;
  return false;
}

nlohmann::json by_label_json(const std::vector<episode_result>& results, int64_t nf, size_t d) {
  int64_t n[k_trajectory_label_count] = {}, hits[k_trajectory_label_count] = {};
  std::vector<double> lat[k_trajectory_label_count];
  for (int64_t t = 0; t < nf; ++t) {
    const auto& r = results[size_t(t)];
    if (r.skipped || !r.truth.label) continue;
    const int l = int(*r.truth.label);
    const auto& e = r.detectors[d];
    const bool hit = is_detection(e.result);
    ++n[l], hits[l] += hit;
    if (hit) lat[l].push_back(double(e.latency));
  }
  nlohmann::json out = nlohmann::json::object();
  for (int l = 0; l < k_trajectory_label_count; ++l) {
    nlohmann::json b = rate_block(hits[l], n[l], "detected");
    auto& v = lat[l];
    std::sort(v.begin(), v.end());
    // the median detection's latency (nearest rank), null without detections
    b["latency_p50"] = v.empty() ? nlohmann::json(nullptr) : nlohmann::json(int64_t(v[(v.size() + 1) / 2 - 1]));
    out[trajectory_label_name(trajectory_label(l))] = b;
  }
  return out;
}

}  // namespace sdc
