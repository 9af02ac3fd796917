// Spikes of the logged training curves, as a framework watches them:
// OLMo-core's StabilityMonitorCallback (src/olmo_core/train/callbacks/
// stability_monitor.py, _is_spike and pre_log_metrics). For the training loss
// and the global gradient norm, each in turn: once `window_size` values are
// held, a value is a spike when it exceeds mean + threshold_std x std of them
// (population std; no spike while std < 1e-10), and then joins the window
// (the oldest leaves), spike or not. A NaN exceeds nothing, so it is no
// spike, and once in the window it makes every later comparison false: the
// callback goes blind; the NaN checks are other detectors' job.
//
// The loss it reads is the mean of the ranks' losses (the logged global-batch
// loss); the gradient norm is the one a framework logs, rank `log_rank`'s
// norm of the reduced gradient its optimizer steps with (its own copy; under
// the distributed optimizer, assembled from the shards' owners:
// training_step::reduced_grad_norm).
// A global curve names no rank. What a spike does is ours: the original
// (at OLMo-core fa6c5014) logs it at debug level and records the metrics
// spike/SpikeScore (spikes per 10000 steps) and spike/SpikeScore (total),
// and raises nothing; here a spike flags the step, a detection, so that the
// rule can be scored beside the checks that act (every report names it
// "alarm ours"). Defaults are the original's: 128 values, 6
// standard deviations. The original's window is checkpointed with the
// trainer; ours is emptied at each episode and refilled from the episode's
// history (the run up to the fork), so with 128 or more steps of history
// the episode starts with a full window, as a restart does. Score = the larger of (value - mean) / (threshold_std
// x std) over the two curves; a curve has none (not_computed) before its
// window is full or while its std < 1e-10 (the original compares nothing
// then), and NaN once a NaN is in its window.
#include <cmath>
#include <deque>

#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

class spike_window {
 public:
  explicit spike_window(size_t size) : size_(size) {}
  // Whether v is a spike against the window (and its score), then v joins it.
  std::pair<bool, double> see(double v, double k) {
    std::pair<bool, double> out{false, not_computed};
    if (values_.size() >= size_) {
      double mean = 0, var = 0;
      for (double x : values_) mean += x;
      mean /= double(values_.size());
      for (double x : values_) var += (x - mean) * (x - mean);
      const double sd = std::sqrt(var / double(values_.size()));
      if (sd >= 1e-10) out = {v > mean + k * sd, (v - mean) / (k * sd)};
      else if (std::isnan(sd)) out.second = NAN;  // a NaN in the window: no spike, a NaN score
    }
    values_.push_back(v);
    if (values_.size() > size_) values_.pop_front();
    return out;
  }

 private:
  size_t size_;
  std::deque<double> values_;
};

class stability_monitor final : public episode_detector {
 public:
  stability_monitor(int64_t window, double k, int log_rank) : window_(size_t(window)), k_(k), log_rank_(log_rank) {}
  void reset(const episode_context&) override { loss_ = spike_window(window_), norm_ = spike_window(window_); }
  detector_needs needs() const override { return {}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    double loss = 0;
    for (const auto* v : views) loss += view_cast<training_step>(*v, view_kind::training).loss / double(views.size());
    const int r = log_rank_ < int(views.size()) ? log_rank_ : 0;
    const double norm = view_cast<training_step>(*views[size_t(r)], view_kind::training).reduced_grad_norm;
    const auto [loss_spike, loss_score] = loss_.see(loss, k_);
    const auto [norm_spike, norm_score] = norm_.see(norm, k_);
    verdict v;
    v.flagged = loss_spike || norm_spike;
    v.score = higher_score(loss_score, norm_score);  // NaN over any number, any number over not computed
    v.metrics = {{"loss_spike", double(loss_spike)}, {"grad_norm_spike", double(norm_spike)}};
    return v;
  }

 private:
  size_t window_;
  double k_;
  int log_rank_;
  spike_window loss_{1}, norm_{1};
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "stability_monitor",
                            "OLMo-core's StabilityMonitorCallback rule, alarm ours (the original records a spike rate and raises "
                            "nothing): the mean loss or the logged global grad norm above mean + threshold_std x std of its last "
                            "window_size values (names no rank)",
                            {{"window_size", param_spec::type::integer, 128, "values the mean and std are taken over (OLMo-core: 128)", {}},
                             {"threshold_std", param_spec::type::number, 6.0, "standard deviations above the mean (OLMo-core: 6)", {}},
                             {"log_rank", param_spec::type::integer, 0, "the rank whose grad norm is logged", {}}},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("stability_monitor sees every rank at once: use make_episode");
                            },
                            false,
                            {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              if (p.integer("window_size") < 2 || !(p.number("threshold_std") > 0) || p.integer("log_rank") < 0)
                                throw value_error("stability_monitor: expected window_size >= 2, threshold_std > 0, log_rank >= 0");
                              return std::make_unique<stability_monitor>(p.integer("window_size"), p.number("threshold_std"),
                                                                         int(p.integer("log_rank")));
                            }});

}  // namespace
}  // namespace sdc
