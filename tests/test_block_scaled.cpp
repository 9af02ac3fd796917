// Block-scaled formats against their plain twin (block_scaled_reference.hpp):
// every code of every element type and scale type, every code at every MX
// scale, the ties between neighbouring codes, and random tensors with short
// trailing blocks, zero blocks and NaN/Inf, along both axes.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "foundation/errors.hpp"
#include "foundation/formats/block_scaled.hpp"
#include "foundation/formats/block_scaled_reference.hpp"

using namespace sdc;

namespace {

constexpr elem_type k_bs_elem_types[] = {elem_type::fp8_e4m3, elem_type::fp8_e5m2, elem_type::fp6_e3m2,
                                         elem_type::fp6_e2m3, elem_type::fp4_e2m1, elem_type::int8};

int bs_code_count(elem_type t) { return 1 << element_format(t).bits; }

bool bs_same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The fast path and the twin agree on everything a quantized tensor holds.
void bs_expect_twins(std::span<const float> x, int64_t rows, int64_t cols, int axis, const block_format& f,
                     const quantize_options& o, const std::string& what) {
  const block_tensor q = quantize(x, rows, cols, axis, f, o);
  const block_tensor r = quantize_reference(x, rows, cols, axis, f, o);
  ASSERT_EQ(q.scales, r.scales) << what;
  ASSERT_EQ(q.codes, r.codes) << what;
  ASSERT_EQ(std::bit_cast<uint32_t>(q.tensor_scale), std::bit_cast<uint32_t>(r.tensor_scale)) << what;
  const auto dq = dequantize(q), dr = dequantize_reference(r);
  for (size_t i = 0; i < dq.size(); ++i) ASSERT_TRUE(bs_same_value(dq[i], dr[i])) << what << " element " << i;
}

std::vector<quantize_options> bs_options_for(const block_format& f) {
  if (f.scale == scale_type::e4m3) return {{}};
  return {{}, {.rounding = block_rounding::even}, {.scale_rule = mx_scale_rule::rceil}};
}

}  // namespace

TEST(BlockScaled, EveryElementCodeDecodesAsItsFields) {
  for (elem_type t : k_bs_elem_types)
    for (int c = 0; c < bs_code_count(t); ++c)
      EXPECT_TRUE(bs_same_value(decode_element(t, uint8_t(c)), decode_element_reference(t, uint8_t(c))))
          << elem_type_name(t) << " code " << c;
  const double fp4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (int c = 0; c < 16; ++c) EXPECT_EQ(decode_element(elem_type::fp4_e2m1, uint8_t(c)), (c & 8 ? -1 : 1) * fp4[c & 7]);
  EXPECT_EQ(decode_element(elem_type::int8, 0x80), -2.0);  // never produced, but a fault can write it
  EXPECT_EQ(decode_element(elem_type::fp6_e3m2, 0x1f), 28.0);
  EXPECT_EQ(decode_element(elem_type::fp6_e2m3, 0x1f), 7.5);
}

TEST(BlockScaled, EveryScaleCodeDecodesAndEncodesBack) {
  for (int c = 0; c < 256; ++c) {
    for (scale_type s : {scale_type::e8m0, scale_type::e4m3})
      EXPECT_TRUE(bs_same_value(decode_scale(s, uint8_t(c)), decode_scale_reference(s, uint8_t(c)))) << c;
    if (c != 0xff) {
      EXPECT_EQ(encode(e8m0(), decode_scale(scale_type::e8m0, uint8_t(c))), uint64_t(c));
    }
  }
  EXPECT_TRUE(std::isnan(decode_scale(scale_type::e8m0, 0xff)));
  EXPECT_EQ(decode_scale(scale_type::e8m0, 0), std::ldexp(1.0, -127));
  EXPECT_EQ(decode_scale(scale_type::e8m0, 0xfe), std::ldexp(1.0, 127));
  EXPECT_EQ(encode(e8m0(), std::ldexp(1.0, 128)), 0xffu);                 // overflow: NaN
  EXPECT_EQ(encode_rounded(e8m0(), std::ldexp(1.0, 128), tie_rule::even, true), 0xfeu);
  EXPECT_EQ(encode(e8m0(), std::ldexp(1.0, -140)), 0u);                   // no zero: the smallest
  EXPECT_EQ(encode(e8m0(), 0.0), 0xffu);
  EXPECT_FALSE(e8m0().has_sign());
}

