// The checksum-ABFT detectors: A-ABFT thresholds against 001 Tables 4-5 (golden),
// localization and correction of single faults, and clean runs without alarms.
#include <gtest/gtest.h>

#include <bit>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "injectors/inject.hpp"

using namespace sdc;
using json = nlohmann::json;

namespace {

std::unique_ptr<gemm_detector> make(const std::string& name, const json& params, const format& dtype) {
  const auto* info = find_detector(view_kind::gemm, name);
  EXPECT_NE(info, nullptr) << name;
  auto det = info->make(detector_params(validate_params(*info, params), &dtype),
                        {&dtype, &dtype, {{"accumulation", "sequential"}, {"shape", "37x129x41"}},
                         gemm_context{parse_gemm_shape("37x129x41"), accumulation_order{}}});
  return std::unique_ptr<gemm_detector>(detector_cast<gemm_detector>(std::move(det), "?", "gemm").release());
}

double metric(const verdict& v, const std::string& name) {
  for (const auto& [k, x] : v.metrics)
    if (k == name) return x;
  return std::nan("");
}

template <class T>
struct problem {
  gemm_shape s;
  std::vector<T> A, B, C;
  problem(gemm_shape shape, uint64_t seed, double lo, double hi) : s(shape) {
    rng g = make_stream(seed, 7, 7, trial_kind::clean, stream_purpose::data);
    boost::random::uniform_real_distribution<double> u(lo, hi);
    A.resize(size_t(s.m * s.k)), B.resize(size_t(s.k * s.n)), C.resize(size_t(s.m * s.n));
    for (auto& x : A) x = T(u(g));
    for (auto& x : B) x = T(u(g));
    gemm_fixed_order(A.data(), B.data(), C.data(), s, accumulation_order{});
  }
  gemm_data<T> data(const format& f, const T* c) const {
    gemm_data<T> d;
    d.dtype = d.out_fmt = &f, d.shape = s, d.A = A.data(), d.B = B.data(), d.C = c, d.acc = c;
    return d;
  }
};

}  // namespace

// 001_e8c16cbdc32a8eac.txt Tables 4 (FP64) and 5 (FP32), A-ABFT column, y = 21:
// these follow from eq. (26) alone. Tolerance 2 %.
TEST(AbftGolden, AabftThresholdsMatchTables4And5) {
  const int64_t sizes[] = {128, 256, 512, 1024, 2048};
  const double table4[] = {2.08e-12, 5.87e-12, 1.66e-11, 4.68e-11, 1.32e-10};
  const double table5[] = {2.23e-3, 6.30e-3, 1.78e-2, 5.03e-2, 1.42e-1};
  for (size_t i = 0; i < 5; ++i) {
    const int64_t n = sizes[i];
    // The y = 21 threshold does not depend on the data: zero matrices suffice.
    std::vector<double> A(size_t(n * n)), B(size_t(n * n)), C(size_t(n * n));
    gemm_data<double> d;
    d.dtype = d.out_fmt = &fp64(), d.shape = {n, n, n}, d.A = A.data(), d.B = B.data(), d.C = d.acc = C.data();
    auto det = make("aabft", {{"checks", "rows"}}, fp64());
    det->encode(d);
    EXPECT_NEAR(metric(det->verify(d), "threshold") / table4[i], 1.0, 0.02) << "fp64 n=" << n;
    std::vector<float> Af(size_t(n * n)), Bf(size_t(n * n)), Cf(size_t(n * n));
    gemm_data<float> f;
    f.dtype = f.out_fmt = &fp32(), f.shape = {n, n, n}, f.A = Af.data(), f.B = Bf.data(), f.C = f.acc = Cf.data();
    auto detf = make("aabft", {{"checks", "rows"}}, fp32());
    detf->encode(f);
    EXPECT_NEAR(metric(detf->verify(f), "threshold") / table5[i], 1.0, 0.02) << "fp32 n=" << n;
  }
}

