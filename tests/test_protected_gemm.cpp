// The protected GEMM (issue 34; foundation/kernels/gemm/gemm_check_sums.hpp)
// against its reference twin, the separate check:
//   - at every SIMD level the CPU runs, the GEMM's C and every sum it
//     computes equal, bit for bit, what the separate check's kernels compute
//     from A, B and that C (foundation/simd/reductions.hpp's lanes,
//     column_cascade.hpp's cascade): the sums of detectors/gemm/abft_checksums.s
//     compute_all, written out here the way compute_all writes them;
//   - through a detector, protected_gemm's verdict and explain() equal
//     verify()'s on the same C, clean and with a corrupted row of A or
//     column of B, for 001's policies that have a fused form;
// on odd shapes: edge tiles, several depth chunks (k > 512 fp32, 256 fp64),
// several column blocks (n > 4096 fp32, 2048 fp64), depth chunks that are not a whole number of lanes
// (kblock(24)), values with signed zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <boost/random/normal_distribution.hpp>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_check_sums.hpp"
#include "foundation/kernels/gemm/gemm_dispatch.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/simd/column_cascade.hpp"
#include "foundation/simd/reductions.hpp"

namespace {

using namespace sdc;

template <class T>
uint64_t bits_of(T x) {
  if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(x);
  else return std::bit_cast<uint64_t>(x);
}

template <class T>
struct problem {
  gemm_shape s;
  std::vector<T> A, B, wn, br1, br2, ca1, ca2;
  problem(gemm_shape shape, uint64_t seed) : s(shape) {
    rng g = make_stream(seed, 2, 3, trial_kind::clean, stream_purpose::data);
    boost::random::normal_distribution<double> d(0, 1);
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n));
    for (auto& x : A) x = T(d(g));
    for (auto& x : B) x = T(d(g));
    for (size_t e = 0; e < A.size(); e += 7) A[e] = e % 2 ? T(0) : -T(0);  // signed zeros in the lanes
    wn.resize(size_t(s.n)), br1.resize(size_t(s.k)), br2.resize(size_t(s.k)), ca1.resize(size_t(s.k)), ca2.resize(size_t(s.k));
    for (int64_t j = 0; j < s.n; ++j) wn[size_t(j)] = T(j + 1);
    for (int64_t k = 0; k < s.k; ++k) br1[size_t(k)] = T(d(g)), br2[size_t(k)] = T(d(g)), ca1[size_t(k)] = T(d(g)), ca2[size_t(k)] = T(d(g));
  }
  check_sums_spec<T> spec() const { return {br1.data(), br2.data(), wn.data(), ca1.data(), ca2.data(), true}; }
};

// The separate check's sums of C = A B: compute_all's kernels and orders.
template <class T>
check_sums<T> separate(const problem<T>& p, const std::vector<T>& C) {
  const auto [m, n, k] = p.s;
  const auto& kern = active_reduction_kernels<T>();
  check_sums<T> r;
  for (auto* v : {&r.s1, &r.s2, &r.row_ref, &r.row_ref2}) v->resize(size_t(m));
  r.a_sum.resize(size_t(m)), r.a_max.resize(size_t(m)), r.a_min.resize(size_t(m));
  r.c1.resize(size_t(n)), r.col_ref.resize(size_t(n)), r.col_ref2.resize(size_t(n));
  column_cascade<T> col(n, r.c1.data());
  for (int64_t i = 0; i < m; ++i) {
    const size_t u = size_t(i);
    kern.dot2_sum_max_min(p.A.data() + i * k, p.br1.data(), p.br2.data(), k, &r.row_ref[u], &r.row_ref2[u], &r.a_sum[u],
                          &r.a_max[u], &r.a_min[u]);
    kern.sums_and_column(C.data() + i * n, p.wn.data(), n, &r.s1[u], &r.s2[u], col.block());
    col.row_done(i, m);
  }
  column_cascade<T> ref1(n, r.col_ref.data()), ref2(n, r.col_ref2.data());
  for (int64_t kk = 0; kk < k; kk += k_block_rows) {
    const int64_t rows = std::min(k_block_rows, k - kk);
    kern.axpy2_rows(&p.ca1[size_t(kk)], &p.ca2[size_t(kk)], p.B.data() + kk * n, n, rows, n, ref1.block(), ref2.block());
    ref1.row_done(kk + rows - 1, k), ref2.row_done(kk + rows - 1, k);
  }
  return r;
}

template <class T>
void expect_same(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t e = 0; e < a.size(); ++e) ASSERT_EQ(bits_of(a[e]), bits_of(b[e])) << what << "[" << e << "]: " << a[e] << " vs " << b[e];
}

