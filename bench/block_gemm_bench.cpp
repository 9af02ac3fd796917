// The block-scaled GEMM kernel (foundation/kernels/block_gemm/, issue 69)
// beside our fixed-order fp32 GEMM (sequential order, the dispatched SIMD
// level), single thread, square n: time per GEMM of each format's kernel on
// already-quantized A and B, and of quantizing A and B, and the fp32
// kernel's time over each (a throughput ratio, measured in this run; below 1:
// the block kernel is slower). The block kernel is scalar (exact integer
// block sums): this measures what the workload's campaign pays, not what
// hardware with MX units does.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/normal_distribution.hpp>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "foundation/formats/block_scaled.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/simd/simd_level.hpp"

namespace {

using namespace sdc;

const int64_t k_sizes[] = {128, 256};

std::vector<float> draw(int64_t n, uint64_t which) {
  std::vector<float> x(size_t(n * n));
  rng g = make_stream(1, 69, which, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> d(0, 1);
  for (auto& v : x) v = float(d(g));
  return x;
}

void bm_fp32(benchmark::State& state) {
  const int64_t n = state.range(0);
  const std::vector<float> A = draw(n, 1), B = draw(n, 2);
  std::vector<float> C(A.size());
  for (auto _ : state) {
    gemm_run(A.data(), B.data(), C.data(), {n, n, n}, accumulation_order{});
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
}

template <bool Double>
void bm_block(benchmark::State& state, const block_format* f) {
  const int64_t n = state.range(0);
  const block_tensor A = quantize(draw(n, 1), n, n, 1, *f), B = quantize(draw(n, 2), n, n, 0, *f);
  std::vector<float> C(size_t(n * n));
  for (auto _ : state) {
    if constexpr (Double) block_gemm_double(A, B, C.data());
    else block_gemm(A, B, C.data());
    benchmark::DoNotOptimize(C.data());
    benchmark::ClobberMemory();
  }
}

void bm_quantize(benchmark::State& state, const block_format* f) {
  const int64_t n = state.range(0);
  const std::vector<float> A = draw(n, 1), B = draw(n, 2);
  for (auto _ : state) {
    block_tensor a = quantize(A, n, n, 1, *f), b = quantize(B, n, n, 0, *f);
    benchmark::DoNotOptimize(a.codes.data());
    benchmark::DoNotOptimize(b.codes.data());
  }
}

}  // namespace

int main(int argc, char** argv) {
  auto* fp = benchmark::RegisterBenchmark("fp32/sequential", bm_fp32);
  for (int64_t n : k_sizes) fp->Arg(n);
  fp->Unit(benchmark::kMillisecond)->MinTime(0.3);
  for (const auto& f : all_block_formats()) {
    auto* b = benchmark::RegisterBenchmark(fmt::format("{}/gemm", f.name).c_str(), bm_block<false>, &f);
    auto* d = benchmark::RegisterBenchmark(fmt::format("{}/gemm_double", f.name).c_str(), bm_block<true>, &f);
    auto* q = benchmark::RegisterBenchmark(fmt::format("{}/quantize", f.name).c_str(), bm_quantize, &f);
    for (int64_t n : k_sizes) b->Arg(n), d->Arg(n), q->Arg(n);
    b->Unit(benchmark::kMillisecond)->MinTime(0.3);
    d->Unit(benchmark::kMillisecond)->MinTime(0.3);
    q->Unit(benchmark::kMillisecond)->MinTime(0.3);
  }
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nfp32 fixed-order GEMM time ({}) over each block-scaled kernel's, measured in this run, single thread\n",
             simd_name(active_simd_level()));
  fmt::print("(gemm: the product of quantized A and B; +quantize: with quantizing A and B in the same call;\n"
             "double: block_gemm_double, the same bits with the block sums in double, the training workload's):\n");
  fmt::print("{:<12} {:>10} {:>12} {:>12} {:>10} {:>12} {:>12}\n", "format", "gemm n=128", "+quant n=128", "double n=128",
             "gemm n=256", "+quant n=256", "double n=256");
  for (const auto& f : all_block_formats()) {
    std::string row = fmt::format("{:<12}", f.name);
    for (int64_t n : k_sizes) {
      const double base = rep.seconds(fmt::format("fp32/sequential/{}", n));
      const double g = rep.seconds(fmt::format("{}/gemm/{}", f.name, n));
      const double q = rep.seconds(fmt::format("{}/quantize/{}", f.name, n));
      const double d = rep.seconds(fmt::format("{}/gemm_double/{}", f.name, n));
      row += base > 0 && g > 0 ? fmt::format(" {:>10.3f}", base / g) : fmt::format(" {:>10}", "-");
      row += base > 0 && g > 0 && q > 0 ? fmt::format(" {:>12.3f}", base / (g + q)) : fmt::format(" {:>12}", "-");
      row += base > 0 && d > 0 ? fmt::format(" {:>12.3f}", base / d) : fmt::format(" {:>12}", "-");
    }
    fmt::print("{}\n", row);
  }
  benchmark::Shutdown();
  return 0;
}
