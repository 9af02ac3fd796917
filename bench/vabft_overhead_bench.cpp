// Overhead of the V-ABFT check (statistics, thresholds, verification of every
// row and column) as a fraction of the GEMM it protects, and of encoding B
// (separately: weights are reused). The baseline of every overhead is, in each
// iteration, the fastest plain GEMM this machine has for the shape and type:
// OpenBLAS sgemm/dgemm, our fixed-order kernel, and oneDNN's dnnl_sgemm (fp32:
// oneDNN has no dgemm); the table says how often each won. Square n =
// 256..4096 and the (128, 1024, 256) tile of 001; the default check (rows and
// columns: reads A, B and C) and 001's rows-only check (reads A and C). Each
// is also put beside the physical limit of a row check, one read of C plus
// the GEMV A (B e) (OpenBLAS gemv); the columns add a read of B. All variants
// are timed back to back in every iteration (bench/paired_timer.hpp) and each
// ratio is the median of the per-iteration ratios; the OpenBLAS GEMM timed
// twice (an A/A pair) gives the noise band. Each variant is timed after
// whichever came before it in the shuffle (--warmup=none, the default), or
// right after an untimed call of itself (--warmup=self: in the state its own
// last call left, as a kernel run repeatedly; twice the time). Goals: <= 3 %
// of the GEMM at n = 1024, <= 1.5 % at n >= 2048; check <= 1.5 x (read of C
// + GEMV).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/normal_distribution.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <string_view>
#include <vector>

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

#include "bench/openblas_core.hpp"
#include "bench/paired_timer.hpp"
#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

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
  // be = B e (row sums of B), y = A (B e). Every GEMM, the protected one too, writes C: each finds it in
  // the cache state the variant before it left, as a plain GEMM does (a C of its own was colder).
  std::vector<T> A, B, C, be, y;
  std::unique_ptr<gemm_detector> det, det_rows;  // default checks (rows and columns), and rows only (001's)
  gemm_data<T> view;
  explicit data(gemm_shape s) {
    rng g = make_stream(1, 1, 1, trial_kind::clean, stream_purpose::data);
    boost::random::normal_distribution<double> d(0, 1);
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n)), C.resize(size_t(s.m * s.n));
    for (auto& x : A) x = T(d(g));
    for (auto& x : B) x = T(d(g));
    gemm_openblas(A.data(), B.data(), C.data(), s);
    const format& f = sizeof(T) == 4 ? fp32() : fp64();
    const auto* info = find_detector(view_kind::gemm, "vabft");
    auto make = [&](const nlohmann::json& params) {
      auto raw = info->make(detector_params(validate_params(*info, params), &f), {&f, &f});
      return std::unique_ptr<gemm_detector>(detector_cast<gemm_detector>(std::move(raw), "?", "gemm").release());
    };
    det = make(nlohmann::json::object()), det_rows = make({{"checks", "rows"}});
    view.dtype = view.out_fmt = &f, view.shape = s, view.A = A.data(), view.B = B.data(), view.C = view.acc = C.data();
    det->encode(view), det_rows->encode(view);
    verdict v;  // the protected GEMM has a fused form here (its C: the product in our order)
    if (!det->protected_gemm(view, C.data(), &v) || !det_rows->protected_gemm(view, C.data(), &v))
      throw std::logic_error("vabft has no protected GEMM");
    be.assign(size_t(s.k), T(0)), y.assign(size_t(s.m), T(0));
    for (int64_t kk = 0; kk < s.k; ++kk)
      for (int64_t j = 0; j < s.n; ++j) be[size_t(kk)] += B[size_t(kk * s.n + j)];
  }
  void gemv() {
    const int m = int(view.shape.m), k = int(view.shape.k);
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0f, A.data(), k, be.data(), 1, 0.0f, y.data(), 1);
    else
      cblas_dgemv(CblasRowMajor, CblasNoTrans, m, k, 1.0, A.data(), k, be.data(), 1, 0.0, y.data(), 1);
  }
  // One read of C: a sum over every element, in independent lanes the compiler
  // vectorizes (the bandwidth bound of any check that reads C once).
  T read_c() const {
    T lane[16] = {};
    const size_t n = C.size() / 16 * 16;
    for (size_t i = 0; i < n; i += 16)
      for (int l = 0; l < 16; ++l) lane[l] += C[i + size_t(l)];
    T s = 0;
    for (int l = 0; l < 16; ++l) s += lane[l];
    for (size_t i = n; i < C.size(); ++i) s += C[i];
    return s;
  }
};

