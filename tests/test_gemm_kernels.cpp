#include <gtest/gtest.h>

#include <bit>
#include <boost/random/normal_distribution.hpp>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_dispatch.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/random/streams.hpp"

using namespace sdc;

namespace {

template <class T>
std::vector<T> random_matrix(int64_t n, uint64_t seed, const format* round_fmt = nullptr) {
  rng g = make_stream(seed, 0, 0, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> d(0.3, 1.0);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) x = T(round_fmt ? round_to(*round_fmt, d(g)) : d(g));
  return v;
}

// One case's operands and reference product, made once per (type, shape,
// order) and shared by every variant held to it (under the sanitizers the
// reference loops were most of this program's time, once per variant).
template <class T>
struct reference_case {
  std::vector<T> A, B, R;
};
template <class T>
const reference_case<T>& reference_for(gemm_shape s, accumulation_order o) {
  static std::map<std::string, reference_case<T>> cases;
  const std::string key = s.text() + " " + o.text();
  if (const auto it = cases.find(key); it != cases.end()) return it->second;
  reference_case<T> c{random_matrix<T>(s.m * s.k, 1 + s.m), random_matrix<T>(s.k * s.n, 2 + s.n),
                      std::vector<T>(size_t(s.m * s.n), T(-9))};
  gemm_reference(c.A.data(), c.B.data(), c.R.data(), s, o);
  return cases.emplace(key, std::move(c)).first->second;
}

// The active variant's kernel (gemm_fixed_order), or one variant's (at).
template <class T>
void expect_bit_identical(gemm_shape s, accumulation_order o, const gemm_kernel_variant* at = nullptr) {
  const reference_case<T>& r = reference_for<T>(s, o);
  std::vector<T> C(size_t(s.m * s.n), T(-7));
  if (at)
    gemm_fixed_order_at(*at, r.A.data(), r.B.data(), C.data(), s, o);
  else
    gemm_fixed_order(r.A.data(), r.B.data(), C.data(), s, o);
  int64_t mismatches = 0;
  for (size_t i = 0; i < C.size(); ++i)
    if (std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(C[i]) !=
        std::bit_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(r.R[i]))
      ++mismatches;
  EXPECT_EQ(mismatches, 0) << s.text() << " " << o.text() << " " << (at ? at->text() : "(active variant)");
}

const gemm_shape k_odd_shapes[] = {{1, 1, 1}, {7, 7, 7}, {1, 257, 7}, {7, 1, 513}, {13, 33, 17},
                                   {257, 7, 129}, {65, 513, 31}, {100, 300, 257}};
const char* k_orders[] = {"sequential", "kblock(1)", "kblock(16)", "kblock(100)", "kblock(257)", "kblock(300)", "pairwise"};

}  // namespace

TEST(GemmKernels, FixedOrderEqualsReferenceFloat) {
  for (const auto& s : k_odd_shapes)
    for (const char* o : k_orders) expect_bit_identical<float>(s, parse_accumulation(o));
}

TEST(GemmKernels, FixedOrderEqualsReferenceDouble) {
  for (const auto& s : k_odd_shapes)
    for (const char* o : k_orders) expect_bit_identical<double>(s, parse_accumulation(o));
}

// Every SIMD level this CPU can run (scalar always; AVX2; AVX-512), in each
// tuning, whatever the active variant: each against the reference twin, bit
// for bit.
TEST(GemmKernels, EveryVariantThisCpuRunsEqualsReference) {
  const auto variants = supported_gemm_variants();
  EXPECT_EQ(variants.size(), 2 * supported_simd_levels().size());
  for (const gemm_kernel_variant& v : variants) {
    for (const auto& s : k_odd_shapes)
      for (const char* o : k_orders) {
        expect_bit_identical<float>(s, parse_accumulation(o), &v);
        expect_bit_identical<double>(s, parse_accumulation(o), &v);
      }
    // more than one column block (4096 fp32, 2048 fp64 columns) and depth
    // chunk (512 fp32; 256 or 512 fp64 by tuning), whatever they become
    const auto& kf = fixed_order_kernels_for<float>(v);
    const auto& kd = fixed_order_kernels_for<double>(v);
    EXPECT_EQ(kd.depth_chunk, v.tuning == gemm_tuning::intel ? 512 : 256) << v.text();
    expect_bit_identical<float>({13, kf.column_block + 104, kf.depth_chunk + 88}, parse_accumulation("sequential"), &v);
    expect_bit_identical<float>({13, kf.column_block + 104, kf.depth_chunk + 88}, parse_accumulation("kblock(32)"), &v);
    expect_bit_identical<double>({13, kd.column_block + 52, kd.depth_chunk + 44}, parse_accumulation("sequential"), &v);
  }
}

// A panel short at the end of M runs on a tile of its own height (rounded up
// to even): M = 1 .. 29 holds every short height of each tile (14, 12 and 6
// rows) with one or two full panels before it, in each variant, each type.
TEST(GemmKernels, EveryShortPanelHeightEqualsReference) {
  for (const gemm_kernel_variant& v : supported_gemm_variants())
    for (int64_t m = 1; m <= 29; ++m) {
      expect_bit_identical<float>({m, 37, 21}, parse_accumulation("sequential"), &v);
      expect_bit_identical<double>({m, 19, 21}, parse_accumulation("sequential"), &v);
    }
}

