// Paired timing for overhead ratios on a shared, noisy machine: each benchmark
// iteration times every variant once, back to back, in an order that rotates
// from one iteration to the next, and the overhead is the median over
// iterations of the per-iteration ratio. A burst of load from another process
// then hits both sides of one ratio instead of one benchmark's whole run.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sdc::bench {

class paired_timer {
 public:
  // Times each variant once (rotating the order by `iteration`), calling
  // `before` untimed ahead of each (e.g. a cache flush).
  void measure(const std::vector<std::function<void()>>& variants, size_t iteration,
               const std::function<void()>& before = {}) {
    using clock = std::chrono::steady_clock;
    if (samples_.size() < variants.size()) samples_.resize(variants.size());
    for (size_t r = 0; r < variants.size(); ++r) {
      const size_t v = (r + iteration) % variants.size();
      if (before) before();
      const auto t0 = clock::now();
      variants[v]();
      samples_[v].push_back(std::chrono::duration<double>(clock::now() - t0).count());
    }
  }
  // Median seconds of variant v.
  double median(size_t v) const { return median_of(samples_.at(v)); }
  // Median over iterations of time(v) / time(base).
  double median_ratio(size_t v, size_t base) const {
    std::vector<double> r;
    for (size_t i = 0; i < samples_.at(v).size(); ++i) r.push_back(samples_[v][i] / samples_.at(base)[i]);
    return median_of(r);
  }
  size_t iterations() const { return samples_.empty() ? 0 : samples_[0].size(); }

 private:
  static double median_of(std::vector<double> x) {
    if (x.empty()) return 0;
    std::sort(x.begin(), x.end());
    const size_t n = x.size();
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  }
  std::vector<std::vector<double>> samples_;
};

}  // namespace sdc::bench
