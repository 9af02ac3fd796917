// The runtime-dispatched row reductions (foundation/simd/reductions.hpp):
// every SIMD level this CPU can run gives the bits of the fixed lane order,
// written out plainly here, and stays within the rounding bound of
// METHODOLOGY.md ("Vectorized checks") of the sequential sums they replaced.
// Odd lengths included (tails of every size, 257, 513, 1000).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "foundation/simd/reductions.hpp"

namespace {

using sdc::reduction_lanes;

const int64_t k_lengths[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 257, 513, 1000, 4099};

template <class T>
std::vector<T> data(int64_t n, unsigned seed, double scale = 1.0) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d(0.0, scale);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = T(d(g));
  return v;
}

template <class T>
bool same(T a, T b) { return std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(a) ==
                              std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(b); }

// The fixed order, plainly: lane l takes j = l (mod L); lanes folded by halves.
template <class T, class F>
T lane_order(int64_t n, F term_into) {
  constexpr int L = reduction_lanes<T>;
  std::vector<T> a(L, T(0));
  for (int64_t j = 0; j < n; ++j) a[size_t(j % L)] = term_into(a[size_t(j % L)], j);
  for (int h = L / 2; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[size_t(l)] += a[size_t(l + h)];
  return a[0];
}

// gamma_k = k u / (1 - k u), u the unit roundoff of T.
template <class T>
double gamma(double k) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  return k * u / (1 - k * u);
}
// |lane order - sequential| <= (gamma_{n-1} + gamma_{ceil(n/L) + log2 L}) sum |terms|.
template <class T>
double bound(int64_t n, double abs_sum) {
  const int L = reduction_lanes<T>;
  return (gamma<T>(double(std::max<int64_t>(n - 1, 0))) + gamma<T>(double((n + L - 1) / L + std::log2(L)))) * abs_sum;
}

