#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "foundation/formats/bit_fields.hpp"
#include "foundation/formats/format.hpp"
#include "foundation/formats/narrow_fp32.hpp"

using namespace sdc;

TEST(Formats, Bf16AllEncodingsRoundTripThroughFp32) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float x = float(decode(bf16(), b));
    const uint64_t back = encode(bf16(), double(x));
    const uint16_t fast = bf16_from_fp32(x);
    if (is_nan_bits(bf16(), b)) {
      // NaN policy: quieted, payload and sign kept.
      EXPECT_EQ(back, b | bf16().quiet_bit()) << b;
      EXPECT_EQ(fast, b | bf16().quiet_bit()) << b;
    } else {
      EXPECT_EQ(back, b) << b;
      EXPECT_EQ(fast, b) << b;
      EXPECT_EQ(std::bit_cast<uint32_t>(x), b << 16) << b;
    }
  }
}

TEST(Formats, Fp16AllEncodingsRoundTripThroughFp32) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float x = float(decode(fp16(), b));
    const float soft = fp32_from_fp16_soft(uint16_t(b));
    const uint64_t back = encode(fp16(), double(x));
    if (is_nan_bits(fp16(), b)) {
      EXPECT_TRUE(std::isnan(x));
      EXPECT_TRUE(std::isnan(soft));
      EXPECT_EQ(back, b | fp16().quiet_bit()) << b;
      EXPECT_EQ(fp16_from_fp32_soft(soft), b | fp16().quiet_bit()) << b;
    } else {
      EXPECT_EQ(back, b) << b;
      EXPECT_EQ(std::bit_cast<uint32_t>(soft), std::bit_cast<uint32_t>(x)) << b;
      EXPECT_EQ(fp16_from_fp32_soft(x), b) << b;
      EXPECT_EQ(fp16_from_fp32(x), b) << b;
    }
  }
}

TEST(Formats, Fp8AllEncodingsRoundTrip) {
  for (const char* name : {"fp8_e4m3", "fp8_e5m2"}) {
    const format& f = format_by_name(name);
    for (uint32_t b = 0; b < 256; ++b) {
      const double v = decode(f, b);
      if (is_nan_bits(f, b)) {
        EXPECT_TRUE(std::isnan(v));
        continue;
      }
      EXPECT_EQ(encode(f, v), b) << name << " " << b;
    }
  }
}

TEST(Formats, KnownValues) {
  EXPECT_EQ(bf16().max_finite(), 0x1.fep127);
  EXPECT_EQ(fp16().max_finite(), 65504.0);
  EXPECT_EQ(format_by_name("fp8_e4m3").max_finite(), 448.0);
  EXPECT_EQ(format_by_name("fp8_e5m2").max_finite(), 57344.0);
  EXPECT_EQ(fp16().min_subnormal(), std::ldexp(1.0, -24));
  EXPECT_EQ(bf16().min_subnormal(), std::ldexp(1.0, -133));
  EXPECT_EQ(bf16().unit_roundoff(), std::ldexp(1.0, -8));
  EXPECT_EQ(fp32().unit_roundoff(), std::ldexp(1.0, -24));
  // Ties to even: 1 + 2^-8 lies halfway between bf16 1 and 1 + 2^-7.
  EXPECT_EQ(round_to(bf16(), 1.0 + std::ldexp(1.0, -8)), 1.0);
  EXPECT_EQ(round_to(bf16(), 1.0 + 3 * std::ldexp(1.0, -8)), 1.0 + std::ldexp(1.0, -6));
  // Overflow: 65520 ties to inf in fp16; just below rounds to max.
  EXPECT_TRUE(std::isinf(round_to(fp16(), 65520.0)));
  EXPECT_EQ(round_to(fp16(), 65519.99), 65504.0);
  // E4M3 has no inf: overflow is NaN; 464 ties to 448 (even).
  EXPECT_EQ(round_to(format_by_name("fp8_e4m3"), 464.0), 448.0);
  EXPECT_TRUE(std::isnan(round_to(format_by_name("fp8_e4m3"), 470.0)));
  // Subnormals: smallest fp16 subnormal, and half of it ties to zero.
  EXPECT_EQ(round_to(fp16(), std::ldexp(1.0, -24)), std::ldexp(1.0, -24));
  EXPECT_EQ(round_to(fp16(), std::ldexp(1.0, -25)), 0.0);
  EXPECT_EQ(round_to(fp16(), std::ldexp(1.5, -25)), std::ldexp(1.0, -24));
  // Integers: RNE and saturation.
  EXPECT_EQ(round_to(format_by_name("int8"), 2.5), 2.0);
  EXPECT_EQ(round_to(format_by_name("int8"), 3.5), 4.0);
  EXPECT_EQ(round_to(format_by_name("int8"), 1000.0), 127.0);
  EXPECT_EQ(round_to(format_by_name("u8"), -3.0), 0.0);
  EXPECT_EQ(decode(format_by_name("s8"), 0x80), -128.0);
}

