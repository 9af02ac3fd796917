// Speed of the ground truth: sdcbench's row-check errors (foundation/ground_truth,
// the exact A_i (B 1) per row against the fp64 row sum of C, as the tightness
// suites use it; summed in the exact accumulator, rounded by MPFR) and their
// MPFR twin (every term an mpfr_t, mpfr_sum) against the same computation in
// mpmath at 100 decimal digits, which 001 used (Debian's python3-mpmath, run by
// bench/mpmath_row_check.py on the same matrices, timed inside python). All
// three must agree (relative difference of every row's error below 1e-12;
// ours and the twin bit for bit), and the ratios mpmath / ours and mpmath /
// twin are printed, measured in this run. Goal (issue 14): >= 50x. fp64,
// U(-1, 1), square shapes, one thread.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "bench/ratio_reporter.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace {

using namespace sdc;

const int64_t k_sizes[] = {64, 128, 256};

struct problem {
  int64_t n;
  std::vector<double> A, B, C, err, twin_err;
  explicit problem(int64_t size) : n(size) {
    rng g = make_stream(1, uint64_t(size), 0, trial_kind::clean, stream_purpose::data);
    boost::random::uniform_real_distribution<double> u(-1, 1);
    A.resize(size_t(n * n)), B.resize(size_t(n * n)), C.resize(size_t(n * n)), err.resize(size_t(n)), twin_err.resize(size_t(n));
    for (auto& x : A) x = u(g);
    for (auto& x : B) x = u(g);
    gemm_openblas(A.data(), B.data(), C.data(), {n, n, n});
  }
};

problem& cached(int64_t n) {
  static std::map<int64_t, std::unique_ptr<problem>> m;
  auto& p = m[n];
  if (!p) p = std::make_unique<problem>(n);
  return *p;
}

void write_raw(const std::filesystem::path& p, const std::vector<double>& v) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * sizeof(double)));
}

// Runs the mpmath twin on problem n; returns its seconds and fills its errors.
double run_mpmath(problem& p, std::vector<double>& errors) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("sdcbench-gt-{}-{}", ::getpid(), p.n);
  std::filesystem::create_directories(dir);
  write_raw(dir / "A.f64", p.A), write_raw(dir / "B.f64", p.B), write_raw(dir / "C.f64", p.C);
  const std::string cmd = fmt::format("python3 '{}/bench/mpmath_row_check.py' '{}' {} {} {} 3", SDCBENCH_SOURCE_DIR, dir.string(),
                                      p.n, p.n, p.n);
  std::FILE* f = ::popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  for (size_t r; f && (r = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, r);
  const int status = f ? ::pclose(f) : -1;
  std::filesystem::remove_all(dir);
  if (status != 0) throw std::runtime_error("mpmath twin failed (is python3-mpmath installed?): " + cmd);
  std::istringstream in(text);
  double seconds = 0;
  in >> seconds;
  errors.clear();
  for (double e; in >> e;) errors.push_back(e);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  for (int64_t n : k_sizes)
    benchmark::RegisterBenchmark(fmt::format("mpfr_row_check/{}", n).c_str(), [n](benchmark::State& st) {
      auto& p = cached(n);
      for (auto _ : st) exact_row_check_errors(p.A.data(), p.B.data(), p.C.data(), n, n, n, p.err.data());
    })->Unit(benchmark::kMillisecond)->MinTime(0.3);
  for (int64_t n : k_sizes)
    benchmark::RegisterBenchmark(fmt::format("mpfr_twin_row_check/{}", n).c_str(), [n](benchmark::State& st) {
      auto& p = cached(n);
      for (auto _ : st) exact_row_check_errors_mpfr(p.A.data(), p.B.data(), p.C.data(), n, n, n, p.twin_err.data());
    })->Unit(benchmark::kMillisecond)->MinTime(0.3);
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nGround truth: ours (exact accumulator, rounded to 256 bits by MPFR) and the MPFR twin (mpfr_sum) vs\n"
             "mpmath (100 digits, fsum) on the same fp64 matrices, one thread, row-check errors\n"
             "|fp64 row sum of C - exact A_i (B 1)| of every row (this run; mpmath: best of 3):\n");
  fmt::print("{:>5} {:>10} {:>10} {:>11} {:>10} {:>12} {:>22}\n", "n", "ours ms", "twin ms", "mpmath ms", "ratio",
             "twin ratio", "max rel. difference");
  int status = 0;
  for (int64_t n : k_sizes) {
    const double mpfr_s = rep.seconds(fmt::format("mpfr_row_check/{}", n));
    const double twin_s = rep.seconds(fmt::format("mpfr_twin_row_check/{}", n));
    if (mpfr_s <= 0 || twin_s <= 0) continue;
    auto& p = cached(n);
    std::vector<double> twin;
    const double mpmath_s = run_mpmath(p, twin);
    double worst = twin.size() == p.err.size() ? 0.0 : INFINITY;
    for (size_t i = 0; i < twin.size() && i < p.err.size(); ++i)
      worst = std::max(worst, std::fabs(twin[i] - p.err[i]) / std::max(std::fabs(p.err[i]), 1e-300));
    const bool twin_equal = p.err == p.twin_err;
    fmt::print("{:>5} {:>10.3f} {:>10.3f} {:>11.3f} {:>9.1f}x {:>11.1f}x {:>22.3g}{}{}\n", n, mpfr_s * 1e3, twin_s * 1e3,
               mpmath_s * 1e3, mpmath_s / mpfr_s, mpmath_s / twin_s, worst, worst < 1e-12 ? "" : "  DISAGREE",
               twin_equal ? "" : "  TWIN DIFFERS");
    if (!(worst < 1e-12) || !twin_equal) status = 1;
  }
  benchmark::Shutdown();
  return status;
}
