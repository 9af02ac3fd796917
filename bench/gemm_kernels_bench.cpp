// Throughput of the fixed-order GEMM kernel (each accumulation order) against
// OpenBLAS sgemm/dgemm, single thread, square n. Prints, after the benchmark
// table, each kernel's throughput as a ratio to OpenBLAS measured in this run.
// Goal (issue 2): sequential order >= 0.4 of OpenBLAS at n = 1024. Each
// kernel, OpenBLAS included, is also given as a share of the core's peak FMA
// throughput measured here (bench/peak_fma.hpp).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/normal_distribution.hpp>
#include <vector>

#include "bench/openblas_core.hpp"
#include "bench/peak_fma.hpp"
#include "bench/ratio_reporter.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace {

using namespace sdc;

const char* k_orders[] = {"openblas", "sequential", "kblock(32)", "pairwise"};
const int64_t k_sizes[] = {256, 512, 1024};

template <class T>
void bm_gemm(benchmark::State& state, accumulation_order order) {
  const int64_t n = state.range(0);
  std::vector<T> A(size_t(n * n)), B(size_t(n * n)), C(size_t(n * n));
  rng g = make_stream(1, 2, 3, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> d(0, 1);
  for (auto& x : A) x = T(d(g));
  for (auto& x : B) x = T(d(g));
  const gemm_shape s{n, n, n};
  for (auto _ : state) {
    gemm_run(A.data(), B.data(), C.data(), s, order);
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * double(state.iterations()),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

std::string bench_name(const char* type, const char* order) { return fmt::format("{}/{}", type, order); }

constexpr int64_t k_peak_reps = 1 << 20;
std::string g_isa;
double g_peak_flops[2] = {0, 0};  // flops per call of bm_peak: [0] f32, [1] f64

template <class T>
void bm_peak(benchmark::State& state) {
  T sink = 0;
  double flops = 0;
  for (auto _ : state) {
    const auto r = bench::fma_peak<T>(k_peak_reps, &sink);
    benchmark::DoNotOptimize(sink);
    flops += r.flops, g_isa = r.isa, g_peak_flops[sizeof(T) == 8] = r.flops;
  }
  state.counters["GFLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

}  // namespace

int main(int argc, char** argv) {
  sdc::bench::use_best_openblas_core(argv);  // the baseline on OpenBLAS's best kernels for this CPU
  for (const char* type : {"f32", "f64"})
    for (const char* o : k_orders) {
      const auto order = parse_accumulation(o);
      auto* b = std::string(type) == "f32"
                    ? benchmark::RegisterBenchmark(bench_name(type, o).c_str(), [order](benchmark::State& st) { bm_gemm<float>(st, order); })
                    : benchmark::RegisterBenchmark(bench_name(type, o).c_str(), [order](benchmark::State& st) { bm_gemm<double>(st, order); });
      for (int64_t n : k_sizes)
        if (!(std::string(o) == "pairwise" && n > 512)) b->Arg(n);
      b->Unit(benchmark::kMillisecond)->MinTime(0.3);
    }
  benchmark::RegisterBenchmark("f32/peak_fma", bm_peak<float>)->Unit(benchmark::kMillisecond)->MinTime(0.3);
  benchmark::RegisterBenchmark("f64/peak_fma", bm_peak<double>)->Unit(benchmark::kMillisecond)->MinTime(0.3);
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nthroughput ratio to OpenBLAS ({}gemm; {}), measured in this run, single thread:\n", "s/d",
             sdc::bench::openblas_core_text());
  fmt::print("{:<6} {:<12} {:>8} {:>8} {:>8}\n", "type", "order", "n=256", "n=512", "n=1024");
  for (const char* type : {"f32", "f64"})
    for (const char* o : k_orders) {
      if (std::string(o) == "openblas") continue;
      std::string row = fmt::format("{:<6} {:<12}", type, o);
      for (int64_t n : k_sizes) {
        const double blas = rep.seconds(fmt::format("{}/openblas/{}", type, n));
        const double ours = rep.seconds(fmt::format("{}/{}/{}", type, o, n));
        row += ours > 0 && blas > 0 ? fmt::format(" {:>8.2f}", blas / ours) : fmt::format(" {:>8}", "-");
      }
      fmt::print("{}\n", row);
    }
  // Share of the peak: flops per second of each kernel over the peak's.
  fmt::print("\nshare of this core's peak FMA throughput ({}, {} chains; measured in this run):\n", g_isa, bench::k_fma_chains);
  fmt::print("{:<6} {:<12} {:>8} {:>8} {:>8}   peak GFLOP/s\n", "type", "order", "n=256", "n=512", "n=1024");
  for (const char* type : {"f32", "f64"}) {
    const double peak_s = rep.seconds(fmt::format("{}/peak_fma", type));
    if (peak_s <= 0) continue;
    const double peak = g_peak_flops[std::string(type) == "f64"] / peak_s;  // flops per second
    for (const char* o : k_orders) {
      std::string row = fmt::format("{:<6} {:<12}", type, o);
      for (int64_t n : k_sizes) {
        const double t = rep.seconds(fmt::format("{}/{}/{}", type, o, n));
        row += t > 0 ? fmt::format(" {:>7.1f}%", 100 * 2.0 * double(n * n * n) / t / peak) : fmt::format(" {:>8}", "-");
      }
      fmt::print("{}   {:.1f}\n", row, peak / 1e9);
    }
  }
  benchmark::Shutdown();
  return 0;
}