template <class T>
void check_level(sdc::simd_level level) {
  const auto& k = sdc::reduction_kernels_for<T>(level);
  for (int64_t n : k_lengths) {
    SCOPED_TRACE(::testing::Message() << sdc::simd_name(level) << " n=" << n << " " << (sizeof(T) == 4 ? "fp32" : "fp64"));
    const auto x = data<T>(n, 1), w = data<T>(n, 2, 100.0), y = data<T>(n, 3);
    T s = -1, sw = -1, d1 = -1, d2 = -1;
    k.sum_and_weighted(x.data(), w.data(), n, &s, &sw);
    k.dot2(x.data(), w.data(), y.data(), n, &d1, &d2);
    EXPECT_TRUE(same(s, lane_order<T>(n, [&](T a, int64_t j) { return T(a + x[size_t(j)]); })));
    EXPECT_TRUE(same(k.sum(x.data(), n), s));
    EXPECT_TRUE(same(sw, lane_order<T>(n, [&](T a, int64_t j) { return std::fma(w[size_t(j)], x[size_t(j)], a); })));
    EXPECT_TRUE(same(d1, lane_order<T>(n, [&](T a, int64_t j) { return std::fma(x[size_t(j)], w[size_t(j)], a); })));
    EXPECT_TRUE(same(d2, lane_order<T>(n, [&](T a, int64_t j) { return std::fma(x[size_t(j)], y[size_t(j)], a); })));
    // Against the sequential reference twins (the loops the kernels replaced).
    T seq_s = 0, seq_sw = 0;
    double abs_s = 0, abs_sw = 0;
    for (int64_t j = 0; j < n; ++j) {
      seq_s += x[size_t(j)], seq_sw = std::fma(w[size_t(j)], x[size_t(j)], seq_sw);
      abs_s += std::fabs(double(x[size_t(j)])), abs_sw += std::fabs(double(w[size_t(j)]) * double(x[size_t(j)]));
    }
    EXPECT_LE(std::fabs(double(s) - double(seq_s)), bound<T>(n, abs_s));
    EXPECT_LE(std::fabs(double(sw) - double(seq_sw)), bound<T>(n, abs_sw));
    // Statistics: max and min exactly std::max / std::min's; the sum is the lane-order sum of T.
    double sum = -1, mx = 0, mn = 0, smx = -INFINITY, smn = INFINITY;
    k.sum_max_min(x.data(), n, &sum, &mx, &mn);
    for (T v : x) smx = std::max(smx, double(v)), smn = std::min(smn, double(v));
    EXPECT_EQ(mx, smx);
    EXPECT_EQ(mn, smn);
    EXPECT_TRUE(same(sum, double(s)));
    // The same, fused with dot2 over the same row: the bits of the two kernels.
    T f1 = -1, f2 = -1;
    double fsum = -1, fmx = 0, fmn = 0;
    k.dot2_sum_max_min(x.data(), w.data(), y.data(), n, &f1, &f2, &fsum, &fmx, &fmn);
    EXPECT_TRUE(same(f1, d1) && same(f2, d2) && same(fsum, sum) && fmx == mx && fmn == mn);
    // A row of C read once: its sums as sum_and_weighted's, and col[j] += x[j]
    // (the bits of a sequential column sum).
    std::vector<T> col = data<T>(n, 5), col_ref = col;
    T cs = -1, csw = -1;
    k.sums_and_column(x.data(), w.data(), n, &cs, &csw, col.data());
    for (int64_t j = 0; j < n; ++j) col_ref[size_t(j)] += x[size_t(j)];
    EXPECT_TRUE(same(cs, s) && same(csw, sw));
    EXPECT_EQ(col, col_ref);
    // Two rows at once (x and z, ld apart): each row's sums as above, the
    // column sums with x's adds, then z's.
    const int64_t ld2 = n + 5;
    std::vector<T> xz = data<T>(ld2 + n, 11);
    std::copy(x.begin(), x.end(), xz.begin());
    const T* z = xz.data() + ld2;
    T zs = -1, zsw = -1, s2[2] = {-1, -1}, sw2[2] = {-1, -1};
    k.sum_and_weighted(z, w.data(), n, &zs, &zsw);
    std::vector<T> col2 = data<T>(n, 5), col2_ref = col2;
    k.sums_and_column2(xz.data(), ld2, w.data(), n, s2, sw2, col2.data());
    for (int64_t j = 0; j < n; ++j) col2_ref[size_t(j)] = (col2_ref[size_t(j)] + x[size_t(j)]) + z[j];
    EXPECT_TRUE(same(s2[0], s) && same(sw2[0], sw) && same(s2[1], zs) && same(sw2[1], zsw));
    EXPECT_EQ(col2, col2_ref);
    s2[0] = s2[1] = sw2[0] = sw2[1] = -1;
    k.sums_and_column2(xz.data(), ld2, w.data(), n, s2, sw2, nullptr);  // no column sums
    EXPECT_TRUE(same(s2[0], s) && same(sw2[0], sw) && same(s2[1], zs) && same(sw2[1], zsw));
    // Column references over rows of a matrix, in row order: the scalar loops' bits.
    const int64_t rows = 5, ld = n + 3;
    const auto m = data<T>(rows * ld, 6), a1 = data<T>(rows, 7), a2 = data<T>(rows, 8);
    std::vector<T> y1 = data<T>(n, 9), y2 = data<T>(n, 10), r1 = y1, r2 = y2;
    k.axpy2_rows(a1.data(), a2.data(), m.data(), ld, rows, n, y1.data(), y2.data());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j)
        r1[size_t(j)] = std::fma(a1[size_t(r)], m[size_t(r * ld + j)], r1[size_t(j)]),
        r2[size_t(j)] = std::fma(a2[size_t(r)], m[size_t(r * ld + j)], r2[size_t(j)]);
    EXPECT_EQ(y1, r1);
    EXPECT_EQ(y2, r2);
    // With ones for a1 (a column cascade's block of rows of A at encoding):
    // y1[j] += x, the add's rounding, over 0 to 9 rows, signed zeros and
    // infinities among the terms.
    for (int64_t rr : {0, 1, 8, 9}) {
      auto mz = data<T>(rr * ld, 12);
      for (size_t e = 0; e < mz.size(); e += 7) mz[e] = e % 3 == 0 ? T(-0.0) : e % 3 == 1 ? T(0.0) : T(-INFINITY);
      const std::vector<T> ones(size_t(rr), T(1)), wr = data<T>(rr, 13);
      std::vector<T> z1 = data<T>(n, 14), z2 = data<T>(n, 15);
      for (size_t e = 0; e < z1.size(); e += 5) z1[e] = T(-0.0);
      std::vector<T> q1 = z1, q2 = z2;
      k.axpy2_rows(ones.data(), wr.data(), mz.data(), ld, rr, n, z1.data(), z2.data());
      for (int64_t r = 0; r < rr; ++r)
        for (int64_t j = 0; j < n; ++j)
          q1[size_t(j)] += mz[size_t(r * ld + j)],
              q2[size_t(j)] = std::fma(wr[size_t(r)], mz[size_t(r * ld + j)], q2[size_t(j)]);
      for (int64_t j = 0; j < n; ++j)
        EXPECT_TRUE(same(z1[size_t(j)], q1[size_t(j)]) && same(z2[size_t(j)], q2[size_t(j)])) << j;
    }
    // Columns' fp64 sums and extrema down the rows (V-ABFT's column moments):
    // the plain loop's bits, NaN and signed zeros among the values.
    for (int64_t rr : {0, 1, 7, 33}) {
      auto mz = data<T>(rr * ld, 16);
      for (size_t e = 0; e < mz.size(); e += 11)
        mz[e] = e % 4 == 0 ? T(-0.0) : e % 4 == 1 ? T(NAN) : e % 4 == 2 ? T(INFINITY) : T(0.0);
      std::vector<double> cs = data<double>(n, 17), cmx = data<double>(n, 18), cmn = data<double>(n, 19);
      for (size_t e = 0; e < cmx.size(); e += 3) cmx[e] = 0.0, cmn[e] = -0.0;
      std::vector<double> rs = cs, rmx = cmx, rmn = cmn;
      k.column_sum_max_min(mz.data(), ld, rr, n, cs.data(), cmx.data(), cmn.data());
      for (int64_t r = 0; r < rr; ++r)
        for (int64_t j = 0; j < n; ++j) {
          const double v = double(mz[size_t(r * ld + j)]);
          rs[size_t(j)] += v, rmx[size_t(j)] = std::max(rmx[size_t(j)], v),
                              rmn[size_t(j)] = std::min(rmn[size_t(j)], v);
        }
      for (int64_t j = 0; j < n; ++j)
        EXPECT_TRUE(same(cs[size_t(j)], rs[size_t(j)]) && same(cmx[size_t(j)], rmx[size_t(j)]) &&
                    same(cmn[size_t(j)], rmn[size_t(j)]))
            << "rows " << rr << " column " << j;
    }
  }
}

