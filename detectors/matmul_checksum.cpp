#include "detectors/matmul_checksum.hpp"

#include "harness/formats/format.hpp"

#include <cmath>
#include <vector>

namespace sdc {

checksum_result matmul_checksum_rows(const matmul_operands& g, double factor) {
  checksum_result r;
  std::vector<float> b1(size_t(g.k), 0.0f);  // B e, in fp32
  for (int64_t p = 0; p < g.k; ++p)
    for (int64_t j = 0; j < g.n; ++j) b1[size_t(p)] += g.b[p * g.n + j];
  std::vector<float> cmax(size_t(g.m)), cmean(size_t(g.m)), csum(size_t(g.m)), c1(size_t(g.m));
  float spikiness = INFINITY;
  for (int64_t i = 0; i < g.m; ++i) {
    const float* ci = g.c + i * g.n;
    float s = 0, sa = 0, mx = 0;
    for (int64_t j = 0; j < g.n; ++j) s += ci[j], sa += std::fabs(ci[j]), mx = std::fmax(mx, std::fabs(ci[j]));
    float d = 0;
    for (int64_t p = 0; p < g.k; ++p) d += g.a[i * g.k + p] * b1[size_t(p)];
    csum[size_t(i)] = s, c1[size_t(i)] = d, cmax[size_t(i)] = mx, cmean[size_t(i)] = sa / float(g.n);
    spikiness = std::fmin(spikiness, mx / cmean[size_t(i)]);  // torch.min: NaN rows propagate in the originals; fmin skips them
  }
  const bool spiky = spikiness > 5;
  const float eps = 0x1p-8f;
  for (int64_t i = 0; i < g.m; ++i) {
    const float bound = spiky ? cmax[size_t(i)] * eps * std::sqrt(float(g.n)) : cmean[size_t(i)] * eps * float(g.n);
    const double err = std::fabs(double(csum[size_t(i)]) - double(c1[size_t(i)]));
    const double b = factor * double(bound);
    if (err - b > 1e-20) r.failed = true;
    const double ratio = err / b;
    if (ratio > r.worst_ratio || (r.worst_row < 0 && !std::isnan(ratio))) r.worst_ratio = ratio, r.worst_row = i;
  }
  return r;
}

checksum_result matmul_checksum(const matmul_operands& g, checksum_variant v) {
  if (v == checksum_variant::mindspore) return matmul_checksum_rows(g, 1.0);
  checksum_result r = matmul_checksum_rows(g, 5.0);
  if (!r.failed) return r;
  std::vector<float> c(size_t(g.m * g.n));
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      float s = 0;
      for (int64_t p = 0; p < g.k; ++p) s += g.a[i * g.k + p] * g.b[p * g.n + j];
      c[size_t(i * g.n + j)] = g.bf16 ? float(round_to(bf16(), s)) : s;
    }
  matmul_operands again = g;
  again.c = c.data();
  r.recomputed = true;
  r.recompute_failed = matmul_checksum_rows(again, 5.0).failed;
  r.failed = !r.recompute_failed;  // the clean product fails too: the bound's doing, not a fault's
  return r;
}

}  // namespace sdc
