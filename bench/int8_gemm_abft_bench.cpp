// Overhead of the int8 GEMM ABFT of 004_0d1fcb03aeacfeeb.txt (Algorithm 1) over
// the fastest plain u8s8s32 GEMM (oneDNN's, or our widened kernel), on the 28 DLRM shapes of suites/dlrm_int8_table2.json.
//   plain:  C = A x B            (n columns), timed in two layouts, leading
//           dimension n and the protected GEMM's padded one, and as the
//           protected GEMM's shape with a zero column in place of the
//           checksum ("wide": oneDNN's kernel choice depends on n, and on the
//           Xeon's AMX path 1x1025x256 runs faster than 1x1024x256); the
//           baseline of every iteration is the fastest of the three, so
//           neither padding nor blocking can flatter the ABFT side. A second run of the first (an A/A pair)
//           gives the noise band printed beside each overhead: an overhead
//           below the band is a defect of the benchmark, flagged, not a result.
//   abft:   C' = A x [B | s]     (n + 1 columns: the checksum column packed with B,
//           rows of B' and C' padded to a multiple of 64 elements: oneDNN is
//           slower on odd leading dimensions) + the row check of C mod 127
//   gemm n+1 unpadded: the same GEMM with leading dimension n + 1, for comparison
//   with requant: Figure 1's whole quantized GEMM, as FBGEMM's benchmark times
//           it: plain = GEMM + requantization to u8; ABFT = GEMM with the
//           checksum column + requantization that also sums each row (it reads
//           C anyway) + the comparison mod 127.
// Encoding B is done once per weight matrix and is amortized (timed separately).
// One thread; operands stay in cache between iterations (weights reused across
// calls). The variants are timed back to back in every iteration and the
// overhead is the median per-iteration ratio (bench/paired_timer.hpp); the paper's theoretical overhead
// 1/(2m) + 1/n + 1/(2k) (encoding included) and the amortized 1/n + 1/(2k) are printed beside them.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <boost/random/uniform_int_distribution.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <vector>

#include "detectors/quantized/quantized_detectors.hpp"
#include "bench/paired_timer.hpp"
#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"

