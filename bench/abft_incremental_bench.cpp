// Per-trial cost of a fault trial in a V-ABFT campaign, full vs incremental,
// at the (128, 1024, 256) bf16 tile of 001 Table 8:
//   full:        recompute the GEMM (target B: with the faulty B; target C: the
//                product the fault lands in) and verify every check;
//   incremental: recompute only the affected column of C (target B; nothing for
//                target C) with the fixed-order kernel and re-verify only the
//                affected checks (bit-identical: tests/test_abft_detectors.cpp).
// Prints the speed-up measured in this run. Goal (issue 3): >= 100x.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <vector>

#include "bench/ratio_reporter.hpp"
#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/tensor_view.hpp"

namespace {

using namespace sdc;

struct tile {
  gemm_shape s{128, 256, 1024};
  std::vector<float> A, B, acc, C, B2, acc2, C2;
  std::unique_ptr<gemm_detector> det;
  tile() {
    rng g = make_stream(1, 2, 3, trial_kind::clean, stream_purpose::data);
    const auto d = parse_distribution("normal(1e-06,1)");
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n)), acc.resize(size_t(s.m * s.n)), C.resize(acc.size());
    for (auto& x : A) x = round_into<float>(bf16(), d.sample(g));
    for (auto& x : B) x = round_into<float>(bf16(), d.sample(g));
    gemm_fixed_order(A.data(), B.data(), acc.data(), s, {});
    for (size_t i = 0; i < acc.size(); ++i) C[i] = round_into<float>(bf16(), acc[i]);
    const auto* info = find_detector(view_kind::gemm, "vabft");
    auto raw = info->make(detector_params(validate_params(*info, nlohmann::json::object()), &bf16()), {&bf16(), &bf16()});
    det.reset(detector_cast<gemm_detector>(std::move(raw), "?", "gemm").release());
    det->encode(view(A.data(), B.data(), acc.data(), C.data()));
    det->baseline(view(A.data(), B.data(), acc.data(), C.data()));
    B2 = B, acc2 = acc, C2 = C;
  }
  gemm_data<float> view(const float* a, const float* b, const float* ac, const float* c) const {
    gemm_data<float> d;
    d.dtype = d.out_fmt = &bf16(), d.shape = s, d.A = a, d.B = b, d.acc = ac, d.C = c;
    return d;
  }
};

tile& shared_tile() {
  static tile t;
  return t;
}

void bm_target_b(benchmark::State& st, bool incremental) {
  tile& t = shared_tile();
  const int64_t k = 517, j = 77;
  for (auto _ : st) {
    t.B2[size_t(k * t.s.n + j)] = t.B[size_t(k * t.s.n + j)] * 65536.0f;  // the fault
    verdict v;
    if (incremental) {
      gemm_col_fixed_order(t.A.data(), t.B2.data(), t.acc2.data(), t.s, {}, j);
      for (int64_t i = 0; i < t.s.m; ++i) {
        const size_t idx = size_t(i * t.s.n + j);
        t.C2[idx] = round_into<float>(bf16(), t.acc2[idx]);
      }
      v = t.det->verify_change(t.view(t.A.data(), t.B2.data(), t.acc2.data(), t.C2.data()),
                               {gemm_change::kind::b_col, -1, j});
    } else {
      gemm_fixed_order(t.A.data(), t.B2.data(), t.acc2.data(), t.s, {});
      for (size_t i = 0; i < t.acc2.size(); ++i) t.C2[i] = round_into<float>(bf16(), t.acc2[i]);
      v = t.det->verify(t.view(t.A.data(), t.B2.data(), t.acc2.data(), t.C2.data()));
    }
    benchmark::DoNotOptimize(v);
  }
  t.B2 = t.B, t.acc2 = t.acc, t.C2 = t.C;
}

void bm_target_c(benchmark::State& st, bool incremental) {
  tile& t = shared_tile();
  const size_t idx = size_t(45 * t.s.n + 201);
  for (auto _ : st) {
    verdict v;
    if (incremental) {
      t.C2[idx] = t.C[idx] * 256.0f;
      v = t.det->verify_change(t.view(t.A.data(), t.B.data(), t.acc.data(), t.C2.data()),
                               {gemm_change::kind::output_element, 45, 201});
    } else {
      gemm_fixed_order(t.A.data(), t.B.data(), t.acc2.data(), t.s, {});
      for (size_t i = 0; i < t.acc2.size(); ++i) t.C2[i] = round_into<float>(bf16(), t.acc2[i]);
      t.C2[idx] = t.C2[idx] * 256.0f;
      v = t.det->verify(t.view(t.A.data(), t.B.data(), t.acc2.data(), t.C2.data()));
    }
    benchmark::DoNotOptimize(v);
  }
  t.C2 = t.C;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("target_B/full", [](benchmark::State& s) { bm_target_b(s, false); })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("target_B/incremental", [](benchmark::State& s) { bm_target_b(s, true); })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("target_C/full", [](benchmark::State& s) { bm_target_c(s, false); })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("target_C/incremental", [](benchmark::State& s) { bm_target_c(s, true); })->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nspeed-up per fault trial, V-ABFT, bf16 (M, K, N) = (128, 1024, 256), measured in this run:\n");
  for (const char* t : {"target_B", "target_C"}) {
    const double full = rep.seconds(fmt::format("{}/full", t)), inc = rep.seconds(fmt::format("{}/incremental", t));
    if (full > 0 && inc > 0) fmt::print("  {}: {:.1f}x ({:.1f} us -> {:.2f} us)\n", t, full / inc, 1e6 * full, 1e6 * inc);
  }
  benchmark::Shutdown();
  return 0;
}
