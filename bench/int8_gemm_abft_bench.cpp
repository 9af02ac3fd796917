// Overhead of the int8 GEMM ABFT of 004_0d1fcb03aeacfeeb.txt (Algorithm 1) over
// the plain oneDNN u8s8s32 GEMM, on the 28 DLRM shapes of suites/dlrm_int8_table2.json.
//   plain:  C = A x B            (n columns)
//   abft:   C' = A x [B | s]     (n + 1 columns: the checksum column packed with B,
//           rows of B' and C' padded to a multiple of 64 elements: oneDNN is
//           slower on odd leading dimensions) + the row check of C mod 127
//   gemm n+1 unpadded: the same GEMM with leading dimension n + 1, for comparison
// Encoding B is done once per weight matrix and is amortized (timed separately).
// One thread; operands stay in cache between iterations (weights reused across
// calls). Ratios are measured in this run; the paper's theoretical overhead
// 1/(2m) + 1/n + 1/(2k) (encoding included) and the amortized 1/n + 1/(2k) are printed beside them.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <map>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "detectors/detector.hpp"
#include "harness/random/streams.hpp"
#include "harness/workloads/int8_kernels.hpp"

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
  std::vector<int8_t> Bq;
  std::vector<int32_t> Cq;
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
    const auto* info = find_detector("gemm_int8", "abft_int8");
    det.reset(dynamic_cast<int8_gemm_detector*>(
        info->make(detector_params(validate_params(*info, nlohmann::json::object()), &s32()), {&s8(), &s32(), {}}).release()));
    encode();
    ldp = (s.n + 1 + 63) / 64 * 64;
    Bq.assign(size_t(s.k * ldp), 0), Cq.assign(size_t(s.m * ldp), 0);
    for (int64_t i = 0; i < s.k; ++i) std::copy_n(Bp.data() + i * (s.n + 1), s.n + 1, Bq.data() + i * ldp);
    gemm_u8s8s32_onednn(s.m, s.n + 1, s.k, A.data(), s.k, Bp.data(), s.n + 1, Cp.data(), s.n + 1);
    view = {s.m, s.n, s.k, A.data(), s.k, Bp.data(), s.n + 1, Cp.data(), s.n + 1, Cp.data() + s.n};
    if (det->verify(view).flagged) throw std::runtime_error("clean ABFT GEMM flagged");
    gemm_u8s8s32_onednn(s.m, s.n + 1, s.k, A.data(), s.k, Bq.data(), ldp, Cq.data(), ldp);
    view_ld64 = {s.m, s.n, s.k, A.data(), s.k, Bq.data(), ldp, Cq.data(), ldp, Cq.data() + s.n};
    if (det->verify(view_ld64).flagged) throw std::runtime_error("clean ABFT GEMM (padded) flagged");
  }
  void encode() { det->encode(B.data(), s.k, s.n, s.n, Bp.data() + s.n, s.n + 1); }
};

problem& cached(const mnk& s) {
  static std::map<std::string, std::unique_ptr<problem>> m;
  auto& p = m[name_of(s)];
  if (!p) p = std::make_unique<problem>(s);
  return *p;
}

void register_all() {
  for (const auto& s : k_shapes) {
    const std::string n = name_of(s);
    auto reg = [&](const char* what, auto body) {
      benchmark::RegisterBenchmark(fmt::format("{}/{}", n, what).c_str(), [s, body](benchmark::State& st) {
        auto& p = cached(s);
        for (auto _ : st) body(p);
      })->Unit(benchmark::kMicrosecond)->MinTime(0.05)->Repetitions(9)->ReportAggregatesOnly(true);
    };
    reg("plain", [](problem& p) {
      gemm_u8s8s32_onednn(p.s.m, p.s.n, p.s.k, p.A.data(), p.s.k, p.B.data(), p.s.n, p.C.data(), p.s.n);
      benchmark::ClobberMemory();
    });
    reg("abft", [](problem& p) {
      gemm_u8s8s32_onednn(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bq.data(), p.ldp, p.Cq.data(), p.ldp);
      benchmark::DoNotOptimize(p.det->verify(p.view_ld64));
    });
    reg("gemm_n1_unpadded", [](problem& p) {
      gemm_u8s8s32_onednn(p.s.m, p.s.n + 1, p.s.k, p.A.data(), p.s.k, p.Bp.data(), p.s.n + 1, p.Cp.data(), p.s.n + 1);
      benchmark::ClobberMemory();
    });
    reg("verify", [](problem& p) { benchmark::DoNotOptimize(p.det->verify(p.view)); });
    reg("encode", [](problem& p) {
      p.encode();
      benchmark::ClobberMemory();
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nint8 GEMM ABFT overhead over plain oneDNN u8s8s32 ({}), one thread, medians of 9, this run:\n",
             onednn_isa_name());
  fmt::print("{:>5} {:>5} {:>5}  {:>10} {:>10} {:>9} {:>9} {:>10} {:>12} {:>12} {:>12}\n", "m", "n", "k", "plain us", "abft us",
             "overhead", "verify", "encode", "theory(004)", "theory(amort)", "gemm n+1 unpadded");
  int over10_m64 = 0, over20 = 0, shapes = 0;
  for (const auto& s : k_shapes) {
    auto t = [&](const char* what) { return rep.seconds(fmt::format("{}/{}", name_of(s), what)); };
    const double plain = t("plain"), abft = t("abft"), ver = t("verify"), enc = t("encode"), n1 = t("gemm_n1_unpadded");
    if (plain <= 0 || abft <= 0) continue;
    const double ov = abft / plain - 1;
    const double th = 1.0 / (2.0 * double(s.m)) + 1.0 / double(s.n) + 1.0 / (2.0 * double(s.k));
    const double th_am = 1.0 / double(s.n) + 1.0 / (2.0 * double(s.k));
    ++shapes;
    over20 += ov > 0.20;
    over10_m64 += s.m >= 64 && ov > 0.10;
    fmt::print("{:>5} {:>5} {:>5}  {:>10.2f} {:>10.2f} {:>8.1f}% {:>8.1f}% {:>9.1f}% {:>11.1f}% {:>11.1f}% {:>11.1f}%\n", s.m, s.n,
               s.k, plain * 1e6, abft * 1e6, 100 * ov, 100 * ver / plain, 100 * enc / plain, 100 * th, 100 * th_am,
               100 * (n1 / plain - 1));
  }
  fmt::print("{} shapes; over 20 %: {}; m >= 64 over 10 %: {}\n", shapes, over20, over10_m64);
  benchmark::Shutdown();
  return 0;
}
