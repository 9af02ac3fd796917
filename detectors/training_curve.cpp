// A recorder, not a detector: the episode's training curves, so a result set
// holds them for clean and faulty episodes (their median, mean and max per
// step over the cell's episodes, as series over the step). Per step: loss
// (mean of the ranks' losses), loss_range (max - min over ranks, 002's loss
// range), grad_norm (mean of the ranks' gradient norms before the all-reduce)
// and grad_norm_range, and each rank's own loss (series `loss` of that rank:
// the report's per-rank loss curves). It sees every rank at once.
#include <algorithm>
#include <cmath>

#include "detectors/training_detectors.hpp"

namespace sdc {
namespace {

class training_curve final : public episode_detector {
 public:
  void reset(const episode_context&) override { series_.clear(), step_ = 0; }
  detector_needs needs() const override { return {}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& ranks) override {
    std::vector<double> loss, norm;
    for (const auto* v : ranks) {
      const auto& s = view_cast<training_step>(*v, view_kind::training);
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
    const int32_t k = step_++;  // the episode's step (views carry the global one)
    auto add = [&](const char* name, double v, int32_t rank) { series_.push_back({name, series_axis::step, k, rank, v}); };
    add("loss", mean(loss), -1);
    for (size_t r = 0; r < loss.size(); ++r) add("loss", loss[r], int32_t(r));
    add("loss_range", range(loss), -1);
    add("grad_norm", mean(norm), -1);
    add("grad_norm_range", range(norm), -1);
    verdict v;
    v.series = series_;  // the driver keeps the last step's: the whole curve
    return v;
  }

 private:
  series_list series_;
  int32_t step_ = 0;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "training_curve",
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
