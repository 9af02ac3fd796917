// The checksum-ABFT detectors: A-ABFT thresholds against 001 Tables 4-5 (golden),
// localization and correction of single faults, and clean runs without alarms.
#include <gtest/gtest.h>

#include <bit>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <vector>

#include "detectors/detector.hpp"
#include "harness/ground_truth/exact_dot.hpp"
#include "harness/random/streams.hpp"
#include "harness/workloads/gemm_kernels.hpp"
#include "injectors/inject.hpp"

using namespace sdc;
using json = nlohmann::json;

namespace {

std::unique_ptr<gemm_detector> make(const std::string& name, const json& params, const format& dtype) {
  const auto* info = find_detector("gemm", name);
  EXPECT_NE(info, nullptr) << name;
  auto det = info->make(detector_params(validate_params(*info, params), &dtype), {&dtype, &dtype});
  return std::unique_ptr<gemm_detector>(dynamic_cast<gemm_detector*>(det.release()));
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

// No alarms on clean products, for every policy, across distributions.
TEST(AbftDetectors, CleanProductsPass) {
  for (const char* name : {"vabft", "vabft_exact_variance", "aabft", "higham"})
    for (int seed = 0; seed < 6; ++seed) {
      problem<double> p({37, 129, 41}, uint64_t(seed), seed % 2 ? -1.0 : 0.0, 1.0);
      auto det = make(name, json::object(), fp64());
      det->encode(p.data(fp64(), p.C.data()));
      const auto v = det->verify(p.data(fp64(), p.C.data()));
      EXPECT_FALSE(v.flagged) << name << " seed " << seed << " score " << v.score;
      problem<float> q({37, 129, 41}, uint64_t(seed), seed % 2 ? -1.0 : 0.0, 1.0);
      auto detf = make(name, json::object(), fp32());
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
// weights alone (eq. (9)), D2/D1 needs the fault to stand clear of the checksum
// noise: asserted for faults scoring at least `min_score` (the noise band of the check).
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
  EXPECT_GT(detected_significant, 150) << f.name << " " << weights << " " << localize;
}

TEST(AbftDetectors, LocalizesAndCorrectsSingleFaultsFp64) {
  localization_case<double>(fp64(), "linear", "auto", 0);
  for (const char* w : {"linear", "centred", "sinh"}) localization_case<double>(fp64(), w, "weights", 4);
}
TEST(AbftDetectors, LocalizesAndCorrectsSingleFaultsFp32) {
  localization_case<float>(fp32(), "linear", "auto", 0);
  for (const char* w : {"linear", "centred", "sinh"}) localization_case<float>(fp32(), w, "weights", 4);
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
