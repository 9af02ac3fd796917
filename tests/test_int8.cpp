// 004_0d1fcb03aeacfeeb.txt: int8 GEMM (oneDNN vs its reference twin), the
// modular and exact ABFT checks and their closed-form detection
// probabilities. The EmbeddingBag kernel and its check: test_embedding_bag.cpp
// (the same program, test_int8).
#include <gtest/gtest.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstring>

#include "detectors/quantized/quantized_detectors.hpp"
#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"

namespace sdc {
namespace {

rng test_rng(uint64_t salt) { return make_stream(20261121, salt, 0, trial_kind::clean, stream_purpose::data); }

template <class T>
std::vector<T> random_ints(size_t n, int lo, int hi, rng& g) {
  boost::random::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(g));
  return v;
}

// Every exact kernel: the workload's (oneDNN where it has VNNI, else ours),
// ours at every SIMD level this CPU runs, and oneDNN itself where it is exact.
void expect_kernels_equal_reference(int64_t m, int64_t n, int64_t k, const std::vector<uint8_t>& A,
                                    const std::vector<int8_t>& B, const std::string& what) {
  std::vector<int32_t> want(size_t(m * n), -2), got(size_t(m * n));
  gemm_u8s8s32_reference(m, n, k, A.data(), k, B.data(), n, want.data(), n);
  std::fill(got.begin(), got.end(), -1);
  gemm_u8s8s32(m, n, k, A.data(), k, B.data(), n, got.data(), n);
  EXPECT_EQ(got, want) << what << " (" << int8_gemm_kernel_name() << ")";
  for (const simd_level l : supported_simd_levels()) {
    std::fill(got.begin(), got.end(), -1);
    gemm_u8s8s32_widened_at(l, m, n, k, A.data(), k, B.data(), n, got.data(), n);
    EXPECT_EQ(got, want) << what << " widened at " << simd_name(l);
  }
  if (onednn_int8_exact()) {
    std::fill(got.begin(), got.end(), -1);
    gemm_u8s8s32_onednn(m, n, k, A.data(), k, B.data(), n, got.data(), n);
    EXPECT_EQ(got, want) << what << " oneDNN " << onednn_isa_name();
  }
}

TEST(Int8Gemm, KernelsEqualReferenceOnOddShapes) {
  struct shape { int64_t m, n, k; };
  const shape shapes[] = {{1, 1, 1}, {1, 7, 3}, {3, 5, 7}, {17, 33, 65}, {1, 129, 512}, {6, 257, 1023},
                          {13, 64, 2876}, {102, 31, 256}, {1, 801, 3200}, {2, 65, 0}};
  rng g = test_rng(1);
  for (const auto& s : shapes)
    for (int extra : {0, 1, 3}) {  // B' with checksum columns: n + extra columns
      const int64_t ld = s.n + extra;
      auto A = random_ints<uint8_t>(size_t(s.m * s.k), 0, 255, g);
      auto B = random_ints<int8_t>(size_t(s.k * ld), -128, 127, g);
      expect_kernels_equal_reference(s.m, ld, s.k, A, B,
                                     std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(ld));
    }
}

TEST(Int8Gemm, ExtremeValuesDoNotSaturate) {
  // Products at the extremes: vpmaddubsw's int16 pair sums (255 x -128 twice)
  // would saturate here; odd k leaves a lone last product.
  for (const int64_t k : {int64_t(4001), int64_t(64)}) {
    const int64_t m = 3, n = 71;
    std::vector<uint8_t> A(size_t(m * k), 255);
    std::vector<int8_t> B(size_t(k * n), -128);
    for (size_t i = 0; i < B.size(); i += 3) B[i] = 127;
    expect_kernels_equal_reference(m, n, k, A, B, "extremes k = " + std::to_string(k));
  }
}

TEST(Int8Gemm, OneDnnWithoutVnniIsNotUsed) {
  // Where oneDNN has no VNNI its u8s8s32 saturates (oneDNN's "Nuances of int8
  // computations"), so the workload must run the widened kernel there.
  if (onednn_int8_exact()) {
    EXPECT_EQ(int8_gemm_kernel_name().rfind("oneDNN", 0), 0u) << int8_gemm_kernel_name();
    return;
  }
  EXPECT_NE(int8_gemm_kernel_name().find("widened"), std::string::npos) << int8_gemm_kernel_name();
  const int64_t m = 2, n = 64, k = 64;  // oneDNN's packed kernel on this shape: every pair saturates
  std::vector<uint8_t> A(size_t(m * k), 255);
  std::vector<int8_t> B(size_t(k * n), -128);
  std::vector<int32_t> onednn(size_t(m * n)), want(size_t(m * n));
  gemm_u8s8s32_onednn(m, n, k, A.data(), k, B.data(), n, onednn.data(), n);
  gemm_u8s8s32_reference(m, n, k, A.data(), k, B.data(), n, want.data(), n);
  EXPECT_NE(onednn, want) << "oneDNN " << onednn_isa_name() << " was exact: onednn_int8_exact() may be too strict";
}

TEST(Int8Gemm, VectorRowSumEqualsReference) {
  rng g = test_rng(11);
  boost::random::uniform_int_distribution<int32_t> v(INT32_MIN, INT32_MAX);
  std::vector<int32_t> c(5000);
  for (auto& x : c) x = v(g);
  for (int64_t n : {0, 1, 7, 8, 31, 32, 33, 64, 100, 513, 4097, 5000})
    for (int64_t off : {0, 3}) {
      if (off + n > int64_t(c.size())) continue;
      for (const simd_level l : supported_simd_levels())
        EXPECT_EQ(row_sum_i32_at(l, c.data() + off, n), row_sum_i32_reference(c.data() + off, n)) << n << " +" << off << simd_name(l);
    }
  std::vector<int32_t> big(4097, INT32_MAX);  // would wrap in int32
  EXPECT_EQ(row_sum_i32(big.data(), 4097), int64_t(4097) * INT32_MAX);  // the active level
  for (const simd_level l : supported_simd_levels()) EXPECT_EQ(row_sum_i32_at(l, big.data(), 4097), int64_t(4097) * INT32_MAX);
}

TEST(Int8Gemm, RequantizeFastEqualsReference) {
  rng g = test_rng(12);
  boost::random::uniform_int_distribution<int32_t> v(-3000000, 3000000);
  for (int64_t n : {1, 15, 16, 17, 100, 513})
    for (float mult : {0.0001234f, 1e-5f, 3.7e-4f}) {
      const int64_t m = 5, ldc = n + 3;
      std::vector<int32_t> C(size_t(m * ldc));
      for (auto& x : C) x = v(g);
      C[0] = INT32_MAX, C[1 % C.size()] = INT32_MIN;
      std::vector<uint8_t> o1(size_t(m * n)), o2(size_t(m * n));
      std::vector<int64_t> s1(static_cast<size_t>(m)), s2(static_cast<size_t>(m));
      requantize_u8_reference(C.data(), ldc, m, n, mult, 5, o2.data(), s2.data());
      for (const simd_level l : supported_simd_levels()) {
        requantize_u8_at(l, C.data(), ldc, m, n, mult, 5, o1.data(), s1.data());
        EXPECT_EQ(o1, o2) << n << " " << mult << " " << simd_name(l);
        EXPECT_EQ(s1, s2);
      }
      requantize_u8(C.data(), ldc, m, n, mult, 5, o1.data(), s1.data());  // the active level
      EXPECT_EQ(o1, o2);
      for (int64_t i = 0; i < m; ++i) EXPECT_EQ(s1[size_t(i)], row_sum_i32_reference(C.data() + i * ldc, n));
    }
}

// One ABFT-protected int8 GEMM as the workload runs it: B' = [B | checksum columns].
struct protected_gemm {
  int64_t m, n, k, ld;
  std::vector<uint8_t> A;
  std::vector<int8_t> B, Bp;
  std::vector<int32_t> C;
  std::unique_ptr<int8_gemm_detector> det;

