// Speed of the ground truth: sdcbench's MPFR row-check errors
// (harness/ground_truth, the exact A_i (B 1) per row against the fp64 row sum
// of C, as the tightness suites use it) against the same computation in
// mpmath at 100 decimal digits, which 001 used (Debian's python3-mpmath, run by
// bench/mpmath_row_check.py on the same matrices, timed inside python). The
// two must agree (relative difference of every row's error below 1e-12), and
// the ratio mpmath / MPFR is printed, measured in this run. Goal (issue 14):
// >= 50x. fp64, U(-1, 1), square shapes, one thread.
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
#include "harness/ground_truth/exact_dot.hpp"
#include "harness/random/streams.hpp"
#include "workloads/gemm/gemm_kernels.hpp"

namespace {

using namespace sdc;

const int64_t k_sizes[] = {64, 128, 256};

struct problem {
  int64_t n;
  std::vector<double> A, B, C, err;
  explicit problem(int64_t size) : n(size) {
    rng g = make_stream(1, uint64_t(size), 0, trial_kind::clean, stream_purpose::data);
    boost::random::uniform_real_distribution<double> u(-1, 1);
    A.resize(size_t(n * n)), B.resize(size_t(n * n)), C.resize(size_t(n * n)), err.resize(size_t(n));
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
  benchmark::Initialize(&argc, argv);
  sdc::bench::ratio_reporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  fmt::print("\nGround truth: MPFR (256 bits, mpfr_sum) vs mpmath (100 digits, fsum) on the same fp64 matrices, one thread,\n"
             "row-check errors |fp64 row sum of C - exact A_i (B 1)| of every row (this run; mpmath: best of 3):\n");
  fmt::print("{:>5} {:>12} {:>12} {:>10} {:>22}\n", "n", "MPFR ms", "mpmath ms", "ratio", "max rel. difference");
  int status = 0;
  for (int64_t n : k_sizes) {
    const double mpfr_s = rep.seconds(fmt::format("mpfr_row_check/{}", n));
    if (mpfr_s <= 0) continue;
    auto& p = cached(n);
    std::vector<double> twin;
    const double mpmath_s = run_mpmath(p, twin);
    double worst = twin.size() == p.err.size() ? 0.0 : INFINITY;
    for (size_t i = 0; i < twin.size() && i < p.err.size(); ++i)
      worst = std::max(worst, std::fabs(twin[i] - p.err[i]) / std::max(std::fabs(p.err[i]), 1e-300));
    fmt::print("{:>5} {:>12.3f} {:>12.3f} {:>9.1f}x {:>22.3g}{}\n", n, mpfr_s * 1e3, mpmath_s * 1e3, mpmath_s / mpfr_s, worst,
               worst < 1e-12 ? "" : "  DISAGREE");
    if (!(worst < 1e-12)) status = 1;
  }
  benchmark::Shutdown();
  return status;
}