// No alarms on clean products, across U(0,1) and U(-1,1), for V-ABFT with the
// e_max calibrated on this machine (results/emax-calibration.json) and the
// worst-case bound. (The paper's CPU e_max and A-ABFT's probabilistic bound are
// not safe here on positive-mean data: the suites measure how often they fail.)
TEST(AbftDetectors, CleanProductsPass) {
  const std::pair<const char*, json> policies[] = {{"vabft", {{"e_max", "calibrated"}}},
                                                   {"vabft_exact_variance", {{"e_max", "calibrated"}}},
                                                   {"higham", json::object()}};
  for (const auto& [name, params] : policies)
    for (int seed = 0; seed < 6; ++seed) {
      problem<double> p({37, 129, 41}, uint64_t(seed), seed % 2 ? -1.0 : 0.0, 1.0);
      auto det = make(name, params, fp64());
      det->encode(p.data(fp64(), p.C.data()));
      const auto v = det->verify(p.data(fp64(), p.C.data()));
      EXPECT_FALSE(v.flagged) << name << " seed " << seed << " score " << v.score;
      problem<float> q({37, 129, 41}, uint64_t(seed), seed % 2 ? -1.0 : 0.0, 1.0);
      auto detf = make(name, params, fp32());
      detf->encode(q.data(fp32(), q.C.data()));
      const auto vf = detf->verify(q.data(fp32(), q.C.data()));
      EXPECT_FALSE(vf.flagged) << name << " fp32 seed " << seed << " score " << vf.score;
    }
}

// Every detected single fault in C above the noise band is located in the right
// column (and row), and the correction of eq. (10) brings it back
// within the element's deterministic rounding envelope gamma_K sum_k |A_ik B_kj|:
// a value a correct GEMM could have produced. (It is not within one ulp: D1
// carries the checksum paths' own rounding.) After the correction, the check passes.
// localize=auto (row and column checks intersect): every such fault. With
// weights alone (eq. (9)), D2 carries checksum noise scaled by the weights (up
// to N), so D2/D1 needs the fault to stand well clear of the threshold:
// asserted for faults scoring at least `min_score`.
template <class T>
void localization_case(const format& f, const char* weights, const char* localize, double min_score) {
  int detected_significant = 0;
  for (int trial = 0; trial < 300; ++trial) {
    problem<T> p({24, 96, 40}, uint64_t(1000 + trial), -1.0, 1.0);
    auto det = make("vabft", {{"weights", weights}, {"localize", localize}}, f);
    det->encode(p.data(f, p.C.data()));
    std::vector<T> faulty = p.C;
    tensor_view t{&f, faulty.data(), p.s.m, p.s.n};
    rng g = make_stream(uint64_t(trial), 3, 3, trial_kind::faulty, stream_purpose::fault);
    // A random bit among the exponent and the top mantissa bits.
    const int bit = boost::random::uniform_int_distribution<int>(f.mant_bits - 8, f.bits - 2)(g);
    const auto rec = inject(t, {parse_fault_model("bitflip"), {bit}, site_rule{}}, g);
    ASSERT_TRUE(rec.applied);
    const auto v = det->verify(p.data(f, faulty.data()));
    mp_value exact;
    exact_dot(exact.get(), p.A.data() + rec.row * p.s.k, 1, p.B.data() + rec.col, p.s.n, p.s.k);
    const auto band = classify_element(f, exact.get(), rec.old_value, rec.new_value).band;
    if (!v.flagged || band == significance::masked || band == significance::within_noise || v.score < min_score) continue;
    // A fault within a factor 4N of overflow makes the row sum overflow: detected, not located.
    if (!(std::fabs(rec.new_value) <= f.max_finite() / (4.0 * double(p.s.n)))) continue;
    ++detected_significant;
    EXPECT_EQ(v.located_row, rec.row) << f.name << " " << weights << " trial " << trial << " bit " << bit;
    EXPECT_EQ(v.located_col, rec.col) << f.name << " " << weights << " trial " << trial << " bit " << bit;
    const double corrected = v.corrected_value;
    double abs_dot = 0;
    for (int64_t k = 0; k < p.s.k; ++k)
      abs_dot += std::fabs(double(p.A[size_t(rec.row * p.s.k + k)]) * double(p.B[size_t(k * p.s.n + rec.col)]));
    const double u = f.unit_roundoff(), envelope = double(p.s.k) * u / (1 - double(p.s.k) * u) * abs_dot;
    mp_value diff;
    mpfr_set_d(diff.get(), corrected, MPFR_RNDN);
    mpfr_sub(diff.get(), diff.get(), exact.get(), MPFR_RNDN);
    EXPECT_LE(std::fabs(diff.to_double()), envelope) << f.name << " trial " << trial << " corrected " << corrected;
    faulty[size_t(rec.index)] = T(corrected);
    EXPECT_FALSE(det->verify(p.data(f, faulty.data())).flagged) << f.name << " trial " << trial << ": still flagged after correction";
  }
  EXPECT_GT(detected_significant, 120) << f.name << " " << weights << " " << localize;
}

