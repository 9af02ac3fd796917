// Block-scaled formats against their originals, row by row
// (foundation/formats/CONFORMANCE.md): microxcaling @ 7bc4195 (its tests and
// mx/formats.py) and TransformerEngine's NVFP4 (core_nvfp4.cuh and the
// reference's cast_to_fp4x2 thresholds).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "foundation/formats/block_scaled.hpp"

using namespace sdc;

namespace {

std::vector<float> bsc_round_trip(const std::vector<float>& x, const char* fmt, const quantize_options& o = {},
                                  int64_t rows = 1) {
  return dequantize(quantize(x, rows, int64_t(x.size()) / rows, 1, block_format_by_name(fmt), o));
}

const quantize_options k_bsc_even{.rounding = block_rounding::even};

}  // namespace

// mx/tests/test_formats.py::test_format_parameters: emax, max_norm, min_norm.
TEST(BlockScaledConformance, ElementParametersAreMicroxcalingsFormatTable) {
  struct row { elem_type t; int emax; double max_norm, min_norm; };
  for (auto r : {row{elem_type::fp8_e5m2, 15, 57344, 0x1p-14}, row{elem_type::fp8_e4m3, 8, 448, 0x1p-6},
                 row{elem_type::fp6_e3m2, 4, 28, 0.25}, row{elem_type::fp6_e2m3, 2, 7.5, 1},
                 row{elem_type::fp4_e2m1, 2, 6, 1}, row{elem_type::int8, 0, 127.0 / 64, 0}}) {
    EXPECT_EQ(elem_emax(r.t), r.emax) << elem_type_name(r.t);
    EXPECT_EQ(elem_max_norm(r.t), r.max_norm) << elem_type_name(r.t);
    if (r.t != elem_type::int8) {
      EXPECT_EQ(element_format(r.t).min_normal(), r.min_norm) << elem_type_name(r.t);
    }
  }
}

// mx/tests/test_fp8_e4m3_fix.py: saturation at 448 and, under "nearest", 400 -> 416.
TEST(BlockScaledConformance, E4m3FixSaturatesAndRoundsTiesAway) {
  const std::vector<float> x = {485, 475, 400, -485, -475, -450, 0x1p-6f, -0x1p-6f};
  EXPECT_EQ(bsc_round_trip(x, "mxfp8_e4m3"), (std::vector<float>{448, 448, 416, -448, -448, -448, 0x1p-6f, -0x1p-6f}));
  EXPECT_EQ(bsc_round_trip(x, "mxfp8_e4m3", k_bsc_even)[2], 384.0f);  // round="even"
}

// mx/tests/test_corners_mx.py::test_mx_hw_test: MXINT8, blocks of 10 along rows
// (each row one short block here), round="nearest".
TEST(BlockScaledConformance, Int8HardwareTestRows) {
  const std::vector<float> x = {
      1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
      1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0,
      -1.0, -1.0, -1.0, -1.0, -1.0, -2.0, -2.0, -2.0, -2.0, -2.0,
      1.0, 1.0, 1.0, 1.0, 1.0, -2.0, -2.0, -2.0, -2.0, -2.0,
      1.015625, 1.0234375, 1.03125, 1.0390625, 1.25, 1.2578125, 1.9375, 1.9453125, 1.984375, 1.9921875,
      -1.984375, -1.9765625, -1.96875, -1.9609375, -1.9375, -1.9296875, -1.75, -1.7421875, -1.0, -1.9921875,
      1.99609375, 1.98828125, 0.0, 0.00390625, 0.0078125, 0.01171875, -0.015625, -0.01171875, -0.0078125, -0.00390625};
  const std::vector<float> y = {
      1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
      1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0,
      -1.0, -1.0, -1.0, -1.0, -1.0, -2.0, -2.0, -2.0, -2.0, -2.0,
      1.0, 1.0, 1.0, 1.0, 1.0, -2.0, -2.0, -2.0, -2.0, -2.0,
      1.015625, 1.03125, 1.03125, 1.046875, 1.25, 1.265625, 1.9375, 1.953125, 1.984375, 1.984375,
      -1.984375, -1.984375, -1.96875, -1.96875, -1.9375, -1.9375, -1.75, -1.75, -1.0, -1.984375,
      1.984375, 1.984375, 0.0, 0.0, 0.015625, 0.015625, -0.015625, -0.015625, -0.015625, 0.0};
  EXPECT_EQ(bsc_round_trip(x, "mxint8", {}, 7), y);
  // The asymmetric -2.0 (code 0x80) is never produced.
  for (uint8_t c : quantize(x, 7, 10, 1, block_format_by_name("mxint8")).codes) EXPECT_NE(c, 0x80);
}

// mx/tests/test_corners_mx.py::test_mx_nans: a NaN or +-Inf anywhere makes the
// whole block NaN (scale code 0xFF), for fp8_e4m3 and fp4_e2m1 (and our MXINT8).
TEST(BlockScaledConformance, ANanOrInfMakesTheWholeBlockNan) {
  for (const char* fmt : {"mxfp8_e4m3", "mxfp4_e2m1", "mxint8", "mxfp6_e3m2", "mxfp8_e5m2"})
    for (float v : {NAN, INFINITY, -INFINITY}) {
      const block_tensor t = quantize(std::vector<float>{v, 0, 0x1p127f, 0}, 1, 4, 1, block_format_by_name(fmt));
      EXPECT_EQ(t.scales, std::vector<uint8_t>{0xff}) << fmt;
      for (float d : dequantize(t)) EXPECT_TRUE(std::isnan(d)) << fmt;
    }
}