// {m, n, k}. A's rows are always whole (K within one depth chunk or several:
// 513, 520 and 700; 259 and 300 too for fp64); both ways the kernel takes C's sums: whole
// rows by the separate check's row kernels where N fits one column block
// (4096 fp32 columns, 2048 fp64), lanes from the tiles otherwise (N = 4103,
// 4110; 2050 for fp64). And the shapes where no tile runs (K = 0: C and its
// sums are zero; N = 0).
const gemm_shape k_shapes[] = {{1, 1, 1},   {7, 13, 5},   {6, 32, 8},     {37, 101, 259}, {13, 4103, 300},
                               {100, 64, 64}, {97, 45, 513}, {2, 2050, 3},  {48, 96, 520},  {30, 4110, 40},
                               {4, 4100, 0},  {4, 9, 0},     {4, 0, 9},     {13, 1031, 300}, {9, 70, 700},
                               {205, 40, 530}};  // the last: more than one block of A's rows (96, 192 or 196)

template <class T>
void sums_at_every_level() {
  // Both ways of taking C's sums stay covered if the column block changes.
  for (const gemm_kernel_variant& v : supported_gemm_variants()) {
    const int64_t block = fixed_order_kernels_for<T>(v).column_block;
    EXPECT_TRUE(std::any_of(std::begin(k_shapes), std::end(k_shapes), [&](const gemm_shape& s) { return s.k > 0 && s.n > block; }))
        << "no shape wider than the " << block << "-column block";
    const int64_t chunk = fixed_order_kernels_for<T>(v).depth_chunk;
    EXPECT_TRUE(std::any_of(std::begin(k_shapes), std::end(k_shapes), [&](const gemm_shape& s) { return s.k > chunk; }))
        << "no shape deeper than the " << chunk << "-deep chunk";
  }
  for (const gemm_shape& s : k_shapes)
    for (const char* order : {"sequential", "kblock(16)", "kblock(24)"}) {
      SCOPED_TRACE(s.text() + " " + order);
      const problem<T> p(s, uint64_t(s.m * 1000 + s.k));
      const accumulation_order o = parse_accumulation(order);
      std::vector<T> plain(size_t(s.m * s.n));
      gemm_fixed_order(p.A.data(), p.B.data(), plain.data(), s, o);
      const check_sums<T> want = separate(p, plain);
      for (const gemm_kernel_variant& v : supported_gemm_variants()) {
        SCOPED_TRACE(v.text());
        std::vector<T> C(plain.size(), T(-1));
        check_sums<T> got;
        gemm_fixed_order_checked_at(v, p.A.data(), p.B.data(), C.data(), s, o, p.spec(), got);
        expect_same(C, plain, "C");
        expect_same(got.s1, want.s1, "C_i r1"), expect_same(got.s2, want.s2, "C_i r2");
        expect_same(got.row_ref, want.row_ref, "A_i (B r1)"), expect_same(got.row_ref2, want.row_ref2, "A_i (B r2)");
        expect_same(got.a_sum, want.a_sum, "row sum"), expect_same(got.a_max, want.a_max, "row max");
        expect_same(got.a_min, want.a_min, "row min");
        expect_same(got.c1, want.c1, "column sums"), expect_same(got.col_ref, want.col_ref, "(c1 A) B_j");
        expect_same(got.col_ref2, want.col_ref2, "(c2 A) B_j");
      }
    }
}

TEST(ProtectedGemm, SumsEqualTheSeparateCheckAtEveryLevelFp32) { sums_at_every_level<float>(); }
TEST(ProtectedGemm, SumsEqualTheSeparateCheckAtEveryLevelFp64) { sums_at_every_level<double>(); }

TEST(ProtectedGemm, PairwiseHasNoFusedForm) {
  const problem<float> p({4, 4, 4}, 1);
  std::vector<float> C(16);
  check_sums<float> out;
  EXPECT_THROW(gemm_fixed_order_checked(p.A.data(), p.B.data(), C.data(), p.s, parse_accumulation("pairwise"), p.spec(), out),
               value_error);
}

