// Overhead of the V-ABFT check (statistics, thresholds, verification of every
// row and column) as a fraction of the GEMM it protects, and of encoding B
// (separately: weights are reused). GEMMs: OpenBLAS sgemm/dgemm and our
// fixed-order kernel, square n = 256..4096 and the (128, 1024, 256) tile of
// 001. Ratios are measured in this run. Goal (issue 3): <= 3 % for n >= 1024
// over OpenBLAS sgemm.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/normal_distribution.hpp>
#include <map>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "detectors/gemm_detector.hpp"
#include "harness/random/streams.hpp"
#include "workloads/gemm/gemm_kernels.hpp"

namespace {

using namespace sdc;

struct problem_set {
  gemm_shape s;
  std::string name;
};
const problem_set k_problems[] = {{{128, 256, 1024}, "tile_128x1024x256"}, {{256, 256, 256}, "n256"},
                                  {{512, 512, 512}, "n512"},               {{1024, 1024, 1024}, "n1024"},
                                  {{2048, 2048, 2048}, "n2048"},           {{4096, 4096, 4096}, "n4096"}};

template <class T>
struct data {
  std::vector<T> A, B, C;
  std::unique_ptr<gemm_detector> det;
  gemm_data<T> view;
  explicit data(gemm_shape s) {
    rng g = make_stream(1, 1, 1, trial_kind::clean, stream_purpose::data);
    boost::random::normal_distribution<double> d(0, 1);
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n)), C.resize(size_t(s.m * s.n));
    for (auto& x : A) x = T(d(g));
    for (auto& x : B) x = T(d(g));
    gemm_openblas(A.data(), B.data(), C.data(), s);
    const format& f = sizeof(T) == 4 ? fp32() : fp64();
    const auto* info = find_detector("gemm", "vabft");
    auto raw = info->make(detector_params(validate_params(*info, nlohmann::json::object()), &f), {&f, &f});
    det.reset(detector_cast<gemm_detector>(std::move(raw), "?", "gemm").release());
    view.dtype = view.out_fmt = &f, view.shape = s, view.A = A.data(), view.B = B.data(), view.C = view.acc = C.data();
    det->encode(view);
  }
};

template <class T>
data<T>& cached(const problem_set& p) {
  static std::map<std::string, std::unique_ptr<data<T>>> m;
  auto& d = m[p.name];
  if (!d) d = std::make_unique<data<T>>(p.s);
  return *d;
}

template <class T>
void register_all(const char* type) {
  for (const auto& p : k_problems) {
    const double iters_min = p.s.m >= 2048 ? 0.5 : 0.2;
    benchmark::RegisterBenchmark(fmt::format("{}/{}/gemm_openblas", type, p.name).c_str(), [p](benchmark::State& st) {
      auto& d = cached<T>(p);
      for (auto _ : st) gemm_openblas(d.A.data(), d.B.data(), d.C.data(), p.s);
    })->Unit(benchmark::kMillisecond)->MinTime(iters_min);
    benchmark::RegisterBenchmark(fmt::format("{}/{}/gemm_ours", type, p.name).c_str(), [p](benchmark::State& st) {
      auto& d = cached<T>(p);
      for (auto _ : st) gemm_fixed_order(d.A.data(), d.B.data(), d.C.data(), p.s, {});
    })->Unit(benchmark::kMillisecond)->MinTime(iters_min);
    benchmark::RegisterBenchmark(fmt::format("{}/{}/vabft_check", type, p.name).c_str(), [p](benchmark::State& st) {
      auto& d = cached<T>(p);
      for (auto _ : st) benchmark::DoNotOptimize(d.det->verify(d.view));
    })->Unit(benchmark::kMillisecond)->MinTime(iters_min);
    benchmark::RegisterBenchmark(fmt::format("{}/{}/vabft_encode", type, p.name).c_str(), [p](benchmark::State& st) {
      auto& d = cached<T>(p);
      for (auto _ : st) d.det->encode(d.view);
    })->Unit(benchmark::kMillisecond)->MinTime(iters_min);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all<float>("f32");
  register_all<double>("f64");
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nV-ABFT check (and encoding of B) as a fraction of the GEMM, measured in this run, one thread:\n");
  fmt::print("{:<5} {:<20} {:>16} {:>13} {:>16} {:>13}\n", "type", "problem", "check/openblas", "check/ours", "encode/openblas",
             "encode/ours");
  for (const char* type : {"f32", "f64"})
    for (const auto& p : k_problems) {
      auto t = [&](const char* what) { return rep.seconds(fmt::format("{}/{}/{}", type, p.name, what)); };
      const double blas = t("gemm_openblas"), ours = t("gemm_ours"), chk = t("vabft_check"), enc = t("vabft_encode");
      if (blas <= 0 || ours <= 0) continue;
      fmt::print("{:<5} {:<20} {:>15.1f}% {:>12.1f}% {:>15.1f}% {:>12.1f}%\n", type, p.name, 100 * chk / blas,
                 100 * chk / ours, 100 * enc / blas, 100 * enc / ours);
    }
  benchmark::Shutdown();
  return 0;
}