TEST(BlockScaled, GenericEncoderKeepsItsPolicyAndSaturatesOnRequest) {
  const format& e4m3 = element_format(elem_type::fp8_e4m3);
  EXPECT_TRUE(is_nan_bits(e4m3, encode(e4m3, 480)));                       // generic: overflow is NaN
  EXPECT_EQ(encode_rounded(e4m3, 480, tie_rule::even, true), 0x7eu);      // MX: saturate to 448
  EXPECT_EQ(encode_rounded(e4m3, 400, tie_rule::away, true), encode(e4m3, 416));
  EXPECT_EQ(encode_rounded(e4m3, 400, tie_rule::even, true), encode(e4m3, 384));
  const format& fp4 = element_format(elem_type::fp4_e2m1);
  EXPECT_EQ(encode(fp4, 7), 0x7u);                                        // finite: saturates anyway
  EXPECT_EQ(encode(fp4, -INFINITY), 0xfu);
  EXPECT_EQ(encode(fp4, NAN), 0x7u);                                      // satfinite: NaN -> +max
  EXPECT_FALSE(is_nan_bits(fp4, 0xf));
  EXPECT_EQ(fp4.max_finite(), 6.0);
}

// Every finite code's value times every scale an fp32 block can reach comes
// back as itself, and the twin agrees; each block's first element pins the scale.
TEST(BlockScaled, EveryCodeAtEveryMxScaleRoundTrips) {
  for (const auto& f : all_block_formats()) {
    if (f.scale != scale_type::e8m0) continue;
    std::vector<double> vals;
    for (int c = 0; c < bs_code_count(f.elem); ++c) {
      const double v = decode_element(f.elem, uint8_t(c));
      if (std::isfinite(v) && !(f.elem == elem_type::int8 && c == 0x80)) vals.push_back(v);
    }
    const int64_t rows = int64_t(vals.size() + 30) / 31;
    for (int se = -127; se <= 127 - elem_emax(f.elem); ++se) {
      std::vector<float> x(size_t(rows * 32), 0.0f), want(x.size(), 0.0f);
      for (int64_t r = 0; r < rows; ++r) x[size_t(r * 32)] = want[size_t(r * 32)] = float(std::ldexp(elem_max_norm(f.elem), se));
      for (size_t k = 0; k < vals.size(); ++k)
        x[1 + k + k / 31] = want[1 + k + k / 31] = float(std::ldexp(vals[k], se));
      const block_tensor q = quantize(x, rows, 32, 1, f);
      for (uint8_t s : q.scales) ASSERT_EQ(int(s), se + 127) << f.name;
      const auto back = dequantize(q);
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(back[i], want[i]) << f.name << " se " << se << " element " << i;
      bs_expect_twins(x, rows, 32, 1, f, {}, std::string(f.name) + " se " + std::to_string(se));
    }
  }
}

// Midpoints between neighbouring codes, and their fp32 neighbours, at scales
// from the smallest to the largest: ties away or to the even code, as asked.
TEST(BlockScaled, TiesBetweenNeighbouringCodesMatchTheTwin) {
  for (const auto& f : all_block_formats()) {
    if (f.scale != scale_type::e8m0) continue;
    std::vector<double> mags;
    for (int c = 0; c < bs_code_count(f.elem); ++c) {
      const double v = decode_element(f.elem, uint8_t(c));
      if (std::isfinite(v) && v >= 0) mags.push_back(v);
    }
    std::sort(mags.begin(), mags.end());
    for (int se : {-127, -100, -1, 0, 3, 90, 127 - elem_emax(f.elem)}) {
      std::vector<float> x;
      for (size_t k = 0; k + 1 < mags.size(); ++k) {
        const float mid = float(std::ldexp((mags[k] + mags[k + 1]) / 2, se));
        for (float v : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
          if (x.size() % 32 == 0) x.push_back(float(std::ldexp(elem_max_norm(f.elem), se)));
          x.push_back(x.size() % 2 ? v : -v);
        }
      }
      // Past the largest code: saturation for both roundings.
      x.push_back(float(std::ldexp(elem_max_norm(f.elem) * 1.2, se)));
      for (const auto& o : bs_options_for(f))
        bs_expect_twins(x, 1, int64_t(x.size()), 1, f, o, std::string(f.name) + " ties se " + std::to_string(se));
    }
  }
}