TEST(AbftDetectors, LocalizesAndCorrectsSingleFaultsFp64) {
  localization_case<double>(fp64(), "linear", "auto", 0);
  for (const char* w : {"linear", "centred", "sinh"}) localization_case<double>(fp64(), w, "weights", 64);
}
TEST(AbftDetectors, LocalizesAndCorrectsSingleFaultsFp32) {
  localization_case<float>(fp32(), "linear", "auto", 0);
  for (const char* w : {"linear", "centred", "sinh"}) localization_case<float>(fp32(), w, "weights", 64);
}

TEST(AbftDetectors, NanIsDetectedNotPassed) {
  problem<float> p({8, 16, 8}, 5, -1, 1);
  for (const char* name : {"vabft", "aabft", "higham", "fixed_rel", "fixed_abs"}) {
    auto det = make(name, json::object(), fp32());
    det->encode(p.data(fp32(), p.C.data()));
    auto c = p.C;
    c[13] = std::nanf("");
    EXPECT_TRUE(det->verify(p.data(fp32(), c.data())).flagged) << name;
  }
}

// Incremental verification (the clean pair's checks, patched where a fault
// changed the data) returns exactly what full verification returns, for every
// policy and every kind of change.
template <class T>
void expect_incremental_verdicts(const format& f) {
  const std::pair<const char*, json> policies[] = {
      {"vabft", json::object()}, {"vabft_exact_variance", json::object()}, {"aabft", {{"y", "computed"}}},
      {"aabft", {{"y", "p_largest"}}}, {"higham", json::object()}, {"fixed_rel", json::object()},
      {"fixed_rel", {{"scale", "checksum"}}}, {"fixed_abs", json::object()}, {"vabft", {{"checks", "rows"}, {"weights", "sinh"}}},
      {"vabft", {{"point", "fused"}}}};
  problem<T> p({19, 53, 27}, 99, -1, 1);
  for (const auto& [name, params] : policies) {
    auto full = make(name, params, f), inc = make(name, params, f);
    const auto clean = p.data(f, p.C.data());
    full->encode(clean), inc->encode(clean), inc->baseline(clean);
    for (int trial = 0; trial < 60; ++trial) {
      std::vector<T> A = p.A, B = p.B, C = p.C;
      const int kind = trial % 3;
      gemm_change ch;
      const double factor = (trial % 2 ? 1024.0 : 1.0 + 1e-3) * (trial % 5 ? 1 : -1);
      if (kind == 0) {  // one output element
        ch = {gemm_change::kind::output_element, trial % p.s.m, (trial * 7) % p.s.n};
        C[size_t(ch.i * p.s.n + ch.j)] *= T(factor);
      } else if (kind == 1) {  // a row of A, and the row of C it changes
        ch = {gemm_change::kind::a_row, trial % p.s.m, -1};
        A[size_t(ch.i * p.s.k + trial % p.s.k)] *= T(factor);
        gemm_fixed_order(A.data(), B.data(), C.data(), p.s, accumulation_order{});
      } else {  // a column of B, and the column of C it changes
        ch = {gemm_change::kind::b_col, -1, trial % p.s.n};
        B[size_t((trial % p.s.k) * p.s.n + ch.j)] *= T(factor);
        gemm_fixed_order(A.data(), B.data(), C.data(), p.s, accumulation_order{});
      }
      gemm_data<T> d = clean;
      d.A = A.data(), d.B = B.data(), d.C = d.acc = C.data();
      const verdict a = full->verify(d), b = inc->verify_change(d, ch);
      const std::string what = std::string(name) + " " + params.dump() + " trial " + std::to_string(trial);
      EXPECT_EQ(a.flagged, b.flagged) << what;
      EXPECT_EQ(std::bit_cast<uint64_t>(a.score), std::bit_cast<uint64_t>(b.score)) << what;
      EXPECT_EQ(a.located_row, b.located_row) << what;
      EXPECT_EQ(a.located_col, b.located_col) << what;
      EXPECT_EQ(std::bit_cast<uint64_t>(a.corrected_value), std::bit_cast<uint64_t>(b.corrected_value)) << what;
      ASSERT_EQ(a.metrics.size(), b.metrics.size()) << what;
      for (size_t m = 0; m < a.metrics.size(); ++m)
        EXPECT_EQ(std::bit_cast<uint64_t>(a.metrics[m].second), std::bit_cast<uint64_t>(b.metrics[m].second)) << what;
    }
  }
}

TEST(AbftDetectors, IncrementalVerificationEqualsFull) {
  expect_incremental_verdicts<double>(fp64());
  expect_incremental_verdicts<float>(fp32());
}