// _quantize_mx on a zero block: the block stays zero at the smallest scale.
TEST(BlockScaledConformance, AZeroBlockIsZerosAtTheSmallestScale) {
  for (const auto& f : all_block_formats()) {
    const block_tensor t = quantize(std::vector<float>(40, 0.0f), 1, 40, 1, f);
    for (float d : dequantize(t)) EXPECT_EQ(d, 0.0f) << f.name;
    for (uint8_t c : t.codes) EXPECT_EQ(c, 0) << f.name;
    // floor(log2(0 + 2^-126)) - emax, clamped at -127: 2^-127, but 2^-126 for MXINT8 (emax 0).
    const uint8_t s = f.elem == elem_type::int8 ? 1 : 0;
    if (f.scale == scale_type::e8m0) {
      EXPECT_EQ(t.scales, (std::vector<uint8_t>{s, s})) << f.name;
    }
  }
}

// The scale is floor(log2 amax) - emax, clamped below at -127: a block far below
// 2^-127 rounds to zero element by element. And FP4 (notes' port of _quantize_mx):
// 7 -> 6 (saturation under scale 1), 5 -> 6 / 4, 2.5 -> 3 / 2, 0.25 -> 0.5 / 0.
TEST(BlockScaledConformance, SharedExponentAndFp4Rounding) {
  const block_tensor tiny = quantize(std::vector<float>{0x1p-140f, 0x1p-128f}, 1, 2, 1, block_format_by_name("mxfp4_e2m1"));
  EXPECT_EQ(tiny.scales[0], 0);
  EXPECT_EQ(dequantize(tiny), (std::vector<float>{0.0f, 0x1p-128f}));
  const std::vector<float> x = {7, 5, 2.5, 0.25, -5, -2.5};
  EXPECT_EQ(quantize(x, 1, 6, 1, block_format_by_name("mxfp4_e2m1")).scales[0], 127);
  EXPECT_EQ(bsc_round_trip(x, "mxfp4_e2m1"), (std::vector<float>{6, 6, 3, 0.5, -6, -3}));
  EXPECT_EQ(bsc_round_trip(x, "mxfp4_e2m1", k_bsc_even), (std::vector<float>{6, 4, 2, 0, -4, -2}));
}

// Variant rceil (TransformerEngine's MXFP8 float_to_e8m0(amax / max_norm), rounded up).
TEST(BlockScaledConformance, RceilVariantRoundsTheScaleUp) {
  const quantize_options rceil{.scale_rule = mx_scale_rule::rceil};
  EXPECT_EQ(quantize(std::vector<float>{485}, 1, 1, 1, block_format_by_name("mxfp8_e4m3"), rceil).scales[0], 128);
  EXPECT_EQ(bsc_round_trip({485, 98}, "mxfp8_e4m3", rceil), (std::vector<float>{480, 96}));  // 242.5 -> 240, 49 -> 48
  EXPECT_EQ(bsc_round_trip({448, 98}, "mxfp8_e4m3", rceil), (std::vector<float>{448, 96}));  // 448 / 448: scale 1
}

// TransformerEngine NVFP4: with amax 2688 the tensor scale is 1, and a block of
// amax 6 has scale 1, so the elements meet cast_to_fp4x2's thresholds as they are.
TEST(BlockScaledConformance, Nvfp4ThresholdsAreRoundToNearestEven) {
  std::vector<float> x(32, 0.0f);
  x[0] = 2688;  // block 0: scale 448 (S_enc = 1)
  const std::vector<float> probe = {0.25f, 0.2500001f, 0.75f, 1.25f, 1.2500001f, 1.75f, 2.5f, 2.5000002f,
                                    3.5f, 5.0f, 5.0000005f, -0.25f, -0.75f, -3.5f};
  x[16] = 6;
  for (size_t k = 0; k < probe.size(); ++k) x[17 + k] = probe[k];
  const block_tensor t = quantize(x, 1, 32, 1, block_format_by_name("nvfp4"));
  EXPECT_EQ(t.tensor_scale, 1.0f);
  EXPECT_EQ(t.scales, (std::vector<uint8_t>{0x7e, 0x38}));  // 448 and 1.0 in E4M3
  const std::vector<float> want = {0, 0.5, 1, 1, 1.5, 2, 2, 3, 4, 4, 6, -0.0f, -1, -4};
  const auto d = dequantize(t);
  for (size_t k = 0; k < probe.size(); ++k) EXPECT_EQ(d[17 + k], want[k]) << probe[k];
  EXPECT_EQ(t.codes[17 + 11], 0x8);  // -0.25 -> -0 (code 8), as the thresholds map it
}

// compute_global_encode_scaling_factor_FP4: 448 * 6 / amax; a zero tensor has scale 1.
TEST(BlockScaledConformance, Nvfp4TensorScale) {
  const auto& nv = block_format_by_name("nvfp4");
  const block_tensor zero = quantize(std::vector<float>(20, 0.0f), 1, 20, 1, nv);
  EXPECT_EQ(zero.tensor_scale, 1.0f);
  for (float d : dequantize(zero)) EXPECT_EQ(d, 0.0f);
  const block_tensor one = quantize(std::vector<float>{1, -0.5f}, 1, 2, 1, nv);
  EXPECT_EQ(one.tensor_scale, 1.0f / (448.0f * 6.0f / 1.0f));
  EXPECT_EQ(decode_scale(scale_type::e4m3, one.scales[0]), 448.0);  // the block holding amax: 448
  EXPECT_EQ(dequantize(one), (std::vector<float>{float(6 * 448) * one.tensor_scale, float(-3 * 448) * one.tensor_scale}));
}
