// 004_0d1fcb03aeacfeeb.txt section III-C: the quantized EmbeddingBag kernel
// (fast vs its reference twin, bit for bit), the row-wise quantization, and
// its ABFT check (exact identity on integer scales, a high bit flip in a read
// code detected). Part of the test_int8 program.
#include <gtest/gtest.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <cstring>

#include "detectors/quantized/quantized_detectors.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "foundation/random/streams.hpp"

namespace sdc {
namespace {

rng eb_rng(uint64_t salt) { return make_stream(20261121, salt, 0, trial_kind::clean, stream_purpose::data); }

quantized_table random_table(int64_t rows, int64_t dim, int bits, rng& g) {
  boost::random::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(size_t(rows * dim));
  for (auto& v : x) v = u(g);
  return quantize_rowwise(x.data(), rows, dim, bits, true);
}

bag_batch random_batch(int64_t rows, int64_t bags, int64_t pool, bool weighted, rng& g) {
  bag_batch b;
  boost::random::uniform_int_distribution<int64_t> r(0, rows - 1), len(0, 2 * pool);
  for (int64_t k = 0; k < bags; ++k) {
    b.offsets.push_back(int64_t(b.indices.size()));
    const int64_t n = len(g);  // includes empty bags
    for (int64_t p = 0; p < n; ++p) b.indices.push_back(r(g));
  }
  if (weighted) {
    boost::random::uniform_real_distribution<float> w(0.0f, 1.0f);
    for (size_t p = 0; p < b.indices.size(); ++p) b.weights.push_back(w(g));
  }
  return b;
}

TEST(EmbeddingBag, FastKernelEqualsReferenceBitForBit) {
  rng g = eb_rng(7);
  for (int bits : {8, 4})
    for (int64_t dim : {1, 2, 15, 16, 17, 31, 32, 64, 100, 128, 256})
      for (bool weighted : {false, true})
        for (int prefetch : {0, 16}) {
          const auto t = random_table(300, dim, bits, g);
          const auto b = random_batch(300, 7, 20, weighted, g);
          std::vector<float> f(size_t(7 * dim)), r(size_t(7 * dim));
          embedding_bag_reference(t, b, r.data());
          for (const simd_level l : supported_simd_levels()) {
            embedding_bag_fast_at(l, t, b, f.data(), prefetch);
            EXPECT_EQ(std::memcmp(f.data(), r.data(), f.size() * 4), 0)
                << "bits " << bits << " dim " << dim << " weighted " << weighted << " prefetch " << prefetch << " " << simd_name(l);
          }
          embedding_bag_fast(t, b, f.data(), prefetch);  // the active level
          EXPECT_EQ(std::memcmp(f.data(), r.data(), f.size() * 4), 0);
        }
}

TEST(EmbeddingBag, QuantizationRoundTripsWithinHalfAStep) {
  rng g = eb_rng(8);
  boost::random::uniform_real_distribution<float> u(-3.0f, 5.0f);
  for (int bits : {8, 4}) {
    const int64_t rows = 50, dim = 37;
    std::vector<float> x(size_t(rows * dim));
    for (auto& v : x) v = u(g);
    const auto t = quantize_rowwise(x.data(), rows, dim, bits, true);
    for (int64_t i = 0; i < rows; ++i) {
      EXPECT_EQ(t.row_sum(i), code_sum(t, i));
      for (int64_t j = 0; j < dim; ++j) {
        EXPECT_LE(t.code(i, j), (1 << bits) - 1);
        const double back = double(t.alpha(i)) * t.code(i, j) + t.beta(i);
        EXPECT_LE(std::fabs(back - x[size_t(i * dim + j)]), 0.5 * t.alpha(i) * (1 + 1e-5) + 1e-6);
      }
    }
  }
}

std::unique_ptr<embedding_bag_detector> eb_detector(nlohmann::json params) {
  const auto* info = find_detector(view_kind::embedding_bag, "abft_embeddingbag");
  return std::unique_ptr<embedding_bag_detector>(dynamic_cast<embedding_bag_detector*>(
      info->make(detector_params(validate_params(*info, params), &fp32()), {&u8(), &fp32(), {}}).release()));
}

TEST(EmbeddingBagAbft, IdentityIsExactOnIntegerScales) {
  // alpha = 1, beta = 0 and small codes: every sum is an exact fp32 integer, so
  // RSum == CSum and the check passes even with a zero bound.
  rng g = eb_rng(9);
  auto t = random_table(200, 64, 8, g);
  for (int64_t i = 0; i < t.rows; ++i) {
    const float one = 1.0f, zero = 0.0f;
    std::memcpy(t.row(i) + t.code_bytes(), &one, 4);
    std::memcpy(t.row(i) + t.code_bytes() + 4, &zero, 4);
  }
  const auto b = random_batch(200, 10, 50, false, g);
  std::vector<float> out(size_t(10 * 64));
  embedding_bag_fast(t, b, out.data());
  auto det = eb_detector({{"bound", 0.0}});
  const verdict v = det->verify({&t, &b, out.data()});
  EXPECT_FALSE(v.flagged);
  ASSERT_EQ(det->checks().size(), 10u);
  for (const auto& c : det->checks()) EXPECT_EQ(c.rsum, c.csum);
}

TEST(EmbeddingBagAbft, HighBitFlipInAReadCodeIsDetected) {
  rng g = eb_rng(10);
  auto t = random_table(500, 64, 8, g);
  auto b = random_batch(500, 10, 100, false, g);
  b.offsets = {0};  // one bag of all indices
  std::vector<float> out(size_t(64));
  auto det = eb_detector({});
  embedding_bag_fast(t, b, out.data());
  const bool clean_flag = det->verify({&t, &b, out.data()}).flagged;
  uint8_t& code = t.row(b.indices[3])[17];
  code ^= 0x80;
  embedding_bag_fast(t, b, out.data());
  const verdict v = det->verify({&t, &b, out.data()});
  EXPECT_TRUE(v.flagged) << "clean run flagged: " << clean_flag;
  EXPECT_GT(v.score, 1.0);
}

}  // namespace
}  // namespace sdc