  protected_gemm(int64_t m_, int64_t n_, int64_t k_, const char* name, nlohmann::json params, rng& g)
      : m(m_), n(n_), k(k_) {
    const auto* info = find_detector(view_kind::int8_gemm, name);
    det.reset(dynamic_cast<int8_gemm_detector*>(
        info->make(detector_params(validate_params(*info, params), &s32()), {&s8(), &s32(), {}}).release()));
    ld = n + det->extra_columns();
    A = random_ints<uint8_t>(size_t(m * k), 0, 255, g);
    B = random_ints<int8_t>(size_t(k * n), -128, 127, g);
    Bp.assign(size_t(k * ld), 0);
    for (int64_t i = 0; i < k; ++i) std::copy_n(B.data() + i * n, n, Bp.data() + i * ld);
    det->encode(B.data(), k, n, n, Bp.data() + n, ld);
    run();
  }
  void run() {
    C.assign(size_t(m * ld), 0);
    gemm_u8s8s32(m, ld, k, A.data(), k, Bp.data(), ld, C.data(), ld);
  }
  int8_gemm_data view() const {
    return {m, n, k, A.data(), k, Bp.data(), ld, C.data(), ld, det->extra_columns() ? C.data() + n : nullptr};
  }
  verdict verify() { return det->verify(view()); }
};

TEST(Int8Abft, NoFalsePositiveOnCleanRuns) {
  rng g = test_rng(2);
  int runs = 0;
  for (const char* name : {"abft_int8", "abft_int8_exact"})
    for (int modulus : {127, 2, 64, 128})
      for (int rep = 0; rep < 8; ++rep) {
        boost::random::uniform_int_distribution<int64_t> dim(1, 300);
        const nlohmann::json params = std::string(name) == "abft_int8" ? nlohmann::json{{"modulus", modulus}} : nlohmann::json::object();
        protected_gemm p(dim(g), dim(g), dim(g), name, params, g);
        EXPECT_FALSE(p.verify().flagged) << name << " modulus " << modulus << " shape " << p.m << "x" << p.k << "x" << p.n;
        ++runs;
      }
  EXPECT_EQ(runs, 64);
}

TEST(Int8Abft, EverySingleBitFlipInCIsDetected) {
  // 2^l is never a multiple of an odd modulus (section IV-C2).
  rng g = test_rng(3);
  protected_gemm p(5, 40, 64, "abft_int8", {}, g);
  for (int64_t idx : {int64_t(0), int64_t(77), int64_t(5 * 40 - 1)})
    for (int bit = 0; bit < 32; ++bit) {
      const int64_t i = idx / 40, j = idx % 40;
      int32_t& c = p.C[size_t(i * p.ld + j)];
      const int32_t old = c;
      c = int32_t(uint32_t(c) ^ (1u << bit));
      EXPECT_TRUE(p.verify().flagged) << "bit " << bit << " at " << i << "," << j;
      c = old;
    }
}

// The detector's closed-form probability for a B fault equals the fraction of
// the model's outcomes that the check, run for real, detects.
TEST(Int8Abft, DetectionTheoryMatchesEnumeratedOutcomes) {
  rng g = test_rng(4);
  for (int64_t m : {1, 2}) {
    protected_gemm p(m, 24, 30, "abft_int8", {}, g);
    // Make some of column r of A multiples of 127, so misses are possible.
    for (int64_t r : {3, 7}) {
      p.A[size_t(0 * p.k + r)] = r == 3 ? 127 : 0;
      if (m > 1) p.A[size_t(1 * p.k + r)] = 254;
    }
    p.run();
    for (int64_t r : {3, 7, 11})
      for (const char* model : {"bitflip_random(1,all)", "random_value"}) {
        const int64_t c = 5;
        const int8_t old = p.Bp[size_t(r * p.ld + c)];
        int8_fault_context f{int8_target::B, r, c, uint8_t(old), parse_fault_model(model), {0, 1, 2, 3, 4, 5, 6, 7}};
        double expect = -1;
        for (auto& [name, value] : p.det->detection_theory(p.view(), f))
          if (name == "theory_detect") expect = value;
        // Enumerate the outcomes and run GEMM + check on each.
        std::vector<int8_t> outs;
        if (std::string(model) == "random_value") {
          for (int v = -128; v < 128; ++v)
            if (v != old) outs.push_back(int8_t(v));
        } else {
          for (int b = 0; b < 8; ++b) outs.push_back(int8_t(uint8_t(old) ^ (1 << b)));
        }
        int detected = 0;
        for (int8_t v : outs) {
          p.Bp[size_t(r * p.ld + c)] = v;
          p.run();
          detected += p.verify().flagged;
        }
        p.Bp[size_t(r * p.ld + c)] = old;
        p.run();
        EXPECT_NEAR(expect, double(detected) / double(outs.size()), 1e-12) << model << " m " << m << " r " << r;
      }
  }
}

TEST(Int8Abft, PaperClosedFormsAtMOne) {
  // Section IV-C: 98.83 % (random bit in B), 96.89 % (random value in B), 99.21 % (random value in C).
  rng g = test_rng(5);
  protected_gemm p(1, 8, 8, "abft_int8", {}, g);
  auto paper = [&](int8_target target, const char* model, int width) {
    std::vector<int> bits;
    for (int b = 0; b < width; ++b) bits.push_back(b);
    int8_fault_context f{target, 0, 0, 0, parse_fault_model(model), bits};
    for (auto& [name, value] : p.det->detection_theory(p.view(), f))
      if (name == "paper_formula_detect") return value;
    return -1.0;
  };
  // Tolerance 1e-4 (one unit of the paper's last printed digit): its 96.89 % is
  // 1 - 1018/32640 = 96.881 %, printed rounded up.
  EXPECT_NEAR(paper(int8_target::B, "bitflip_random(1,all)", 8), 0.9883, 1e-4);
  EXPECT_NEAR(paper(int8_target::B, "random_value", 8), 0.9689, 1e-4);
  EXPECT_NEAR(paper(int8_target::C, "random_value", 32), 0.9921, 1e-4);
  EXPECT_EQ(paper(int8_target::C, "bitflip_random(1,all)", 32), 1.0);
}

TEST(Int8Abft, RandomValueInCTheoryCountsTheResidueClass) {
  // c' uniform over the other 2^32 - 1 int32 values; missed iff c' = c (mod M).
  rng g = test_rng(6);
  protected_gemm p(2, 8, 8, "abft_int8", {{"modulus", 4}}, g);
  int8_fault_context f{int8_target::C, 0, 0, 0, parse_fault_model("random_value"), {}};
  double got = -1;
  for (auto& [name, value] : p.det->detection_theory(p.view(), f))
    if (name == "theory_detect") got = value;
  // Modulus 4 splits the 2^32 values into classes of exactly 2^30.
  EXPECT_DOUBLE_EQ(got, 1.0 - double((1ll << 30) - 1) / double((1ll << 32) - 1));
}

}  // namespace
}  // namespace sdc
