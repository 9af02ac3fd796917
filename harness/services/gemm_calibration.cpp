#include "harness/services/gemm_calibration.hpp"

#include "foundation/kernels/int8/int8_kernels.hpp"

#include <atomic>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <thread>

#include "foundation/errors.hpp"
#include "foundation/random/distributions.hpp"
#include "harness/results/result_set.hpp"
#include "foundation/simd/reductions.hpp"
#include "foundation/formats/block_scaled.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "injectors/tensor_view.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// Max over rows of |rowsum(C_i) - A_i (B 1)| / |A_i (B 1)|, sums as the checksum
// engine computes them: B 1 (its encoding), A_i (B 1) and the row sum of C_i,
// each along a row in the fixed lane order of the dispatched kernels
// (foundation/simd/reductions.hpp), in accumulator precision, FMA for the reference.
// Rows whose checksum overflowed the checked format are counted in *overflows
// and left out of the maximum (fp16 checksums of large positive products do).
template <class T>
double max_relative_row_error(const format& dtype, int64_t n, accumulation_order order, bool fused, rng& g,
                              int64_t* overflows) {
  const distribution d = parse_distribution("abs_normal(1,1)");
  std::vector<T> A(static_cast<size_t>(n * n)), B(A.size()), acc(A.size());
  for (auto& x : A) x = round_into<T>(dtype, d.sample(g));
  for (auto& x : B) x = round_into<T>(dtype, d.sample(g));
  gemm_run(A.data(), B.data(), acc.data(), {n, n, n}, order);
  const bool rounds = !fused && dtype.bits < int(8 * sizeof(T));
  std::vector<T> r(static_cast<size_t>(n), T(0)), row(static_cast<size_t>(n));
  const auto& kern = active_reduction_kernels<T>();
  for (int64_t k = 0; k < n; ++k) r[size_t(k)] = kern.sum(&B[size_t(k * n)], n);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    T ref = 0, unused = 0;
    kern.dot2(&A[size_t(i * n)], r.data(), r.data(), n, &ref, &unused);
    if (rounds) ref = round_into<T>(dtype, double(ref));  // the checksum column is an output of the encoded GEMM
    for (int64_t j = 0; j < n; ++j) row[size_t(j)] = rounds ? round_into<T>(dtype, double(acc[size_t(i * n + j)])) : acc[size_t(i * n + j)];
    const T s = kern.sum(row.data(), n);
    if (!std::isfinite(double(s)) || !std::isfinite(double(ref))) {
      ++*overflows;
      continue;
    }
    worst = std::max(worst, std::fabs(double(s) - double(ref)) / std::fabs(double(ref)));
  }
  return worst;
}

// The same statistic on a block-scaled GEMM (issue 69): |N(1,1)| inputs
// quantized along K, the hardware's product (block_gemm.hpp) in fp32, the
// check's checksums on the dequantized inputs (encode after_quant) against
// the fp32 output (check before output quantization): the e_max of
// METHODOLOGY's "Block-scaled GEMM".
double max_relative_row_error_block(const block_format& f, int64_t n, rng& g, int64_t* overflows) {
  const distribution d = parse_distribution("abs_normal(1,1)");
  std::vector<float> A(static_cast<size_t>(n * n)), B(A.size()), C(A.size());
  for (auto& x : A) x = float(d.sample(g));
  for (auto& x : B) x = float(d.sample(g));
  const block_tensor Aq = quantize(A, n, n, 1, f), Bq = quantize(B, n, n, 0, f);
  block_gemm(Aq, Bq, C.data());
  const std::vector<float> Ad = dequantize(Aq), Bd = dequantize(Bq);
  const auto& kern = active_reduction_kernels<float>();
  std::vector<float> r(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) r[size_t(k)] = kern.sum(&Bd[size_t(k * n)], n);
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    float ref = 0, unused = 0;
    kern.dot2(&Ad[size_t(i * n)], r.data(), r.data(), n, &ref, &unused);
    const float s = kern.sum(&C[size_t(i * n)], n);
    if (!std::isfinite(double(s)) || !std::isfinite(double(ref))) {
      ++*overflows;
      continue;
    }
    worst = std::max(worst, std::fabs(double(s) - double(ref)) / std::fabs(double(ref)));
  }
  return worst;
}

bool is_block_format_name(const std::string& name) {
  for (const auto& f : all_block_formats())
    if (f.name == name) return true;
  return false;
}

struct fit {
  double a = 0, b = 0, r2 = 0;
};
fit fit_sqrt(const std::vector<double>& n, const std::vector<double>& y) {
  fit f;
  const size_t m = n.size();
  if (m < 2) return f;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < m; ++i) {
    const double x = std::sqrt(n[i]);
    sx += x, sy += y[i], sxx += x * x, sxy += x * y[i];
  }
  const double den = double(m) * sxx - sx * sx;
  f.a = (double(m) * sxy - sx * sy) / den;
  f.b = (sy - f.a * sx) / double(m);
  double ss_res = 0, ss_tot = 0, mean = sy / double(m);
  for (size_t i = 0; i < m; ++i) {
    const double e = y[i] - (f.a * std::sqrt(n[i]) + f.b);
    ss_res += e * e, ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1.0;
  return f;
}

}  // namespace

