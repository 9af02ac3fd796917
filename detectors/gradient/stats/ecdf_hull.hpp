// Convex hulls of an ECDF: the points (x_i, i) of a sorted sample, i in
// [lo, hi]. The lower hull is the greatest convex minorant, the upper hull the
// least concave majorant (vertex indices, ascending; collinear points dropped).
// Shared by the dip test and the UU-test.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace sdc::stats {

inline void ecdf_hull(std::span<const double> x, int64_t lo, int64_t hi, bool lower, std::vector<int64_t>& out) {
  out.clear();
  for (int64_t c = lo; c <= hi; ++c) {
    while (out.size() >= 2) {
      const int64_t a = out[out.size() - 2], b = out.back();
      // cross((b - a), (c - a)) for the points (x_i, i)
      const double cr =
          (x[size_t(b)] - x[size_t(a)]) * double(c - a) - double(b - a) * (x[size_t(c)] - x[size_t(a)]);
      if (lower ? cr <= 0 : cr >= 0)
        out.pop_back();
      else
        break;
    }
    out.push_back(c);
  }
}

}  // namespace sdc::stats