// The active variant: the highest level; the tuning as the environment or
// the CPU's vendor says (gemm_kernels.hpp).
TEST(GemmKernels, ActiveVariant) {
  const gemm_kernel_variant v = active_gemm_variant();
  EXPECT_EQ(v.level, active_simd_level());
  const char* env = std::getenv("SDCBENCH_GEMM_TUNING");
  const bool intel = env && *env ? std::string(env) == "intel" : __builtin_cpu_is("intel") != 0;
  EXPECT_EQ(v.tuning, intel ? gemm_tuning::intel : gemm_tuning::generic);
  EXPECT_EQ(gemm_kernel_variant({simd_level::avx512, gemm_tuning::intel}).text(), "avx512+intel");
  EXPECT_EQ(gemm_kernel_variant({simd_level::avx2, gemm_tuning::generic}).text(), "avx2");
}

TEST(GemmKernels, LargeOddShape513) {
  expect_bit_identical<float>({513, 513, 513}, parse_accumulation("sequential"));
  expect_bit_identical<float>({513, 513, 513}, parse_accumulation("kblock(32)"));
  expect_bit_identical<double>({257, 513, 257}, parse_accumulation("sequential"));
}

TEST(GemmKernels, OrdersDifferButOpenBlasAgreesWithinRounding) {
  const gemm_shape s{64, 1024, 64};
  auto A = random_matrix<float>(s.m * s.k, 5), B = random_matrix<float>(s.k * s.n, 6);
  std::vector<float> seq(size_t(s.m * s.n)), blk(seq.size()), blas(seq.size());
  gemm_fixed_order(A.data(), B.data(), seq.data(), s, parse_accumulation("sequential"));
  gemm_fixed_order(A.data(), B.data(), blk.data(), s, parse_accumulation("kblock(32)"));
  gemm_openblas(A.data(), B.data(), blas.data(), s);
  int differ = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    differ += seq[i] != blk[i];
    EXPECT_NEAR(seq[i], blas[i], 1e-3f * (1 + std::fabs(seq[i])));
  }
  EXPECT_GT(differ, 0) << "the orders should round differently on some elements";
}

TEST(GemmKernels, ParseRejects) {
  EXPECT_THROW(parse_accumulation("kblock(0)"), std::exception);
  EXPECT_THROW(parse_accumulation("tree"), std::exception);
  EXPECT_THROW(parse_gemm_shape("12x3"), std::exception);
  EXPECT_THROW(parse_gemm_shape("0x3x4"), std::exception);
  EXPECT_EQ(parse_gemm_shape("128x1024x256").k, 1024);
}

// Incremental fault evaluation: after a fault in A[i][k] only row i of C
// changes, after one in B[k][j] only column j. Recomputing just those elements
// with dot_in_order must give exactly the full recompute's bits, in every
// fixed order (OpenBLAS's order is unknown: the runner recomputes it in full).
template <class T>
void expect_incremental_equals_full(gemm_shape s, accumulation_order o) {
  auto A = random_matrix<T>(s.m * s.k, 11), B = random_matrix<T>(s.k * s.n, 12);
  std::vector<T> full(size_t(s.m * s.n)), inc(full.size());
  gemm_fixed_order(A.data(), B.data(), inc.data(), s, o);  // clean product, then patched
  const int64_t r = s.m / 2, c = s.n / 3, kk = s.k - 1;
  A[size_t(r * s.k + kk)] *= T(-1024);  // fault in A
  gemm_fixed_order(A.data(), B.data(), full.data(), s, o);
  std::vector<T> inc2 = inc;
  for (int64_t j = 0; j < s.n; ++j) inc[size_t(r * s.n + j)] = dot_in_order(A.data() + r * s.k, 1, B.data() + j, s.n, s.k, o);
  gemm_row_fixed_order(A.data(), B.data(), inc2.data(), s, o, r);
  EXPECT_EQ(0, std::memcmp(full.data(), inc.data(), full.size() * sizeof(T))) << "A fault " << s.text() << " " << o.text();
  EXPECT_EQ(0, std::memcmp(full.data(), inc2.data(), full.size() * sizeof(T))) << "A fault, row kernel " << s.text() << " " << o.text();
  B[size_t(kk * s.n + c)] *= T(3.5);  // and a fault in B
  gemm_fixed_order(A.data(), B.data(), full.data(), s, o);
  for (int64_t i = 0; i < s.m; ++i) inc[size_t(i * s.n + c)] = dot_in_order(A.data() + i * s.k, 1, B.data() + c, s.n, s.k, o);
  gemm_col_fixed_order(A.data(), B.data(), inc2.data(), s, o, c);
  EXPECT_EQ(0, std::memcmp(full.data(), inc.data(), full.size() * sizeof(T))) << "B fault " << s.text() << " " << o.text();
  EXPECT_EQ(0, std::memcmp(full.data(), inc2.data(), full.size() * sizeof(T))) << "B fault, column kernel " << s.text() << " " << o.text();
}

TEST(GemmKernels, IncrementalRecomputeIsBitIdentical) {
  for (const auto& s : {gemm_shape{33, 70, 257}, gemm_shape{128, 256, 1024}, gemm_shape{7, 13, 5}})
    for (const char* o : k_orders) {
      expect_incremental_equals_full<float>(s, parse_accumulation(o));
      expect_incremental_equals_full<double>(s, parse_accumulation(o));
    }
}
