#include "workloads/training/outcome_labels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sdc::train {
double nearest_rank(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(std::ceil(q * double(v.size()))) - 1)];
}

namespace {

// x / band, where a zero band makes any positive excess infinitely large.
double in_bands(double x, double band) {
  if (band > 0) return x / band;
  return x > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// Per step k: the 99th percentile of |a_i - a_j| over pairs i < j and steps
// within k_band_neighbours of k.
std::vector<double> band_per_step(const std::vector<std::vector<double>>& runs) {
  const int64_t h = int64_t(runs.front().size());
  std::vector<double> out(static_cast<size_t>(h));
  for (int64_t k = 0; k < h; ++k) {
    std::vector<double> d;
    for (int64_t s = std::max<int64_t>(0, k - k_band_neighbours); s <= std::min(h - 1, k + k_band_neighbours); ++s)
      for (size_t i = 0; i < runs.size(); ++i)
        for (size_t j = i + 1; j < runs.size(); ++j) d.push_back(std::fabs(runs[i][size_t(s)] - runs[j][size_t(s)]));
    out[size_t(k)] = nearest_rank(d, 0.99);
  }
  return out;
}

}  // namespace

std::vector<double> smoothed(const std::vector<double>& loss, int64_t window) {
  std::vector<double> out(loss.size());
  double sum = 0;
  for (size_t t = 0; t < loss.size(); ++t) {
    sum += loss[t];
    if (t >= size_t(window)) sum -= loss[t - size_t(window)];
    out[t] = sum / double(std::min<size_t>(t + 1, size_t(window)));
  }
  return out;
}

loss_bands bands_of(const std::vector<std::vector<double>>& runs, const std::vector<double>& val) {
  if (runs.size() < 2 || runs.size() != val.size() || runs.front().empty())
    throw std::invalid_argument("bands_of: at least two runs of at least one step, each with its validation loss");
  for (const auto& r : runs)
    if (r.size() != runs.front().size()) throw std::invalid_argument("bands_of: runs of different lengths");
  loss_bands b;
  b.raw = band_per_step(runs);
  std::vector<std::vector<double>> sm;
  for (const auto& r : runs) sm.push_back(smoothed(r));
  b.smooth = band_per_step(sm);
  std::vector<double> dv;
  for (size_t i = 0; i < val.size(); ++i)
    for (size_t j = i + 1; j < val.size(); ++j) dv.push_back(std::fabs(val[i] - val[j]));
  b.val = nearest_rank(dv, 0.99);
  b.pairs = int64_t(dv.size());
  return b;
}

labelled label_of(const std::vector<double>& faulty, const std::vector<double>& twin, double val_faulty, double val_twin,
                  bool finite, const loss_bands& b) {
  if (faulty.size() != twin.size() || faulty.empty() || faulty.size() > b.raw.size())
    throw std::invalid_argument("label_of: faulty and twin trajectories of one length, at most the bands'");
  labelled out;
  const size_t h = faulty.size();
  for (size_t k = 0; k < h; ++k) {
    out.excess.push_back(faulty[k] - twin[k]);
    finite &= std::isfinite(faulty[k]);
  }
  finite &= std::isfinite(val_faulty);
  if (!finite) {
    out.label = trajectory_label::non_finite;
    out.spike_peak = out.end_excess = out.val_excess = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  out.spike_peak = -std::numeric_limits<double>::infinity();
  // A spike is sudden: the excess is above the band and rose by more than the
  // band since the step before (before the first firing it is 0), so a slow
  // drift that leaves the band is not one.
  for (size_t k = 0; k < h; ++k) {
    const double rise = out.excess[k] - (k > 0 ? out.excess[k - 1] : 0.0);
    out.spike_peak = std::max(out.spike_peak, in_bands(std::min(out.excess[k], rise), b.raw[k]));
  }
  const auto sf = smoothed(faulty), st = smoothed(twin);
  out.end_excess = in_bands(sf.back() - st.back(), b.smooth[h - 1]);
  out.val_excess = in_bands(val_faulty - val_twin, b.val);
  const bool spike = out.spike_peak > 1, train_worse = out.end_excess > 1, val_worse = out.val_excess > 1;
  if (spike) out.label = train_worse || val_worse ? trajectory_label::spike_and_degrade : trajectory_label::spike_and_recover;
  else if (train_worse) out.label = trajectory_label::gradual_drift;
  else if (val_worse) out.label = trajectory_label::silent_degradation;
  else out.label = trajectory_label::masked;
  return out;
}

}  // namespace sdc::train