template <class T>
data<T>& cached(const problem_set& p) {
  static std::map<std::string, std::unique_ptr<data<T>>> m;
  auto& d = m[p.name];
  if (!d) d = std::make_unique<data<T>>(p.s);
  return *d;
}

enum variant { openblas, openblas_again, ours, onednn, check, encode, read_c, gemv, check_rows, protect, protect_rows, n_variants };

// The plain GEMMs the baseline is the fastest of.
template <class T>
std::vector<size_t> plain_gemms() {
  if constexpr (std::is_same_v<T, float>) return {openblas, ours, onednn};
  return {openblas, ours};
}

// oneDNN's sgemm, row-major C = A B.
void gemm_onednn(const float* A, const float* B, float* C, gemm_shape s) {
  if (dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, A, s.k, B, s.n, 0.0f, C, s.n) != dnnl_success) throw std::runtime_error("dnnl_sgemm failed");
}

sdc::bench::warm_up g_warm_up = sdc::bench::warm_up::none;  // --warmup

template <class T>
std::map<std::string, sdc::bench::paired_timer>& timers() {
  static std::map<std::string, sdc::bench::paired_timer> t;
  return t;
}

template <class T>
void register_all(const char* type) {
  for (const auto& p : k_problems) {
    auto* b = benchmark::RegisterBenchmark(fmt::format("{}/{}", type, p.name).c_str(), [p](benchmark::State& st) {
      auto& d = cached<T>(p);
      auto& timer = timers<T>()[p.name];
      timer.set_warm_up(g_warm_up);
      const std::vector<std::function<void()>> variants = {
          [&] { gemm_openblas(d.A.data(), d.B.data(), d.C.data(), p.s); },
          [&] { gemm_openblas(d.A.data(), d.B.data(), d.C.data(), p.s); },
          [&] { gemm_fixed_order(d.A.data(), d.B.data(), d.C.data(), p.s, {}); },
          [&] {
            if constexpr (std::is_same_v<T, float>) gemm_onednn(d.A.data(), d.B.data(), d.C.data(), p.s);
          },
          [&] { benchmark::DoNotOptimize(d.det->verify(d.view)); },
          [&] { d.det->encode(d.view); },
          [&] { benchmark::DoNotOptimize(d.read_c()); },
          [&] { d.gemv(); benchmark::ClobberMemory(); },
          [&] { benchmark::DoNotOptimize(d.det_rows->verify(d.view)); },
          [&] { verdict v; d.det->protected_gemm(d.view, d.C.data(), &v); benchmark::DoNotOptimize(v); },
          [&] { verdict v; d.det_rows->protected_gemm(d.view, d.C.data(), &v); benchmark::DoNotOptimize(v); }};
      size_t i = 0;
      for (auto _ : st) timer.measure(variants, i++);
    });
    b->Unit(benchmark::kMillisecond);
    if (p.s.m >= 2048) b->Iterations(p.s.m >= 4096 ? 6 : 9);  // 6: the fewest with a 95 % interval of a median
    else b->MinTime(0.5);
  }
}

template <class T>
void report(const char* type) {
  const std::vector<size_t> bases = plain_gemms<T>();
  for (const auto& p : k_problems) {
    auto it = timers<T>().find(p.name);
    if (it == timers<T>().end() || it->second.iterations() == 0) continue;
    const auto& t = it->second;
    const auto [lo, hi] = t.ratio_band(openblas_again, openblas);
    const double limit = t.median(read_c) + t.median(gemv);
    const std::string won = fmt::format("{:.0f}/{:.0f}/{}", 100 * t.fastest_share(openblas, bases), 100 * t.fastest_share(ours, bases),
                                        bases.size() > 2 ? fmt::format("{:.0f}", 100 * t.fastest_share(onednn, bases)) : std::string("-"));
    const auto [plo, phi] = t.median_ci_to_fastest(protect, bases);
    const std::string ci = std::isnan(plo) ? std::string("-") : fmt::format("{:.3f}-{:.3f}", plo, phi);
    const auto each = t.largest_ratio(protect, bases);  // against each plain GEMM alone: the largest
    const std::string each_ci = std::isnan(each.lo) ? std::string("-") : fmt::format("{:.3f}-{:.3f}", each.lo, each.hi);
    const char each_of = each.base == openblas ? 'b' : each.base == ours ? 'o' : 'd';
    fmt::print(
        "{:<5} {:<18} {:>5} {:>9.3f} {:>11} {:>7.1f}% {:>6.1f}%..{:>4.1f}% {:>8.3f} {:>8.3f} {:>7.2f} {:>8.1f}% "
        "{:>8.2f} {:>8.1f}% {:>7.1f}% {:>9.3f} {:>11} {:>9.3f} {:>9.3f} {:>7.3f} {:>11} {:>2} {:>7.1f}%\n",
        type, p.name, t.iterations(), t.median_fastest(bases) * 1e3, won, 100 * t.median_ratio_to_fastest(check, bases),
        100 * (lo - 1), 100 * (hi - 1), t.median(check) * 1e3, limit * 1e3, t.median(check) / limit,
        100 * t.median_ratio_to_fastest(check_rows, bases), t.median(check_rows) / limit,
        100 * t.median_ratio_to_fastest(encode, bases), 100 * t.median(openblas) / t.median(ours),
        t.median_ratio_to_fastest(protect, bases), ci, t.median_ratio_to_fastest(protect_rows, bases),
        t.median_ratio(protect, ours), each.median, each_ci, each_of,
        100 * t.min_bias(protect, openblas, openblas_again));
  }
}