TEST(SimdReductions, EveryLevelThisCpuRunsGivesTheFixedOrdersBits) {
  const auto levels = sdc::supported_simd_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), sdc::simd_level::scalar);
  for (auto l : levels) {
    check_level<float>(l);
    check_level<double>(l);
  }
  std::printf("levels tested on this CPU:");
  for (auto l : levels) std::printf(" %s", sdc::simd_name(l));
  std::printf("\n");
}

TEST(SimdReductions, NonFiniteValues) {
  for (auto l : sdc::supported_simd_levels()) {
    const auto& k = sdc::reduction_kernels_for<float>(l);
    std::vector<float> x = data<float>(37, 4), w(37, 1.0f);
    x[20] = std::numeric_limits<float>::quiet_NaN();
    double sum, mx, mn;
    k.sum_max_min(x.data(), 37, &sum, &mx, &mn);
    EXPECT_TRUE(std::isnan(sum)) << sdc::simd_name(l);
    double smx = -INFINITY, smn = INFINITY;
    for (float v : x) smx = std::max(smx, double(v)), smn = std::min(smn, double(v));
    EXPECT_EQ(mx, smx) << "a NaN is never the maximum, as with std::max";
    EXPECT_EQ(mn, smn);
    x[20] = std::numeric_limits<float>::infinity();
    float s, sw;
    k.sum_and_weighted(x.data(), w.data(), 37, &s, &sw);
    EXPECT_EQ(s, std::numeric_limits<float>::infinity());
    std::vector<float> nans(5, std::numeric_limits<float>::quiet_NaN());
    k.sum_max_min(nans.data(), 5, &sum, &mx, &mn);
    EXPECT_EQ(mx, -INFINITY);
    EXPECT_EQ(mn, INFINITY);
  }
}