namespace {

using namespace sdc;

struct mnk {
  int64_t m, n, k;
};
// 004 writes (m, n, k); FBGEMM's ABFT benchmark list minus the m = 156800 shapes.
const mnk k_shapes[] = {{1, 128, 512},    {1, 1024, 256},   {1, 2048, 512},   {1, 4096, 1024},  {6, 256, 1024},
                        {6, 256, 2048},   {6, 512, 512},    {6, 1024, 256},   {6, 2048, 256},   {6, 2048, 512},
                        {6, 4096, 256},   {6, 4096, 1024},  {6, 4096, 2048},  {10, 2048, 256},  {10, 4096, 1024},
                        {20, 2048, 256},  {20, 4096, 1024}, {102, 1024, 512}, {102, 2323, 256}, {102, 512, 256},
                        {1, 800, 3200},   {1, 800, 8000},   {16, 256, 1500},  {16, 256, 1567},  {1, 128, 2876},
                        {16, 128, 1567},  {1, 128, 2722},   {16, 256, 512}};

std::string name_of(const mnk& s) { return fmt::format("{}_{}_{}", s.m, s.n, s.k); }

struct problem {
  mnk s;
  std::vector<uint8_t> A;
  std::vector<int8_t> B, Bp;
  std::vector<int32_t> C, Cp;
  int64_t ldp = 0;  // padded leading dimension of B'/C' (variant "abft_ld64")
  std::vector<int8_t> Bq, Bl;     // B' padded; B alone with the same leading dimension
  std::vector<int32_t> Cq, Cl;
  std::vector<uint8_t> Cu8;      // requantized output
  std::vector<int64_t> sums;     // row sums from the fused requantization
  std::unique_ptr<int8_gemm_detector> det;
  int8_gemm_data view, view_ld64;
  explicit problem(mnk sh) : s(sh) {
    rng g = make_stream(1, uint64_t(s.m * 1000003 + s.n * 1009 + s.k), 0, trial_kind::clean, stream_purpose::data);
    boost::random::uniform_int_distribution<int> ua(0, 255), ub(-128, 127);
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n)), Bp.resize(size_t(s.k * (s.n + 1)));
    C.resize(size_t(s.m * s.n)), Cp.resize(size_t(s.m * (s.n + 1)));
    for (auto& x : A) x = uint8_t(ua(g));
    for (auto& x : B) x = int8_t(ub(g));
    for (int64_t i = 0; i < s.k; ++i) std::copy_n(B.data() + i * s.n, s.n, Bp.data() + i * (s.n + 1));
    const auto* info = find_detector(view_kind::int8_gemm, "abft_int8");
    det.reset(dynamic_cast<int8_gemm_detector*>(
        info->make(detector_params(validate_params(*info, nlohmann::json::object()), &s32()), {&s8(), &s32(), {}}).release()));
    encode();
    ldp = (s.n + 1 + 63) / 64 * 64;
    Bq.assign(size_t(s.k * ldp), 0), Cq.assign(size_t(s.m * ldp), 0);
    for (int64_t i = 0; i < s.k; ++i) std::copy_n(Bp.data() + i * (s.n + 1), s.n + 1, Bq.data() + i * ldp);
    Bl.assign(size_t(s.k * ldp), 0), Cl.assign(size_t(s.m * ldp), 0);
    for (int64_t i = 0; i < s.k; ++i) std::copy_n(B.data() + i * s.n, s.n, Bl.data() + i * ldp);
    gemm_u8s8s32(s.m, s.n + 1, s.k, A.data(), s.k, Bp.data(), s.n + 1, Cp.data(), s.n + 1);
    view = {s.m, s.n, s.k, A.data(), s.k, Bp.data(), s.n + 1, Cp.data(), s.n + 1, Cp.data() + s.n};
    if (det->verify(view).flagged) throw std::runtime_error("clean ABFT GEMM flagged");
    gemm_u8s8s32(s.m, s.n + 1, s.k, A.data(), s.k, Bq.data(), ldp, Cq.data(), ldp);
    view_ld64 = {s.m, s.n, s.k, A.data(), s.k, Bq.data(), ldp, Cq.data(), ldp, Cq.data() + s.n};
    if (det->verify(view_ld64).flagged) throw std::runtime_error("clean ABFT GEMM (padded) flagged");
    Cu8.resize(size_t(s.m * s.n)), sums.resize(size_t(s.m));
    if (fused_check() != 0) throw std::runtime_error("clean ABFT GEMM flagged by the fused check");
  }
  void encode() { det->encode(B.data(), s.k, s.n, s.n, Bp.data() + s.n, s.n + 1); }
  // Requantization of C' to u8 with the row sums taken in the same pass, then
  // Algorithm 1's comparison mod 127 against the checksum column: rows flagged.
  int64_t fused_check() {
    requantize_u8(Cq.data(), ldp, s.m, s.n, 1.2e-4f, 5, Cu8.data(), sums.data());
    int64_t bad = 0;
    for (int64_t i = 0; i < s.m; ++i) {
      const int64_t a = sums[size_t(i)] % 127, b = Cq[size_t(i * ldp + s.n)] % 127;
      bad += (a < 0 ? a + 127 : a) != (b < 0 ? b + 127 : b);
    }
    return bad;
  }
};

problem& cached(const mnk& s) {
  static std::map<std::string, std::unique_ptr<problem>> m;
  auto& p = m[name_of(s)];
  if (!p) p = std::make_unique<problem>(s);
  return *p;
}

// Variants timed together in every iteration (paired_timer.hpp).
enum variant { plain, plain_again, plain_ld, abft, verify, gemm_n1, plain_rq, plain_rq_ld, abft_rq, plain_wide, plain_rq_wide, plain_ours,
               plain_rq_ours, n_variants };

std::map<std::string, sdc::bench::paired_timer>& timers() {
  static std::map<std::string, sdc::bench::paired_timer> t;
  return t;
}