// Takes --warmup=self|none out of argv (exit 2 on any other value).
void parse_warm_up(int& argc, char** argv) {
  const std::string_view flag = "--warmup=";
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.substr(0, flag.size()) != flag) {
      argv[out++] = argv[i];
      continue;
    }
    const std::string_view v = a.substr(flag.size());
    if (v != "self" && v != "none") {
      fmt::print(stderr, "vabft_overhead_bench: --warmup takes self or none, got '{}'\n", v);
      std::exit(2);
    }
    g_warm_up = v == "self" ? sdc::bench::warm_up::self : sdc::bench::warm_up::none;
  }
  argc = out;
  argv[out] = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  sdc::bench::use_best_openblas_core(argv);  // the baseline on OpenBLAS's best kernels for this CPU
  parse_warm_up(argc, argv);
  omp_set_num_threads(1);  // oneDNN's sgemm on one thread, as OpenBLAS (gemm_openblas) and ours
  register_all<float>("f32");
  register_all<double>("f64");
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  fmt::print(
      "\nV-ABFT check (and encoding of B) against the fastest plain GEMM of each iteration, one thread, medians of\n"
      "per-iteration ratios (this run). gemm ms: the fastest GEMM; won: % of iterations OpenBLAS / ours / oneDNN\n"
      "was it"
      " (oneDNN has no dgemm). check: rows and columns (the default, reads A, B and C); rows only: 001's one-sided\n"
      "check (reads A and C). noise: 5th-95th percentile of OpenBLAS / OpenBLAS (the same GEMM timed twice); limit: a\n"
      "plain read of C plus the GEMV A (B e) (OpenBLAS); ours: our fixed-order kernel's speed as a share of\n"
      "OpenBLAS's."
      " protected: our fixed-order GEMM with the check fused (foundation/kernels/gemm/gemm_check_sums.hpp: its sums\n"
      "taken as it packs A and B and as each tile of C is finished) plus thresholds and verdict, as a multiple of\n"
      "the fastest plain GEMM's time (goal <= 1.03 at n >= 1024, <= 1.05 at 512); rows and columns (95 %: a\n"
      "distribution-free 95 % interval of that median over this run's iterations, '-' below 6), and rows only;\n"
      "/ours: the protected GEMM over our plain kernel (what the fusion itself costs). each: the protected GEMM over\n"
      "each plain GEMM alone, the largest of those medians (95 %, of: b/o/d which GEMM), free of the bias of a\n"
      "per-iteration minimum; min bias: that bias on the A/A pair, protected over the faster of OpenBLAS and its twin\n"
      "per iteration, against protected over OpenBLAS alone (0 % without noise). Each variant timed {}. Our kernel: "
      "{}.\n"
      "{}.\n",
      g_warm_up == sdc::bench::warm_up::self ? "right after an untimed call of itself (--warmup=self)"
                                             : "after whichever came before it (--warmup=none)",
      sdc::active_gemm_variant().text(), sdc::bench::openblas_core_text());
  fmt::print(
      "{:<5} {:<18} {:>5} {:>9} {:>11} {:>8} {:>14} {:>8} {:>8} {:>7} {:>9} {:>8} {:>9} {:>8} {:>9} {:>11} {:>9} {:>9} "
      "{:>7} {:>11} {:>2} {:>8}\n",
      "type", "problem", "iters", "gemm ms", "won b/o/d", "check", "noise", "check ms", "limit ms", "/limit",
      "rows only", "/limit", "encode", "ours", "protected", "95 %", "prot.rows", "/ours", "each", "95 %", "of",
      "min bias");
  report<float>("f32");
  report<double>("f64");
  benchmark::Shutdown();
  return 0;
}
