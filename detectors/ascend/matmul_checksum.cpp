#include "detectors/ascend/matmul_checksum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {
namespace {

float in_c(float x, bool bf) { return bf ? float(round_to(bf16(), double(x))) : x; }

// ---- The reference twin: one row after another, each sum in order. ----

float row_mean(const float* ci, int64_t n, bool bf) {
  float sa = 0;
  for (int64_t j = 0; j < n; ++j) sa += std::fabs(ci[j]);
  return in_c(sa / float(n), bf);
}

// Rows are numbered over the whole call (row i of batch t is t m + i, where A
// and C hold it); only B e is per batch.
checksum_rows rows_reference(const matmul_operands& g) {
  checksum_rows s;
  for (int64_t t = 0; t < g.batch; ++t) {
    std::vector<float> b1(size_t(g.k), 0.0f);  // B e, in fp32
    const float* b = g.b + t * g.k * g.n;
    for (int64_t p = 0; p < g.k; ++p)
      for (int64_t j = 0; j < g.n; ++j) b1[size_t(p)] += b[p * g.n + j];
    for (int64_t i = t * g.m; i < (t + 1) * g.m; ++i) {
      const float* ci = g.c + i * g.n;
      float sum = 0, mx = 0, d = 0;
      for (int64_t j = 0; j < g.n; ++j) sum += ci[j], mx = std::isnan(mx) || std::isnan(ci[j]) ? NAN : std::fmax(mx, std::fabs(ci[j]));
      for (int64_t p = 0; p < g.k; ++p) d += g.a[i * g.k + p] * b1[size_t(p)];
      s.error.push_back(std::fabs(sum - d));
      s.cmax.push_back(mx);
      s.cmean.push_back(row_mean(ci, g.n, g.bf16));
    }
  }
  return s;
}

// ---- The fast twin: the same sums, each still in order, for R rows at once. ----
// Each row's sums are sequential chains (an add's latency per element); R
// independent rows interleaved fill the adder. Every chain adds the same
// terms in the same order as the reference's, so the bits are the same
// (tests/test_silent_check.cpp pins it). The maximum needs no order: |x|'s
// bits, read as an unsigned integer, order non-NaN values as the floats do,
// and any NaN's exceed every infinity's, so one vectorized integer maximum
// per row gives max |C_i|, or says the row holds a NaN.
constexpr int k_rows = 8;

template <int R>
void sum_rows(const float* x, int64_t n, float* out) {  // out[r] = sum_j x[r n + j], in order
  float acc[R] = {};
  for (int64_t j = 0; j < n; ++j)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[r] += x[r * n + j];
  for (int r = 0; r < R; ++r) out[r] = acc[r];
}

float abs_max_or_nan(const float* x, int64_t n) {
  uint32_t top = 0;
  for (int64_t j = 0; j < n; ++j) top = std::max(top, std::bit_cast<uint32_t>(x[j]) & 0x7fffffffu);
  return top > 0x7f800000u ? NAN : std::bit_cast<float>(top);
}

// Rows [i, i+R) of C: sum, max |.| (NaN if any is) and mean |.|; d = A_i (B e).
template <int R>
void c_rows(const matmul_operands& g, const float* b1, int64_t i, checksum_rows& s) {
  const int64_t n = g.n, k = g.k;
  const float* c = g.c + i * n;
  float sum[R] = {}, sa[R] = {}, d[R] = {};
  for (int64_t j = 0; j < n; ++j)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) sum[r] += c[r * n + j], sa[r] += std::fabs(c[r * n + j]);
  const float* a = g.a + i * k;
  for (int64_t p = 0; p < k; ++p)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) d[r] += a[r * k + p] * b1[p];
  for (int r = 0; r < R; ++r) {
    s.error[size_t(i + r)] = std::fabs(sum[r] - d[r]);
    s.cmax[size_t(i + r)] = abs_max_or_nan(c + r * n, n);
    s.cmean[size_t(i + r)] = in_c(sa[r] / float(n), g.bf16);
  }
}

checksum_rows rows_fast(const matmul_operands& g) {
  checksum_rows s;
  const size_t rows = size_t(g.batch * g.m);
  s.error.resize(rows), s.cmax.resize(rows), s.cmean.resize(rows);
  std::vector<float> b1(size_t(g.k));
  for (int64_t t = 0; t < g.batch; ++t) {  // a block of rows stays within its batch (its B e)
    const float* b = g.b + t * g.k * g.n;
    int64_t p = 0;
    for (; p + k_rows <= g.k; p += k_rows) sum_rows<k_rows>(b + p * g.n, g.n, &b1[size_t(p)]);
    for (; p < g.k; ++p) sum_rows<1>(b + p * g.n, g.n, &b1[size_t(p)]);
    int64_t i = t * g.m;
    for (; i + k_rows <= (t + 1) * g.m; i += k_rows) c_rows<k_rows>(g, b1.data(), i, s);
    for (; i < (t + 1) * g.m; ++i) c_rows<1>(g, b1.data(), i, s);
  }
  return s;
}

// ---- The verdicts (both twins): O(m) on the rows' statistics. ----

float ratio_min(const checksum_rows& s, bool bf) {  // NaN if any row's ratio is (torch.min, the NPU's ReduceMin)
  float lo = INFINITY;
  for (size_t i = 0; i < s.cmax.size(); ++i) {
    const float ratio = in_c(s.cmax[i] / s.cmean[i], bf);
    lo = std::isnan(ratio) || std::isnan(lo) ? NAN : std::fmin(lo, ratio);
  }
  return lo;
}