TEST(Formats, FormatByNameRejectsUnknown) { EXPECT_THROW(format_by_name("fp12"), std::exception); }

TEST(BitFields, CanonicalIndicesAndAliases) {
  std::string why;
  EXPECT_EQ(parse_bit_ref("exp1").resolve(bf16(), &why), 14);
  EXPECT_EQ(parse_bit_ref("exp8").resolve(bf16(), &why), 7);
  EXPECT_EQ(parse_bit_ref("sign").resolve(bf16(), &why), 15);
  EXPECT_EQ(parse_bit_ref("mant1").resolve(bf16(), &why), 6);
  EXPECT_EQ(parse_bit_ref("exp1").resolve(fp32(), &why), 30);
  EXPECT_EQ(parse_bit_ref("exp1").resolve(fp16(), &why), 14);
  EXPECT_EQ(parse_bit_ref("exp5").resolve(fp16(), &why), 10);
  EXPECT_EQ(parse_bit_ref("exp1").resolve(fp64(), &why), 62);
  EXPECT_FALSE(parse_bit_ref("exp1").resolve(format_by_name("int8"), &why));
  EXPECT_NE(why.find("no exponent"), std::string::npos);
  EXPECT_FALSE(parse_bit_ref("exp6").resolve(fp16(), &why));
  EXPECT_FALSE(parse_bit_ref("20").resolve(bf16(), &why));
  EXPECT_EQ(bit_alias(bf16(), 14), "exp1");
  EXPECT_EQ(bit_alias(bf16(), 7), "exp8");
  EXPECT_EQ(bit_alias(bf16(), 0), "mant7");
  EXPECT_EQ(bit_alias(bf16(), 15), "sign");
  for (const auto& f : all_formats())
    for (int b = 0; b < f.bits; ++b) {
      const std::string alias = bit_alias(f, b);
      if (alias.starts_with("bit")) continue;
      EXPECT_EQ(parse_bit_ref(alias).resolve(f, &why), b) << f.name << " " << alias;
    }
  EXPECT_THROW(parse_bit_ref("exp0"), std::exception);
  EXPECT_THROW(parse_bit_ref("foo"), std::exception);
}

TEST(BitFields, Sets) {
  std::string why;
  EXPECT_EQ(parse_bit_set_ref("exp").resolve(bf16(), &why)->size(), 8u);
  EXPECT_EQ(parse_bit_set_ref("mant").resolve(fp32(), &why)->size(), 23u);
  EXPECT_EQ(parse_bit_set_ref("4-7").resolve(format_by_name("int8"), &why)->front(), 4);
  EXPECT_FALSE(parse_bit_set_ref("exp").resolve(format_by_name("int8"), &why));
  EXPECT_EQ(parse_bit_set_ref("value").resolve(format_by_name("u8"), &why)->size(), 8u);
}

#include "injectors/tensor_view.hpp"

TEST(Formats, RoundIntoMatchesGenericRounding) {
  const double probes[] = {0.0, -0.0, 1.0 + std::ldexp(1.0, -8), 1.0 + std::ldexp(1.0, -24), 65519.99, 65520.0, 1e-8,
                           std::ldexp(1.0, -150), std::ldexp(3.0, -151), 3.4e38, 3.5e38, -1e300, 0.1, -2.5e-5};
  for (const auto& f : all_formats()) {
    if (!f.is_float()) continue;
    for (double x : probes) {
      const double want = round_to(f, x);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(double(round_into<float>(f, x)))) << f.name << " " << x;
        continue;
      }
      if (f.bits == 64) EXPECT_EQ(round_into<double>(f, x), want);
      else EXPECT_EQ(double(round_into<float>(f, x)), want) << f.name << " " << x;
    }
  }
}
