// Cost of the multimodality tests of 000 (Appendix A, Table 2's complexity
// column) at n = 10^2 .. 10^6: the folding test (O(n)), Algorithm 1 (folding +
// W1 at the pivot: O(n log n), the sort), the robust z-score (O(n),
// selection), Hartigan's dip with its table p-value (O(n log n), the sort),
// Silverman's test with B = 100 bootstrap samples (the paper: O(n^2 + Bn) for
// exact KDE sums; ours bins, so O(B (n + grid))) and the UU-test (sort, then
// KS tests over segments). Data: N(0,1) with 10 % shifted by 6. The fitted growth exponent
// is the least-squares slope of log(time) on log(n) over the measured sizes,
// from this run's times.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "detectors/gradient/stats/dip.hpp"
#include "detectors/gradient/stats/silverman.hpp"
#include "detectors/gradient/stats/unimodality.hpp"
#include "detectors/gradient/stats/uu_test.hpp"
#include "foundation/random/streams.hpp"

namespace {

const std::vector<double>& sample(int64_t n) {
  static std::map<int64_t, std::vector<double>> cache;
  auto& v = cache[n];
  if (v.empty()) {
    sdc::rng g = sdc::make_stream(5, uint64_t(n), 0, sdc::trial_kind::clean, sdc::stream_purpose::data);
    boost::random::normal_distribution<double> d(0, 1);
    v.resize(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = d(g) + (i % 10 == 0 ? 6.0 : 0.0);
  }
  return v;
}

const int64_t k_sizes[] = {100, 1000, 10000, 100000, 1000000};

}  // namespace

int main(int argc, char** argv) {
  for (int64_t n : k_sizes) {
    benchmark::RegisterBenchmark(fmt::format("folding/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) benchmark::DoNotOptimize(sdc::stats::folding_test(v));
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    benchmark::RegisterBenchmark(fmt::format("folding_w1/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) {
        const auto f = sdc::stats::folding_test(v);
        benchmark::DoNotOptimize(sdc::stats::pivot_split_w1(v, f.pivot));
      }
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    benchmark::RegisterBenchmark(fmt::format("robust_z/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) benchmark::DoNotOptimize(sdc::stats::robust_z_max(v));
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    benchmark::RegisterBenchmark(fmt::format("dip/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) benchmark::DoNotOptimize(sdc::stats::dip_test(v));
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    benchmark::RegisterBenchmark(fmt::format("silverman/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) benchmark::DoNotOptimize(sdc::stats::silverman_test(v, 100, 1));
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
    benchmark::RegisterBenchmark(fmt::format("uu_test/{}", n).c_str(), [n](benchmark::State& st) {
      const auto& v = sample(n);
      for (auto _ : st) benchmark::DoNotOptimize(sdc::stats::uu_test(v));
    })->Unit(benchmark::kMicrosecond)->MinTime(0.1);
  }
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\ncost of the multimodality tests, one thread, this run (growth exponent = slope of log t on log n):\n");
  fmt::print("{:<12}", "test");
  for (int64_t n : k_sizes) fmt::print(" {:>12}", fmt::format("n={}", n));
  fmt::print(" {:>9} {:>14}\n", "exponent", "paper (Table 2)");
  const std::pair<const char*, const char*> tests[] = {
      {"folding", "O(n)"},       {"folding_w1", "O(n log n)"},     {"robust_z", "O(n)"},
      {"dip", "O(n log n)"},     {"silverman", "O(n^2 + Bn)"},     {"uu_test", "O(n log n)"}};
  for (const auto& [name, cx] : tests) {
    fmt::print("{:<12}", name);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int64_t n : k_sizes) {
      const double t = rep.seconds(fmt::format("{}/{}", name, n));
      fmt::print(" {:>10.1f}us", t * 1e6);
      if (t <= 0) continue;
      const double x = std::log(double(n)), y = std::log(t);
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++k;
    }
    const double slope = k > 1 ? (k * sxy - sx * sy) / (k * sxx - sx * sx) : NAN;
    fmt::print(" {:>9.2f} {:>14}\n", slope, cx);
  }
  benchmark::Shutdown();
  return 0;
}
