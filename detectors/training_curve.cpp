// A recorder, not a detector: the episode's training curves, so a result set
// holds them for clean and faulty episodes (their means per step over the
// cell's episodes: clean.loss_s03.mean, faulty.loss_s03.mean, ...). Per step s:
// loss_sNN (mean of the ranks' losses), loss_range_sNN (max - min over ranks,
// 002's loss range), grad_norm_sNN (mean of the ranks' gradient norms before
// the all-reduce) and grad_norm_range_sNN, and each rank's own loss
// loss_rankR_sNN (the report's per-rank loss curves). It sees every rank at once.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "detectors/training_detectors.hpp"

namespace sdc {
namespace {

class training_curve final : public episode_detector {
 public:
  void reset(const episode_context&) override { metrics_.clear(), step_ = 0; }
  nlohmann::json needs() const override { return nlohmann::json::object(); }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& ranks) override {
    std::vector<double> loss, norm;
    for (const auto* v : ranks) {
      const auto& s = view_cast<training_step>(*v, "training");
      double sq = 0;
      for (float g : s.grads) sq += double(g) * double(g);
      loss.push_back(s.loss), norm.push_back(std::sqrt(sq));
    }
    auto mean = [](const std::vector<double>& x) {
      double m = 0;
      for (double e : x) m += e / double(x.size());
      return m;
    };
    auto range = [](const std::vector<double>& x) { return *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end()); };
    const int64_t k = step_++;  // the episode's step (views carry the global one)
    metrics_.emplace_back(fmt::format("loss_s{:02d}", k), mean(loss));
    for (size_t r = 0; r < loss.size(); ++r) metrics_.emplace_back(fmt::format("loss_rank{}_s{:02d}", r, k), loss[r]);
    metrics_.emplace_back(fmt::format("loss_range_s{:02d}", k), range(loss));
    metrics_.emplace_back(fmt::format("grad_norm_s{:02d}", k), mean(norm));
    metrics_.emplace_back(fmt::format("grad_norm_range_s{:02d}", k), range(norm));
    verdict v;
    v.metrics = metrics_;  // the driver keeps the last step's: the whole curve
    return v;
  }

 private:
  std::vector<std::pair<std::string, double>> metrics_;
  int64_t step_ = 0;
};

SDCBENCH_REGISTER_DETECTOR({"training", "training_curve",
                            "records each step's mean loss, loss range, gradient norm and its range across ranks (never flags)",
                            {},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("training_curve sees every rank at once: use make_episode");
                            },
                            true,
                            {},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<episode_detector> {
                              return std::make_unique<training_curve>();
                            }});

}  // namespace
}  // namespace sdc
