// Bandwidth of the log-norm pass of 000's Algorithm 1 (stage 1): bf16
// gradients, 2^26 elements (128 MiB, past the last-level cache), cut into
// rows of 2560 (Table 3's 2560x2560 tensor), sum of squares in fp64 with the
// bf16 widened on the fly (harness/workloads/log_norms.*). Compared with a
// plain read of the same memory (64-bit loads summed) in the same iterations
// (bench/paired_timer.hpp): the goal of issue 5 is >= 0.7 of that read.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "bench/paired_timer.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"

namespace {

constexpr int64_t k_elems = int64_t(1) << 26, k_row = 2560;

std::vector<uint16_t>& gradients() {
  static std::vector<uint16_t> g = [] {
    std::vector<uint16_t> v(static_cast<size_t>(k_elems));
    uint32_t x = 12345;
    for (auto& e : v) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      e = uint16_t(0x3800 + (x & 0x07ff));  // bf16 magnitudes around 2^-15 .. 2^-12, both signs
      if (x & 0x10000) e |= 0x8000;
    }
    return v;
  }();
  return g;
}

double log_norm_pass(const uint16_t* g, bool fast) {
  double s = 0;
  for (int64_t o = 0; o < k_elems; o += k_row) {
    const int64_t n = std::min(k_row, k_elems - o);
    s += 0.5 * std::log(fast ? sdc::sum_squares_bf16_fast(g + o, n) : sdc::sum_squares_bf16_reference(g + o, n));
  }
  return s;
}

uint64_t plain_read(const uint16_t* g) {
  const auto* w = reinterpret_cast<const uint64_t*>(g);
  uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  const int64_t words = k_elems / 4;
  for (int64_t i = 0; i < words; i += 4) a0 += w[i], a1 += w[i + 1], a2 += w[i + 2], a3 += w[i + 3];
  return a0 + a1 + a2 + a3;
}

sdc::bench::paired_timer& timer() {
  static sdc::bench::paired_timer t;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("log_norm_pass_vs_read", [](benchmark::State& st) {
    const uint16_t* g = gradients().data();
    const std::vector<std::function<void()>> variants = {
        [&] { benchmark::DoNotOptimize(plain_read(g)); },
        [&] { benchmark::DoNotOptimize(log_norm_pass(g, true)); },
        [&] { benchmark::DoNotOptimize(log_norm_pass(g, false)); }};
    size_t i = 0;
    for (auto _ : st) timer().measure(variants, i++);
  })->Unit(benchmark::kMillisecond)->Iterations(40);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  const auto& t = timer();
  const double bytes = double(k_elems) * 2;
  fmt::print("\nlog-norm pass over {} bf16 elements ({} MiB), rows of {}, one thread, medians of {} paired iterations:\n",
             k_elems, k_elems * 2 >> 20, k_row, t.iterations());
  fmt::print("  plain read            {:8.2f} GB/s\n", bytes / t.median(0) * 1e-9);
  fmt::print("  log-norm pass (AVX-512) {:6.2f} GB/s  = {:.2f} of the plain read\n", bytes / t.median(1) * 1e-9,
             1.0 / t.median_ratio(1, 0));
  fmt::print("  log-norm reference    {:8.2f} GB/s  = {:.2f} of the plain read\n", bytes / t.median(2) * 1e-9,
             1.0 / t.median_ratio(2, 0));
  benchmark::Shutdown();
  return 0;
}
