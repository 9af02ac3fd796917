// Paired timing for overhead ratios on a shared, noisy machine: each benchmark
// iteration times every variant once, back to back, in an order shuffled anew
// each iteration (a fixed sequence of permutations, so runs are comparable),
// and the overhead is the median over iterations of the per-iteration ratio.
// A burst of load from another process then hits both sides of one ratio
// instead of one benchmark's whole run, and no variant always runs right
// after the same other one (a rotation would always put an A/A pair's second
// run after its first, in caches the first warmed). With warm_up::self each
// timed call comes right after an untimed call of the same variant, so it
// finds the caches and TLB as its own last call left them (a kernel run
// repeatedly, as a benchmark of that kernel alone times it), not as a random
// other variant did; warm_up::none times it in whatever the previous one
// left.
#pragma once
#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sdc::bench {

// A 95 % confidence interval for the median of the population x was drawn
// from, distribution-free: the order statistics x_(k) and x_(n+1-k) (1-based)
// for the largest k with P(Binomial(n, 1/2) < k) <= 0.025, which cover the
// median with probability >= 95 % whatever the distribution. NaNs (not
// computed) below 6 values, where even [min, max] covers less than 95 %. For
// timings it speaks for one run's iterations only: between runs on a shared
// machine a ratio moves by more (results/bench/vabft_overhead.txt).
inline std::pair<double, double> median_ci95(std::vector<double> x) {
  const size_t n = x.size();
  size_t k = 0;  // P(B < k + 1) = cdf(k)
  if (n > 0) {
    const boost::math::binomial_distribution<double> half(double(n), 0.5);
    while (k + 1 <= n / 2 && boost::math::cdf(half, double(k)) <= 0.025) ++k;
  }
  if (k == 0) return {std::nan(""), std::nan("")};
  std::sort(x.begin(), x.end());
  return {x[k - 1], x[n - k]};
}

// The state each variant is timed in: after whatever ran before it (none),
// or after an untimed call of itself (self).
enum class warm_up { none, self };