json calibrate_emax(const calibration_request& req) {
  const std::string started = now_iso8601();
  json entries = json::array();
  for (const auto& dname : req.dtypes) {
    // A block-scaled dtype's checks see fp32 values, its output is the fp32 accumulator, its blocks added in one order.
    const block_format* block = is_block_format_name(dname) ? &block_format_by_name(dname) : nullptr;
    const format& dtype = block ? fp32() : format_by_name(dname);
    for (const auto& aname : req.accumulations) {
      const auto order = parse_accumulation(aname);
      if (block && order.k != accumulation_order::kind::sequential) continue;
      for (const auto& point : req.points) {
        const bool fused = point == "fused";
        if (fused && (dtype.bits == 32 || dtype.bits == 64)) continue;  // the output is the accumulator
        const format& checked = fused ? fp32() : dtype;
        json sizes = json::array();
        std::vector<double> ns, emaxes;
        for (int64_t n : req.sizes) {
          std::vector<double> worst(static_cast<size_t>(req.trials), 0.0);
          std::vector<int64_t> overflow(static_cast<size_t>(req.trials), 0);
          std::atomic<int64_t> next{0};
          auto work = [&] {
            for (int64_t t; (t = next.fetch_add(1)) < req.trials;) {
              rng g = make_stream(req.seed, fnv1a64(fmt::format("{};{};{};{}", dname, aname, point, n)), uint64_t(t),
                                  trial_kind::clean, stream_purpose::data);
              worst[size_t(t)] = block ? max_relative_row_error_block(*block, n, g, &overflow[size_t(t)])
                                 : dtype.bits == 64 ? max_relative_row_error<double>(dtype, n, order, fused, g, &overflow[size_t(t)])
                                                  : max_relative_row_error<float>(dtype, n, order, fused, g, &overflow[size_t(t)]);
            }
          };
          std::vector<std::thread> pool;
          for (int i = 1; i < req.threads; ++i) pool.emplace_back(work);
          work();
          for (auto& th : pool) th.join();
          double mx = 0;
          int64_t overflows = 0;
          for (double w : worst) mx = std::max(mx, w);
          for (int64_t o : overflow) overflows += o;
          const bool measured = !(mx == 0 && overflows > 0);  // every checksum overflowed: nothing measured
          // A block format whose every check was exact here (MXFP4's small
          // integer products on |N(1,1)|) measured no rounding at all; an e_max
          // of 0 would flag the first rounding another input brings. Ours: floored
          // at one rounding of the checked format, u, plus the margin.
          const bool floored = block && measured && mx == 0;
          const double e = (floored ? checked.unit_roundoff() : mx) * (1 + req.margin);
          if (measured) ns.push_back(double(n)), emaxes.push_back(e);
          sizes.push_back({{"n", n}, {"trials", req.trials}, {"max_relative_error", measured ? json(mx) : json(nullptr)},
                           {"e_max", measured ? json(e) : json(nullptr)},
                           {"checksum_overflows", overflows},
                           {"floored_at_u", floored},
                           {"e_max_over_u", measured ? json(e / checked.unit_roundoff()) : json(nullptr)}});
          if (req.progress) std::fprintf(stderr, "\r%s %s %s n=%lld done   ", dname.c_str(), aname.c_str(), point.c_str(), (long long)n);
        }
        double mean = 0, var = 0, overall = 0;
        for (double e : emaxes) mean += e / double(emaxes.size()), overall = std::max(overall, e);
        for (double e : emaxes) var += (e - mean) * (e - mean) / double(emaxes.size());
        const fit f = fit_sqrt(ns, emaxes);
        entries.push_back({{"dtype", dname},
                           {"accumulation", aname},
                           {"point", fused ? "fused" : "offline"},
                           {"u", checked.unit_roundoff()},
                           {"sizes", sizes},
                           {"e_max", overall},
                           {"e_max_over_u", overall / checked.unit_roundoff()},
                           {"cv", mean > 0 ? std::sqrt(var) / mean : 0.0},
                           {"r2_sqrt_n", f.r2},
                           {"fit_sqrt_n", {{"a", f.a}, {"b", f.b}}}});
      }
    }
  }
  if (req.progress) std::fprintf(stderr, "\n");
  json out;
  out["schema"] = "sdcbench.emax/1";
  out["protocol"] = {{"distribution", "abs_normal(1,1)"}, {"margin", req.margin}, {"trials", req.trials},
                     {"seed", req.seed}, {"statistic", "max over rows and trials of |rowsum(C_i) - A_i(B 1)| / |A_i(B 1)|"}};
  out["provenance"] = provenance({}, req.threads, req.seed, started, int8_gemm_kernel_name());
  out["entries"] = entries;
  return out;
}

}  // namespace sdc