void register_all() {
  for (const auto& s : k_shapes) {
    benchmark::RegisterBenchmark(name_of(s).c_str(), [s](benchmark::State& st) {
      auto& p = cached(s);
      auto& timer = timers()[name_of(s)];
      const std::vector<std::function<void()>> variants = {
          [&] {  // plain: C = A x B
            gemm_u8s8s32(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
            benchmark::ClobberMemory();
          },
          [&] {  // the same again: the A/A pair of the noise band
            gemm_u8s8s32(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
            benchmark::ClobberMemory();
          },
          [&] {  // plain with the protected GEMM's padded leading dimension
            gemm_u8s8s32(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.Bl.data(), p.ldp, p.Cl.data(), p.ldp);
            benchmark::ClobberMemory();
          },
          [&] {  // abft: C' = A x [B | s] (rows padded to 64) + row check mod 127
            gemm_u8s8s32(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bq.data(), p.ldp, p.Cq.data(), p.ldp);
            benchmark::DoNotOptimize(p.det->verify(p.view_ld64));
          },
          [&] { benchmark::DoNotOptimize(p.det->verify(p.view_ld64)); },
          [&] {  // the same GEMM with leading dimension n + 1
            gemm_u8s8s32(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bp.data(), p.s.n + 1, p.Cp.data(), p.s.n + 1);
            benchmark::ClobberMemory();
          },
          [&] {  // Figure 1 without ABFT: GEMM, then requantization to u8
            gemm_u8s8s32(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
            requantize_u8(p.C.data(), p.s.n, p.s.m, p.s.n, 1.2e-4f, 5, p.Cu8.data(), nullptr);
            benchmark::ClobberMemory();
          },
          [&] {  // the same with the padded leading dimension
            gemm_u8s8s32(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.Bl.data(), p.ldp, p.Cl.data(), p.ldp);
            requantize_u8(p.Cl.data(), p.ldp, p.s.m, p.s.n, 1.2e-4f, 5, p.Cu8.data(), nullptr);
            benchmark::ClobberMemory();
          },
          [&] {  // with ABFT: GEMM with the checksum column, requantization fused with the row check
            gemm_u8s8s32(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bq.data(), p.ldp, p.Cq.data(), p.ldp);
            benchmark::DoNotOptimize(p.fused_check());
          },
          [&] {  // plain in the protected shape: B with a zero column (Bl's padding), n + 1 columns
            gemm_u8s8s32(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bl.data(), p.ldp, p.Cl.data(), p.ldp);
            benchmark::ClobberMemory();
          },
          [&] {  // the same, then requantization of the n columns
            gemm_u8s8s32(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bl.data(), p.ldp, p.Cl.data(), p.ldp);
            requantize_u8(p.Cl.data(), p.ldp, p.s.m, p.s.n, 1.2e-4f, 5, p.Cu8.data(), nullptr);
            benchmark::ClobberMemory();
          },
          [&] {  // plain on our widened kernel (int8_kernels.hpp), the other int8 GEMM this machine has
            gemm_u8s8s32_widened(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
            benchmark::ClobberMemory();
          },
          [&] {  // the same, then requantization
            gemm_u8s8s32_widened(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
            requantize_u8(p.C.data(), p.s.n, p.s.m, p.s.n, 1.2e-4f, 5, p.Cu8.data(), nullptr);
            benchmark::ClobberMemory();
          }};
      size_t it = 0;
      for (auto _ : st) timer.measure(variants, it++);
    })->Unit(benchmark::kMillisecond)->MinTime(0.3);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  fmt::print("\nint8 GEMM ABFT overhead over the plain int8 GEMM ({}), one thread; medians over iterations of\n"
             "per-iteration ratios, the variants timed back to back in each iteration (this run). Baseline: in each\n"
             "iteration the fastest of the plain GEMM with leading dimension n, with the protected one's padded\n"
             "leading dimension ('pad' = share of iterations it won), in the protected shape, n + 1 columns with a\n"
             "zero column ('wide' = share it won), and on our widened int8 kernel ('ours' = share it won). noise: 5th-95th percentile of\n"
             "plain / plain (the same GEMM timed twice); an overhead below it is a defect of the baseline ('!').\n",
             int8_gemm_kernel_name());
  fmt::print("{:>5} {:>5} {:>5} {:>6}  {:>9} {:>4} {:>4} {:>4} {:>9} {:>15} {:>8} {:>9} {:>11} {:>13} {:>11} {:>12}\n", "m", "n", "k",
             "iters", "plain us", "pad", "wide", "ours", "overhead", "noise", "verify", "encode", "theory(004)", "theory(amort)", "gemm n+1 ld",
             "with requant");
  int over10_m64 = 0, over20 = 0, over10 = 0, shapes = 0, rq_over10_m64 = 0, rq_over10 = 0, rq_over20 = 0, defects = 0;
  for (const auto& s : k_shapes) {
    auto it = timers().find(name_of(s));
    if (it == timers().end() || it->second.iterations() == 0) continue;
    const auto& t = it->second;
    auto& p = cached(s);
    // Encoding is amortized over calls with the same weights: timed apart.
    const auto e0 = std::chrono::steady_clock::now();
    for (int r = 0; r < 20; ++r) p.encode();
    const double enc = std::chrono::duration<double>(std::chrono::steady_clock::now() - e0).count() / 20;
    const std::vector<size_t> bases = {plain, plain_ld, plain_wide, plain_ours},
                              rq_bases = {plain_rq, plain_rq_ld, plain_rq_wide, plain_rq_ours};
    const double ov = t.median_ratio_to_fastest(abft, bases) - 1;
    const auto [lo, hi] = t.ratio_band(plain_again, plain);
    const double base_s = std::min({t.median(plain), t.median(plain_ld), t.median(plain_wide), t.median(plain_ours)});
    const double th = 1.0 / (2.0 * double(s.m)) + 1.0 / double(s.n) + 1.0 / (2.0 * double(s.k));
    const double th_am = 1.0 / double(s.n) + 1.0 / (2.0 * double(s.k));
    ++shapes;
    over20 += ov > 0.20, over10 += ov > 0.10;
    over10_m64 += s.m >= 64 && ov > 0.10;
    const double rq = t.median_ratio_to_fastest(abft_rq, rq_bases) - 1;
    rq_over10 += rq > 0.10, rq_over20 += rq > 0.20, rq_over10_m64 += s.m >= 64 && rq > 0.10;
    const bool defect = ov < lo - 1 || rq < lo - 1;
    defects += defect;
    fmt::print("{:>5} {:>5} {:>5} {:>6}  {:>9.2f} {:>3.0f}% {:>3.0f}% {:>3.0f}% {:>8.1f}% {:>6.1f}%..{:>5.1f}% {:>7.1f}% {:>8.1f}% {:>10.1f}% "
               "{:>12.1f}% {:>10.1f}% {:>11.1f}%{}\n",
               s.m, s.n, s.k, t.iterations(), base_s * 1e6, 100 * t.fastest_share(plain_ld, bases),
               100 * t.fastest_share(plain_wide, bases), 100 * t.fastest_share(plain_ours, bases), 100 * ov, 100 * (lo - 1),
               100 * (hi - 1), 100 * t.median_ratio_to_fastest(verify, bases), 100 * enc / base_s, 100 * th,
               100 * th_am, 100 * (t.median_ratio_to_fastest(gemm_n1, bases) - 1), 100 * rq, defect ? " !" : "");
  }
  fmt::print("{} shapes. GEMM alone + separate check: over 10 %: {}, over 20 %: {}, m >= 64 over 10 %: {}.\n"
             "GEMM + requantization (check fused into it): over 10 %: {}, over 20 %: {}, m >= 64 over 10 %: {}.\n"
             "Overheads below the noise band (a baseline defect): {}.\n",
             shapes, over10, over20, over10_m64, rq_over10, rq_over20, rq_over10_m64, defects);
  benchmark::Shutdown();
  return 0;
}
