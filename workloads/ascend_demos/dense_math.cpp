#include "workloads/ascend_demos/dense_math.hpp"

#include <algorithm>
#include <cstddef>

namespace sdc::demo003 {

void matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n) {
  std::fill(c.begin(), c.end(), 0.0f);
  for (int i = 0; i < m; ++i) {
    float* ci = c.data() + size_t(i) * size_t(n);
    for (int p = 0; p < k; ++p) {
      const float aip = a[size_t(i) * size_t(k) + size_t(p)];
      const float* bp = b.data() + size_t(p) * size_t(n);
      for (int j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}

void matmul_tn(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n) {
  std::fill(c.begin(), c.end(), 0.0f);
  for (int p = 0; p < k; ++p) {
    const float* bp = b.data() + size_t(p) * size_t(n);
    for (int i = 0; i < m; ++i) {
      const float api = a[size_t(p) * size_t(m) + size_t(i)];
      float* ci = c.data() + size_t(i) * size_t(n);
      for (int j = 0; j < n; ++j) ci[j] += api * bp[j];
    }
  }
}

void matmul_nt(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int k, int n) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = 0;
      const float* ai = a.data() + size_t(i) * size_t(k);
      const float* bj = b.data() + size_t(j) * size_t(k);
      for (int p = 0; p < k; ++p) s += ai[p] * bj[p];
      c[size_t(i) * size_t(n) + size_t(j)] = s;
    }
}

}  // namespace sdc::demo003