// A tail shorter than the lanes runs the main loop's body once more on a
// padded block; the pads must leave every lane as it was, -0 included: an FMA
// accumulator becomes -0 when a product underflows (tiny * -tiny), so a
// product of +0 pads added to it would turn it into +0.
template <class T>
void check_signed_zero_tails(sdc::simd_level l) {
  const auto& k = sdc::reduction_kernels_for<T>(l);
  const T tiny = std::numeric_limits<T>::denorm_min();
  for (int64_t n : {int64_t(1), int64_t(5), int64_t(reduction_lanes<T> + 5), int64_t(3 * reduction_lanes<T> - 1)}) {
    SCOPED_TRACE(::testing::Message() << sdc::simd_name(l) << " n=" << n);
    const std::vector<T> x(size_t(n), tiny), w(size_t(n), -tiny), zeros(size_t(n), T(-0.0));
    T s = 1, sw = 1, d1 = 1, d2 = 1;
    k.sum_and_weighted(x.data(), w.data(), n, &s, &sw);
    EXPECT_TRUE(same(sw, lane_order<T>(n, [&](T a, int64_t j) { return std::fma(w[size_t(j)], x[size_t(j)], a); })));
    if (n >= reduction_lanes<T>) {
      EXPECT_TRUE(std::signbit(sw)) << "every lane holds products, each -0";
    }
    k.dot2(x.data(), w.data(), w.data(), n, &d1, &d2);
    EXPECT_TRUE(same(d1, sw) && same(d2, sw));
    std::vector<T> col(size_t(n), T(-0.0));
    T cs = 1, csw = 1;
    k.sums_and_column(x.data(), w.data(), n, &cs, &csw, col.data());
    EXPECT_TRUE(same(csw, sw));
    T s2[2] = {1, 1}, sw2[2] = {1, 1};
    k.sums_and_column2(x.data(), 0, w.data(), n, s2, sw2, col.data());  // the same row twice
    EXPECT_TRUE(same(sw2[0], sw) && same(sw2[1], sw));
    double sum = 1, mx = 0, mn = 0;
    k.sum_max_min(zeros.data(), n, &sum, &mx, &mn);
    EXPECT_TRUE(same(T(sum), lane_order<T>(n, [&](T a, int64_t j) { return T(a + zeros[size_t(j)]); })));
    EXPECT_EQ(mx, 0.0);
    EXPECT_EQ(mn, 0.0);
  }
}

TEST(SimdReductions, TailPadsKeepSignedZeros) {
  for (auto l : sdc::supported_simd_levels()) check_signed_zero_tails<float>(l), check_signed_zero_tails<double>(l);
}

TEST(SimdReductions, LevelNamesAndSupport) {
  EXPECT_EQ(sdc::parse_simd_level("avx2"), sdc::simd_level::avx2);
  EXPECT_THROW(sdc::parse_simd_level("sse9"), std::exception);
  EXPECT_TRUE(sdc::simd_supported(sdc::simd_level::scalar));
  const auto active = sdc::active_simd_level();
  EXPECT_TRUE(sdc::simd_supported(active));
}

}  // namespace