void note_worst(checksum_result& r, int64_t i, double err, double bound) {
  const double ratio = err / bound;
  const bool nan_first = std::isnan(ratio) && !std::isnan(r.worst_ratio);
  if (r.worst_row < 0 || nan_first || ratio > r.worst_ratio) r.worst_ratio = ratio, r.worst_row = i;
}

// checksum_kernel.cc CalculateErrorTotal + LaunchKernelAsync; checksum.cc CheckSumViaCallback.
checksum_result mindspore_checksum(const matmul_operands& g, const checksum_rows& s) {
  checksum_result r;
  const bool spiky = ratio_min(s, g.bf16) >= 5.0f;  // GreaterEqualScalar; false for NaN
  const float k = spiky ? std::sqrt(float(g.n)) * (1.0f / 256) : float(g.n) * (1.0f / 256);
  float worst = -INFINITY;
  for (int64_t i = 0; i < g.batch * g.m; ++i) {
    const float bound = in_c((spiky ? s.cmax : s.cmean)[size_t(i)] * k, g.bf16);
    const float diff = s.error[size_t(i)] - bound;
    worst = std::isnan(diff) || std::isnan(worst) ? NAN : std::fmax(worst, diff);  // ReduceMax propagates NaN
    note_worst(r, i, s.error[size_t(i)], bound);
  }
  r.failed = !(worst < 1e-20f);
  return r;
}

// checksum.py _matmul_checksum: one decision over the whole call (every batch's rows).
checksum_result torch_npu_checksum(const matmul_operands& g, const checksum_rows& s) {
  checksum_result r;
  const int64_t rows = g.batch * g.m;
  const bool spiky = ratio_min(s, g.bf16) > 5.0f;  // torch.min over every row of the call
  const float k = spiky ? float(std::sqrt(double(g.n))) : float(g.n);
  for (int64_t i = 0; i < rows; ++i) {
    const float bound = in_c(in_c((spiky ? s.cmax : s.cmean)[size_t(i)] * 0x1p-8f, g.bf16) * k, g.bf16);
    if (s.error[size_t(i)] - 5 * bound > 5e-20f) r.rows_flagged = true;  // false for NaN
    note_worst(r, i, s.error[size_t(i)], 5.0 * bound);
  }
  if (!r.rows_flagged) return r;
  // matmul(a, b, out=c) on the same device: the training GEMMs' kernel, each
  // batch's product. It is always computed (the original's cost); where the
  // device repeats the fault, what it gives is C's bits again.
  std::vector<float> c(size_t(rows * g.n), 0.0f);
  if (g.k > 0 && g.n > 0)
    for (int64_t t = 0; t < g.batch && g.m > 0; ++t)
      gemm_fixed_order(g.a + t * g.m * g.k, g.b + t * g.k * g.n, c.data() + t * g.m * g.n, {g.m, g.n, g.k}, accumulation_order{});
  for (float& x : c) x = in_c(x, g.bf16);
  const float* again = g.recompute_repeats ? g.c : c.data();
  // c_mean != c_mean2. Only the means: the reference's loop on both twins (the
  // fast twin's means equal its bits, FastTwinEqualsTheReferenceBitForBit),
  // O(mn) beside the O(mnk) recompute; NaN != NaN, so a repeated NaN row still fails.
  for (int64_t i = 0; i < rows; ++i) r.failed |= !(s.cmean[size_t(i)] == row_mean(again + i * g.n, g.n, g.bf16));
  return r;
}

checksum_result decide(const matmul_operands& g, const checksum_rows& s, checksum_variant v) {
  return v == checksum_variant::mindspore ? mindspore_checksum(g, s) : torch_npu_checksum(g, s);
}

}  // namespace

matmul_operands checksum_operands(const gemm_record& g) {
  matmul_operands o{g.m, g.k, g.n, g.a.data(), g.b.data(), g.c.data(), g.bf16};
  o.batch = g.batch, o.recompute_repeats = g.fault_changed && g.fault_recurs;
  return o;
}

checksum_scope parse_checksum_scope(const std::string& text) {
  return text == "linear" ? checksum_scope::linear : checksum_scope::original;  // the param_spec's choices
}

bool checks_attention(checksum_variant v, checksum_scope s) {
  return v == checksum_variant::torch_npu && s == checksum_scope::original;
}

const std::vector<gemm_record>& checksum_records(const training_step& s, checksum_variant v, checksum_scope sc) {
  return checks_attention(v, sc) ? s.attention : s.gemms;
}

detector_needs checksum_needs(checksum_variant v, checksum_scope s, bool on) {
  if (!on) return {};
  if (checks_attention(v, s)) return {.attention_gemms = true};
  return {.gemms = true};
}

checksum_rows matmul_checksum_rows(const matmul_operands& g) { return rows_fast(g); }
checksum_rows matmul_checksum_rows_reference(const matmul_operands& g) { return rows_reference(g); }

checksum_result matmul_checksum(const matmul_operands& g, checksum_variant v) { return decide(g, rows_fast(g), v); }
checksum_result matmul_checksum_reference(const matmul_operands& g, checksum_variant v) {
  return decide(g, rows_reference(g), v);
}

}  // namespace sdc
