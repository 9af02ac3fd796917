#include "detectors/matmul_checksum.hpp"

#include <cmath>
#include <vector>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {
namespace {

float in_c(float x, bool bf) { return bf ? float(round_to(bf16(), double(x))) : x; }

struct row_stats {
  std::vector<float> error, cmax, cmean;
  float ratio_min = INFINITY;  // NaN if any row's ratio is NaN (torch.min, the NPU's ReduceMin)
};

std::vector<float> row_means(const float* c, int64_t m, int64_t n, bool bf) {
  std::vector<float> mean(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    float sa = 0;
    for (int64_t j = 0; j < n; ++j) sa += std::fabs(c[i * n + j]);
    mean[size_t(i)] = in_c(sa / float(n), bf);
  }
  return mean;
}

row_stats stats(const matmul_operands& g) {
  row_stats s;
  std::vector<float> b1(size_t(g.k), 0.0f);  // B e, in fp32
  for (int64_t p = 0; p < g.k; ++p)
    for (int64_t j = 0; j < g.n; ++j) b1[size_t(p)] += g.b[p * g.n + j];
  s.cmean = row_means(g.c, g.m, g.n, g.bf16);
  for (int64_t i = 0; i < g.m; ++i) {
    const float* ci = g.c + i * g.n;
    float sum = 0, mx = 0, d = 0;
    for (int64_t j = 0; j < g.n; ++j) sum += ci[j], mx = std::isnan(mx) || std::isnan(ci[j]) ? NAN : std::fmax(mx, std::fabs(ci[j]));
    for (int64_t p = 0; p < g.k; ++p) d += g.a[i * g.k + p] * b1[size_t(p)];
    s.error.push_back(std::fabs(sum - d));
    s.cmax.push_back(mx);
    const float ratio = in_c(mx / s.cmean[size_t(i)], g.bf16);
    s.ratio_min = std::isnan(ratio) || std::isnan(s.ratio_min) ? NAN : std::fmin(s.ratio_min, ratio);
  }
  return s;
}

void note_worst(checksum_result& r, int64_t i, double err, double bound) {
  const double ratio = err / bound;
  const bool nan_first = std::isnan(ratio) && !std::isnan(r.worst_ratio);
  if (r.worst_row < 0 || nan_first || ratio > r.worst_ratio) r.worst_ratio = ratio, r.worst_row = i;
}

// checksum_kernel.cc CalculateErrorTotal + LaunchKernelAsync; checksum.cc CheckSumViaCallback.
checksum_result mindspore_checksum(const matmul_operands& g, const row_stats& s) {
  checksum_result r;
  const bool spiky = s.ratio_min >= 5.0f;  // GreaterEqualScalar; false for NaN
  const float k = spiky ? std::sqrt(float(g.n)) * (1.0f / 256) : float(g.n) * (1.0f / 256);
  float worst = -INFINITY;
  for (int64_t i = 0; i < g.m; ++i) {
    const float bound = in_c((spiky ? s.cmax : s.cmean)[size_t(i)] * k, g.bf16);
    const float diff = s.error[size_t(i)] - bound;
    worst = std::isnan(diff) || std::isnan(worst) ? NAN : std::fmax(worst, diff);  // ReduceMax propagates NaN
    note_worst(r, i, s.error[size_t(i)], bound);
  }
  r.failed = !(worst < 1e-20f);
  return r;
}

// checksum.py _matmul_checksum.
checksum_result torch_npu_checksum(const matmul_operands& g, const row_stats& s) {
  checksum_result r;
  const bool spiky = s.ratio_min > 5.0f;
  const float k = spiky ? float(std::sqrt(double(g.n))) : float(g.n);
  for (int64_t i = 0; i < g.m; ++i) {
    const float bound = in_c(in_c((spiky ? s.cmax : s.cmean)[size_t(i)] * 0x1p-8f, g.bf16) * k, g.bf16);
    if (s.error[size_t(i)] - 5 * bound > 5e-20f) r.rows_flagged = true;  // false for NaN
    note_worst(r, i, s.error[size_t(i)], 5.0 * bound);
  }
  if (!r.rows_flagged) return r;
  std::vector<float> c(size_t(g.m * g.n));  // matmul(a, b, out=c): the training GEMMs' kernel
  gemm_fixed_order(g.a, g.b, c.data(), {g.m, g.n, g.k}, accumulation_order{});
  for (float& x : c) x = in_c(x, g.bf16);
  const std::vector<float> mean2 = row_means(c.data(), g.m, g.n, g.bf16);
  for (int64_t i = 0; i < g.m; ++i) r.failed |= !(s.cmean[size_t(i)] == mean2[size_t(i)]);  // c_mean != c_mean2
  return r;
}

}  // namespace

checksum_result matmul_checksum(const matmul_operands& g, checksum_variant v) {
  const row_stats s = stats(g);
  return v == checksum_variant::mindspore ? mindspore_checksum(g, s) : torch_npu_checksum(g, s);
}

}  // namespace sdc
