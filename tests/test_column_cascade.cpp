// The checks' order down a column (foundation/simd/column_cascade.hpp): the
// many-columns form and the one-column form give the bits of the order
// written out plainly here (blocks of 8 rows summed in order; the block sums
// split by the binary digits of their count, largest piece first, each piece
// a perfect pairwise tree, the pieces added from the last one back), on row
// counts around block and power-of-two edges, and the sum stays within
// METHODOLOGY.md's bound ("Vectorized checks": gamma_{7 + 2 ceil(log2 B)}
// sum |x| for B blocks).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "foundation/simd/column_cascade.hpp"

namespace {

template <class T>
std::vector<T> matrix(int64_t rows, int64_t n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d(1.0, 1.0);  // a mean as N(1,1) data has: large, cancelling-free sums
  std::vector<T> v(static_cast<size_t>(rows * n));
  for (auto& x : v) x = T(d(g));
  return v;
}

template <class T>
T tree(const std::vector<T>& b, size_t lo, size_t len) {
  return len == 1 ? b[lo] : tree(b, lo, len / 2) + tree(b, lo + len / 2, len / 2);
}

// The order written out plainly.
template <class T>
T plain_cascade(const T* x, int64_t rows, int64_t ld) {
  std::vector<T> blocks;
  for (int64_t b0 = 0; b0 < rows; b0 += 8) {
    T block = 0;
    for (int64_t r = b0; r < std::min(b0 + 8, rows); ++r) block += x[r * ld];
    blocks.push_back(block);
  }
  std::vector<T> pieces;  // perfect trees over 2^q blocks, q from the highest binary digit of the count down
  size_t lo = 0;
  for (int q = 62; q >= 0; --q)
    if (blocks.size() >> q & 1) pieces.push_back(tree(blocks, lo, size_t(1) << q)), lo += size_t(1) << q;
  if (pieces.empty()) return T(0);
  T total = pieces.back();
  for (size_t p = pieces.size() - 1; p-- > 0;) total = pieces[p] + total;
  return total;
}

template <class T>
auto bits(T x) { return std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(x); }

template <class T>
void check_orders() {
  constexpr int64_t n = 37;
  for (int64_t rows : {0, 1, 7, 8, 9, 15, 16, 17, 24, 63, 64, 65, 255, 256, 257, 513, 1000, 4099}) {
    const auto x = matrix<T>(rows, n, unsigned(rows) + 7);
    std::vector<T> total(size_t(n), T(-1));
    sdc::column_cascade<T> c(n, total.data());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) c.block()[j] += x[size_t(r * n + j)];
      c.row_done(r, rows);
    }
    const double u = std::ldexp(1.0, -std::numeric_limits<T>::digits);
    const double blocks = std::ceil(double(rows) / 8.0);
    const double h = 7.0 + 2.0 * std::ceil(std::log2(std::max(1.0, blocks)));
    for (int64_t j = 0; j < n; ++j) {
      const T want = plain_cascade(rows ? x.data() + j : nullptr, rows, n);  // no offset on an empty vector's null
      const T one = sdc::cascade_one<T>(rows, [&](int64_t r, T p) { return p + x[size_t(r * n + j)]; });
      EXPECT_EQ(bits(total[size_t(j)]), bits(want)) << rows << " rows, column " << j;
      EXPECT_EQ(bits(one), bits(want)) << rows << " rows, column " << j;
      long double exact = 0, abs_sum = 0;
      for (int64_t r = 0; r < rows; ++r) exact += x[size_t(r * n + j)], abs_sum += std::fabs(x[size_t(r * n + j)]);
      const double bound = h * u / (1 - h * u) * double(abs_sum);
      EXPECT_LE(std::fabs(double(total[size_t(j)] - exact)), bound) << rows << " rows, column " << j;
    }
  }
}

TEST(ColumnCascade, ManyColumnsAndOneColumnGiveThePlainCascadesBits) {
  check_orders<float>();
  check_orders<double>();
}

// The cascade is not the sequential sum (else its error would grow with
// the rows): on 4099 rows of N(1,1) float it differs from it somewhere.
TEST(ColumnCascade, DiffersFromTheSequentialSum) {
  constexpr int64_t rows = 4099, n = 8;
  const auto x = matrix<float>(rows, n, 3);
  int differ = 0;
  for (int64_t j = 0; j < n; ++j) {
    float seq = 0;
    for (int64_t r = 0; r < rows; ++r) seq += x[size_t(r * n + j)];
    differ += seq != sdc::cascade_one<float>(rows, [&](int64_t r, float p) { return p + x[size_t(r * n + j)]; });
  }
  EXPECT_GT(differ, 0);
}

}  // namespace