template <class T>
void verdicts(const format& f) {
  const std::pair<const char*, const char*> policies[] = {
      {"vabft", "{}"}, {"vabft", R"({"checks":"rows"})"}, {"vabft", R"({"weights":"sinh","localize":"weights"})"},
      {"vabft_exact_variance", "{}"}, {"aabft", "{}"}, {"fixed_rel", "{}"}, {"fixed_abs", "{}"}, {"higham", "{}"}};
  for (const gemm_shape& s : {gemm_shape{37, 101, 259}, gemm_shape{13, 1031, 300}, gemm_shape{5, 3, 2}})
    for (const auto& policy : policies) {
      const char* name = policy.first;  // named variables: the lambda below captures them (clang 14)
      const char* params = policy.second;
      SCOPED_TRACE(s.text() + " " + name + " " + params);
      const problem<T> p(s, 7);
      const auto* info = find_detector(view_kind::gemm, name);
      ASSERT_NE(info, nullptr);
      const detector_context ctx{&f, &f, {{"accumulation", "sequential"}, {"shape", s.text()}}, gemm_context{s, accumulation_order{}}};
      auto make = [&] {
        auto d = info->make(detector_params(validate_params(*info, nlohmann::json::parse(params)), &f), ctx);
        return detector_cast<gemm_detector>(std::move(d), name, "gemm");
      };
      auto sep = make(), fused = make();
      std::vector<T> C(size_t(s.m * s.n)), F(C.size());
      gemm_fixed_order(p.A.data(), p.B.data(), C.data(), s, accumulation_order{});
      const gemm_data<T> clean{&f, &f, s, {}, p.A.data(), p.B.data(), C.data(), C.data(), nullptr};
      sep->encode(clean), fused->encode(clean);
      for (int fault = 0; fault < 3; ++fault) {  // clean; a row of A; a column of B, after encoding
        SCOPED_TRACE(fault);
        std::vector<T> a = p.A, b = p.B;
        if (fault == 1) a[size_t((s.m / 2) * s.k + s.k / 3)] *= T(1e6);
        if (fault == 2) b[size_t((s.k / 2) * s.n + s.n - 1)] += T(4096);
        gemm_data<T> d = clean;
        d.A = a.data(), d.B = b.data();
        gemm_fixed_order(a.data(), b.data(), C.data(), s, accumulation_order{});
        d.C = d.acc = C.data();
        const verdict x = sep->verify(d);
        verdict y;
        // Higham's bound and fixed_rel (by default relative to |C|) read C: no fused form.
        const bool reads_c = std::string(name) == "higham" || std::string(name) == "fixed_rel";
        ASSERT_EQ(fused->protected_gemm(d, F.data(), &y), !reads_c);
        if (reads_c) continue;
        expect_same(F, C, "C");
        // A row check reads A as the kernel did (a fault in A is consistent with C);
        // the column check and the row check's encoded B r1 see the faults.
        const bool rows_only = std::string(params).find("rows") != std::string::npos;
        if (fault == 2 || (fault == 1 && !rows_only)) {
          EXPECT_TRUE(x.flagged);
        }
        EXPECT_EQ(x.flagged, y.flagged);
        EXPECT_EQ(bits_of(x.score), bits_of(y.score));
        EXPECT_EQ(x.located_row, y.located_row);
        EXPECT_EQ(x.located_col, y.located_col);
        EXPECT_EQ(bits_of(x.corrected_value), bits_of(y.corrected_value));
        ASSERT_EQ(x.metrics.size(), y.metrics.size());
        for (size_t k = 0; k < x.metrics.size(); ++k) EXPECT_EQ(bits_of(x.metrics[k].second), bits_of(y.metrics[k].second)) << x.metrics[k].first;
        EXPECT_EQ(sep->explain(), fused->explain());  // every row's and column's difference and threshold
      }
    }
}

TEST(ProtectedGemm, VerdictsEqualTheSeparateCheckFp32) { verdicts<float>(fp32()); }
TEST(ProtectedGemm, VerdictsEqualTheSeparateCheckFp64) { verdicts<double>(fp64()); }

// No fused form where a sum must be rounded to a narrower output.
TEST(ProtectedGemm, ANarrowerOutputFallsBackToTheSeparateCheck) {
  const problem<float> p({8, 8, 8}, 3);
  const auto* info = find_detector(view_kind::gemm, "vabft");
  const detector_context ctx{&fp32(), &bf16(), {{"accumulation", "sequential"}, {"shape", p.s.text()}}, gemm_context{p.s, accumulation_order{}}};
  auto det = detector_cast<gemm_detector>(info->make(detector_params(validate_params(*info, nlohmann::json::object()), &fp32()), ctx),
                                          "vabft", "gemm");
  std::vector<float> C(64, 0.0f), F(64, 7.0f);
  const gemm_data<float> d{&fp32(), &bf16(), p.s, {}, p.A.data(), p.B.data(), C.data(), C.data(), nullptr};
  det->encode(d);
  verdict v;
  EXPECT_FALSE(det->protected_gemm(d, F.data(), &v));
  EXPECT_EQ(F[0], 7.0f);  // untouched
}

}  // namespace