TEST(BlockScaled, RandomTensorsMatchTheTwinAlongBothAxes) {
  std::mt19937_64 g(69);
  for (const auto& f : all_block_formats()) {
    for (auto [rows, cols, axis] : {std::tuple{5, 77, 1}, std::tuple{70, 3, 0}, std::tuple{33, 40, -1}, std::tuple{1, 16, -2}}) {
      std::vector<float> x(size_t(rows * cols));
      std::uniform_int_distribution<int> base(-140, 120), drop(0, 14), pick(0, 99);
      std::uniform_real_distribution<double> mant(1.0, 2.0);
      const bool nvfp4 = f.scale == scale_type::e4m3;
      for (int rep = 0; rep < 4; ++rep) {
        const int b = nvfp4 ? base(g) / 2 : base(g);  // NVFP4: one tensor scale, keep the spread in fp32 range
        for (auto& v : x) {
          const int p = pick(g);
          v = p < 5 ? 0.0f : float((g() & 1 ? -1 : 1) * std::ldexp(mant(g), b - drop(g)));
          if (!nvfp4 && p == 99) v = (p & 1) ? NAN : (g() & 1 ? INFINITY : -INFINITY);
        }
        if (rep == 1) std::fill(x.begin(), x.begin() + std::min<size_t>(x.size(), 40), 0.0f);  // zero blocks
        for (const auto& o : bs_options_for(f))
          bs_expect_twins(x, rows, cols, axis, f, o, std::string(f.name) + " random " + std::to_string(rep));
      }
    }
  }
}

TEST(BlockScaled, BlocksCoverEveryElementOnceWithAShortLastBlock) {
  const auto& f = block_format_by_name("mxfp8_e4m3");
  for (int axis : {0, 1}) {
    const block_tensor t = quantize(std::vector<float>(70 * 3, 1.0f), 70, 3, axis, f);
    EXPECT_EQ(t.scales.size(), size_t(axis == 1 ? 70 : 3 * 3));
    std::vector<int> seen(t.codes.size(), 0);
    for (int64_t b = 0; b < int64_t(t.scales.size()); ++b)
      for (int64_t i : t.elements_of_block(b)) {
        ++seen[size_t(i)];
        EXPECT_EQ(t.block_of(i), b);
      }
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

TEST(BlockScaled, BadInputIsRefusedNamingWhatWasExpected) {
  const auto& mx = block_format_by_name("mxfp4_e2m1");
  const auto& nv = block_format_by_name("nvfp4");
  const std::vector<float> x(6, 1.0f);
  auto refused = [](auto&& call, const char* expected) {
    try {
      call();
      ADD_FAILURE() << "not refused: " << expected;
    } catch (const value_error& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  refused([&] { quantize(x, 2, 4, 1, mx); }, "expected rows * cols");
  refused([&] { quantize(x, 2, 3, 2, mx); }, "expected the blocked axis");
  refused([&] { quantize(x, 2, 3, 1, nv, {.rounding = block_rounding::ties_away}); }, "expected rounding 'even'");
  refused([&] { quantize(x, 2, 3, 1, nv, {.scale_rule = mx_scale_rule::rceil}); }, "rceil");
  refused([&] { quantize(std::vector<float>{1.0f, NAN}, 1, 2, 1, nv); }, "expected finite values");
  refused([&] { block_format_by_name("mxfp5"); }, "known: mxfp8_e4m3");
}