class paired_timer {
 public:
  void set_warm_up(warm_up w) { warm_ = w; }
  // Times each variant once (in the iteration's shuffled order), calling
  // `before` untimed ahead of each (e.g. a cache flush; with warm_up::self
  // the warm-up call comes after it).
  void measure(const std::vector<std::function<void()>>& variants, size_t iteration,
               const std::function<void()>& before = {}) {
    using clock = std::chrono::steady_clock;
    std::vector<size_t> order(variants.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    uint64_t state = 0x9E3779B97F4A7C15ull * (iteration + 1);  // splitmix64: Fisher-Yates draws
    auto next = [&state] {
      uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return z ^ (z >> 31);
    };
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[size_t(next() % i)]);
    std::vector<double> seconds(variants.size());
    for (size_t r = 0; r < variants.size(); ++r) {
      const size_t v = order[r];
      if (before) before();
      if (warm_ == warm_up::self) variants[v]();
      const auto t0 = clock::now();
      variants[v]();
      seconds[v] = std::chrono::duration<double>(clock::now() - t0).count();
    }
    record(seconds);
  }
  // One iteration's times, variant by variant (what measure records).
  void record(const std::vector<double>& seconds) {
    if (samples_.size() < seconds.size()) samples_.resize(seconds.size());
    for (size_t v = 0; v < seconds.size(); ++v) samples_[v].push_back(seconds[v]);
  }
  // Median seconds of variant v.
  double median(size_t v) const { return median_of(samples_.at(v)); }
  // Median over iterations of time(v) / time(base).
  double median_ratio(size_t v, size_t base) const {
    std::vector<double> r;
    for (size_t i = 0; i < samples_.at(v).size(); ++i) r.push_back(samples_[v][i] / samples_.at(base)[i]);
    return median_of(r);
  }
  // Median over iterations of time(v) / min(time(b) for b in bases): the
  // baseline is, in every iteration, the fastest of the plain configurations.
  double median_ratio_to_fastest(size_t v, const std::vector<size_t>& bases) const {
    return median_of(ratios_to_fastest(v, bases));
  }
  // How often each base was the fastest, as a share of iterations.
  double fastest_share(size_t base, const std::vector<size_t>& bases) const {
    size_t wins = 0;
    for (size_t i = 0; i < iterations(); ++i) {
      size_t best = bases.front();
      for (size_t b : bases) best = samples_.at(b)[i] < samples_.at(best)[i] ? b : best;
      wins += best == base;
    }
    return iterations() ? double(wins) / double(iterations()) : 0.0;
  }
  // The noise band of a ratio: the 5th and 95th percentiles over iterations of
  // time(a) / time(b). For two runs of the same code (an A/A pair) it is the
  // spread that any overhead measured here carries.
  std::pair<double, double> ratio_band(size_t a, size_t b) const {
    std::vector<double> r = ratios_to_fastest(a, {b});
    if (r.empty()) return {0, 0};
    std::sort(r.begin(), r.end());
    auto at = [&](double q) { return r[size_t(q * double(r.size() - 1) + 0.5)]; };
    return {at(0.05), at(0.95)};
  }
  // median_ci95 of the per-iteration ratios time(v) / the fastest of `bases`.
  std::pair<double, double> median_ci_to_fastest(size_t v, const std::vector<size_t>& bases) const {
    return median_ci95(ratios_to_fastest(v, bases));
  }
  // v over each of `bases` on its own (per-iteration ratios, as median_ratio),
  // the base with the largest median, with its 95 % interval: v against the
  // fastest base, free of the bias of a per-iteration minimum (the least of
  // several noisy times is below each one's typical time; min_bias measures it).
  struct ratio_interval {
    double median, lo, hi;
    size_t base;
  };
  ratio_interval largest_ratio(size_t v, const std::vector<size_t>& bases) const {
    ratio_interval out{0, 0, 0, bases.front()};
    for (size_t b : bases) {
      const std::vector<double> r = ratios_to_fastest(v, {b});
      const double med = median_of(r);
      if (b != bases.front() && med <= out.median) continue;
      const auto [lo, hi] = median_ci95(r);
      out = {med, lo, hi, b};
    }
    return out;
  }
  // The bias of a per-iteration minimum, shown on an A/A pair (a and twin: the
  // same code timed twice): v over the faster of the two in each iteration,
  // over v against a alone, minus 1. Zero for a baseline without noise.
  double min_bias(size_t v, size_t a, size_t twin) const {
    return median_ratio_to_fastest(v, {a, twin}) / median_ratio(v, a) - 1;
  }
  size_t iterations() const { return samples_.empty() ? 0 : samples_[0].size(); }
  // Median over iterations of (time(a) - time(b)) / time(base): what a costs
  // beyond b (a protected GEMM beyond the plain one), as a share of base.
  double median_excess_ratio(size_t a, size_t b, size_t base) const {
    std::vector<double> r;
    for (size_t i = 0; i < iterations(); ++i) r.push_back((samples_.at(a)[i] - samples_.at(b)[i]) / samples_.at(base)[i]);
    return median_of(r);
  }
  // Median over iterations of the fastest of `bases` in that iteration (seconds).
  double median_fastest(const std::vector<size_t>& bases) const {
    std::vector<double> t;
    for (size_t i = 0; i < iterations(); ++i) {
      double m = samples_.at(bases.front())[i];
      for (size_t b : bases) m = std::min(m, samples_.at(b)[i]);
      t.push_back(m);
    }
    return median_of(t);
  }

 private:
  std::vector<double> ratios_to_fastest(size_t v, const std::vector<size_t>& bases) const {
    std::vector<double> r;
    for (size_t i = 0; i < samples_.at(v).size(); ++i) {
      double t = samples_.at(bases.front())[i];
      for (size_t b : bases) t = std::min(t, samples_.at(b)[i]);
      r.push_back(samples_[v][i] / t);
    }
    return r;
  }
  static double median_of(std::vector<double> x) {
    if (x.empty()) return 0;
    std::sort(x.begin(), x.end());
    const size_t n = x.size();
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
  }
  std::vector<std::vector<double>> samples_;
  warm_up warm_ = warm_up::none;
};

}  // namespace sdc::bench
