// The papers' fault models as the injectors run them: 000's eq. 2 against
// eq. 1's XOR, 003's bitflip_designed and multiply_max, and mix(S,N)'s three
// branches in their proportions. Part of the test_injectors program.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "injectors/inject.hpp"

using namespace sdc;

// 000's eq. 2 (bff(x, i, n) = x 2^(2^(n-i-1))): growth by 2^128, 2^64, 2^32 for the
// 1st, 2nd, 3rd exponent bit of bf16 whatever the bit holds, where eq. 1's XOR
// (bitflip) of the 2nd or 3rd bit shrinks every |x| < 2.
TEST(Injectors, ExpGrowthIsEquationTwoAndBitflipIsTheLiteralXor) {
  rng g(1);
  std::vector<float> v{0.5f, 0.5f, 0.5f, 1.5f, 0.5f};
  const tensor_view tv{&bf16(), v.data(), 1, 5};
  auto grow = [&](const char* bit, const char* at) {
    std::string why, axis;
    const auto bits = resolve_fault_bits(parse_fault_model("exp_growth"), parse_bit_choice(bit), bf16(), &why, &axis);
    EXPECT_TRUE(bits) << why;
    return inject(tv, {parse_fault_model("exp_growth"), *bits, parse_site_rule(at)}, g);
  };
  EXPECT_TRUE(grow("exp1", "at(0,0)").applied);
  EXPECT_EQ(v[0], std::ldexp(0.5f, 128));
  grow("exp2", "at(0,1)");
  EXPECT_EQ(v[1], std::ldexp(0.5f, 64));
  grow("exp3", "at(0,2)");
  EXPECT_EQ(v[2], std::ldexp(0.5f, 32));
  grow("exp1", "at(0,3)");
  EXPECT_TRUE(std::isinf(v[3]));  // 1.5 2^128 is past bf16's range
  const auto xor2 = inject(tv, {parse_fault_model("bitflip"), *parse_bit_choice("exp2").resolve(bf16(), nullptr), parse_site_rule("at(0,4)")}, g);
  ASSERT_TRUE(xor2.applied);
  EXPECT_EQ(v[4], std::ldexp(0.5f, -64));  // 0.5 = 2^-1 holds exp2 = 1: the XOR shrinks it
  std::string why, axis;
  EXPECT_FALSE(resolve_fault_bits(parse_fault_model("exp_growth"), parse_bit_choice("mant1"), bf16(), &why, &axis));
  EXPECT_NE(why.find("exponent bits"), std::string::npos) << why;
}

// 003's modes: bitflip_designed sets the highest 0 exponent bit; multiply_max
// is multiply(F) at site max_abs, every element tied for the largest |x|.
TEST(Injectors, BitflipDesignedSetsTheHighestZeroExponentBit) {
  rng g(1);
  std::vector<float> v{0.5f, 3.0f, -1.0e-3f, std::numeric_limits<float>::infinity()};
  const tensor_view tv{&fp32(), v.data(), 1, 4};
  const fault_spec spec{parse_fault_model("bitflip_designed"), {}, parse_site_rule("at(0,0)")};
  auto r = inject(tv, spec, g);  // 0.5: exponent 0111 1110, its MSB (bit 30) is 0
  ASSERT_TRUE(r.applied);
  EXPECT_EQ(r.new_bits, r.old_bits | (1u << 30));
  v[0] = std::bit_cast<float>(0x7f000000u);  // exponent 1111 1110: only bit 23 is 0
  r = inject(tv, spec, g);
  EXPECT_EQ(r.new_bits, 0x7f800000u);
  const fault_spec inf_spec{parse_fault_model("bitflip_designed"), {}, parse_site_rule("at(0,3)")};
  EXPECT_FALSE(inject(tv, inf_spec, g).applied);  // Inf: no 0 exponent bit, no other site at(0,3)
  std::string why, axis;
  EXPECT_FALSE(resolve_fault_bits(parse_fault_model("bitflip_designed"), parse_bit_choice("none"), s8(), &why, &axis));
  EXPECT_EQ(axis, "fault");
}

TEST(Injectors, MaxAbsSiteMultipliesEveryElementTiedForTheLargestMagnitude) {
  rng g(1);
  std::vector<float> v{1.0f, -4.0f, 2.0f, 4.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  tensor_target t(tensor_view{&fp32(), v.data(), 2, 3});
  const fault_spec spec{parse_fault_model("multiply(10)"), {}, parse_site_rule("max_abs")};
  const auto recs = inject_max_abs(t, spec, g);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].index, 1);
  EXPECT_EQ(recs[1].index, 3);
  EXPECT_EQ(recs[1].row, 1);
  EXPECT_EQ(recs[1].col, 0);
  EXPECT_EQ(v[1], -40.0f);
  EXPECT_EQ(v[3], 40.0f);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[5], 3.0f);
  EXPECT_EQ(parse_site_rule("max_abs").text(), "max_abs");
  EXPECT_THROW(single_site("max_abs"), std::exception);
}

// mix(S,N): the three branches in their proportions, each doing what it says.
TEST(Injectors, MixDrawsSingleFlipsNonFiniteAndRandomValuesInProportion) {
  const format& f = fp32();
  const auto m = parse_fault_model("mix(0.3,0.1)");
  EXPECT_EQ(m.text(), "mix(0.3,0.1)");
  std::string why, axis;
  const auto bits = resolve_fault_bits(m, parse_bit_choice("none"), f, &why, &axis);
  ASSERT_TRUE(bits) << why;
  rng g = make_stream(7, 7, 7, trial_kind::faulty, stream_purpose::fault);
  const uint64_t old = encode(f, -0.75);
  int single = 0, nonfinite = 0, other = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const uint64_t b = *apply_fault(m, f, *bits, old, g);
    ASSERT_NE(b, old);
    const double x = decode(f, b);
    if (std::popcount(b ^ old) == 1) ++single;
    else if (!std::isfinite(x) && (b >> 31) == 1 && ((b >> 23) & 0xff) == 0xff) ++nonfinite;  // sign kept, exponent all ones
    else ++other;
  }
  // Binomial 4-sigma bands around 0.3, 0.1 (a random value is single-bit or non-finite rarely: 32/2^32, 2^24/2^32).
  EXPECT_NEAR(single / double(n), 0.3, 4 * std::sqrt(0.3 * 0.7 / n));
  EXPECT_NEAR(nonfinite / double(n), 0.1 + 0.6 / 256, 4 * std::sqrt(0.1 * 0.9 / n) + 0.6 / 256);
  EXPECT_NEAR(other / double(n), 0.6, 4 * std::sqrt(0.6 * 0.4 / n) + 0.6 / 256);
  // Refused: probabilities out of range or summing past 1, and NaN/Inf in an integer format.
  EXPECT_THROW(parse_fault_model("mix(0.7,0.4)"), std::exception);
  EXPECT_THROW(parse_fault_model("mix(-0.1,0)"), std::exception);
  EXPECT_THROW(parse_fault_model("mix(0.5)"), std::exception);
  EXPECT_FALSE(resolve_fault_bits(m, parse_bit_choice("none"), s8(), &why, &axis));
  EXPECT_EQ(axis, "fault");
  EXPECT_TRUE(resolve_fault_bits(parse_fault_model("mix(0.5,0)"), parse_bit_choice("none"), s8(), &why, &axis));
}
