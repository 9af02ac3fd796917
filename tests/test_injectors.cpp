// Property tests: every format x every bit x every fault model changes exactly
// what it promises, and the record says so. The papers' own fault models
// (000's eq. 2, 003's modes, mix): test_fault_models.cpp (the same program).
#include <gtest/gtest.h>

#include <bit>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "injectors/inject.hpp"

using namespace sdc;

namespace {

// A rows x cols tensor of random encodings of f (non-NaN), held in f's storage.
struct tensor_fixture {
  const format& f;
  std::vector<double> d;
  std::vector<float> s;
  std::vector<int8_t> i8;
  std::vector<uint8_t> u8;
  std::vector<int32_t> i32;
  tensor_view view;
  tensor_fixture(const format& fmt, int64_t rows, int64_t cols, uint64_t seed) : f(fmt) {
    const size_t n = size_t(rows * cols);
    void* data = nullptr;
    switch (f.storage) {
      case storage_type::f64: d.resize(n), data = d.data(); break;
      case storage_type::f32: s.resize(n), data = s.data(); break;
      case storage_type::s8: i8.resize(n), data = i8.data(); break;
      case storage_type::u8: u8.resize(n), data = u8.data(); break;
      case storage_type::s32: i32.resize(n), data = i32.data(); break;
    }
    view = tensor_view{&f, data, rows, cols};
    rng g = make_stream(seed, 1, 2, trial_kind::faulty, stream_purpose::data);
    boost::random::uniform_int_distribution<uint64_t> u(0, f.mask());
    for (int64_t i = 0; i < rows * cols; ++i) {
      uint64_t b;
      do b = u(g);
      while (is_nan_bits(f, b) || is_inf_bits(f, b));
      view.set_bits(i, b);
      EXPECT_EQ(view.bits_at(i), b) << f.name;
    }
  }
};

std::vector<std::vector<int>> single_bits(const format& f) {
  std::vector<std::vector<int>> out;
  for (int b = 0; b < f.bits; ++b) out.push_back({b});
  return out;
}

void expect_record_consistent(const tensor_view& t, const injection_record& r, const std::vector<uint64_t>& before) {
  ASSERT_TRUE(r.applied);
  EXPECT_EQ(r.old_bits, before[size_t(r.index)]);
  EXPECT_EQ(t.bits_at(r.index), r.new_bits);
  EXPECT_EQ(r.row * t.cols + r.col, r.index);
  const double ov = decode(*t.fmt, r.old_bits), nv = decode(*t.fmt, r.new_bits);
  if (!std::isnan(ov)) {
    EXPECT_EQ(r.old_value, ov);
  }
  if (!std::isnan(nv)) EXPECT_EQ(r.new_value, nv);
  else EXPECT_TRUE(std::isnan(r.new_value));
  for (int64_t i = 0; i < t.size(); ++i)
    if (i != r.index) {
      EXPECT_EQ(t.bits_at(i), before[size_t(i)]) << "only the site may change";
    }
}

std::vector<uint64_t> snapshot(const tensor_view& t) {
  std::vector<uint64_t> v;
  for (int64_t i = 0; i < t.size(); ++i) v.push_back(t.bits_at(i));
  return v;
}

}  // namespace

TEST(Injectors, EveryFormatEveryBitEveryBitModel) {
  const char* models[] = {"bitflip", "flip_0to1", "flip_1to0", "stuck_at_0", "stuck_at_1"};
  uint64_t seed = 0;
  for (const auto& f : all_formats()) {
    tensor_fixture fx(f, 4, 5, ++seed);
    for (const auto& bits : single_bits(f)) {
      const uint64_t mask = 1ull << bits[0];
      for (const char* m : models) {
        fault_spec spec{parse_fault_model(m), bits, site_rule{}};
        rng g = make_stream(seed, uint64_t(bits[0]), 0, trial_kind::faulty, stream_purpose::fault);
        const auto before = snapshot(fx.view);
        const auto r = inject(fx.view, spec, g);
        if (!r.applied) {
          // Only a directed flip may fail, and only when no element has the bit in the source state.
          ASSERT_TRUE(spec.model.is_directed()) << f.name << " " << m;
          const bool want_one = spec.model.k == fault_model::kind::flip_1to0;
          for (auto b : before) EXPECT_NE(bool(b & mask), want_one) << f.name << " bit " << bits[0];
          EXPECT_FALSE(r.skip_reason.empty());
          continue;
        }
        expect_record_consistent(fx.view, r, before);
        const uint64_t changed = r.old_bits ^ r.new_bits;
        EXPECT_EQ(changed & ~mask, 0u) << f.name << " " << m << ": only the named bit may change";
        switch (spec.model.k) {
          case fault_model::kind::bitflip: EXPECT_EQ(changed, mask); break;
          case fault_model::kind::flip_0to1:
            EXPECT_EQ(changed, mask);
            EXPECT_TRUE(r.new_bits & mask);
            break;
          case fault_model::kind::flip_1to0:
            EXPECT_EQ(changed, mask);
            EXPECT_FALSE(r.new_bits & mask);
            break;
          case fault_model::kind::stuck_at_0: EXPECT_FALSE(r.new_bits & mask); break;
          case fault_model::kind::stuck_at_1: EXPECT_TRUE(r.new_bits & mask); break;
          default: break;
        }
        fx.view.set_bits(r.index, r.old_bits);  // restore for the next case
      }
    }
  }
}

TEST(Injectors, DirectedFlipSkipsWhenNoSiteQualifies) {
  std::vector<float> zeros(12, 0.0f);
  tensor_view t{&fp32(), zeros.data(), 3, 4};
  fault_spec spec{parse_fault_model("flip_1to0"), {30}, site_rule{}};
  rng g = make_stream(1, 2, 3, trial_kind::faulty, stream_purpose::fault);
  const auto r = inject(t, spec, g);
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(r.attempts, k_directed_flip_attempts);
  EXPECT_NE(r.skip_reason.find("flip_1to0"), std::string::npos);
  for (float z : zeros) EXPECT_EQ(std::bit_cast<uint32_t>(z), 0u);
}

TEST(Injectors, ValueModelsEveryFormat) {
  uint64_t seed = 100;
  for (const auto& f : all_formats()) {
    tensor_fixture fx(f, 3, 7, ++seed);
    for (int rep = 0; rep < 20; ++rep) {
      rng g = make_stream(seed, 9, uint64_t(rep), trial_kind::faulty, stream_purpose::fault);
      {  // random_value: any other encoding
        const auto before = snapshot(fx.view);
        const auto r = inject(fx.view, {parse_fault_model("random_value"), {}, {}}, g);
        expect_record_consistent(fx.view, r, before);
        EXPECT_NE(r.new_bits, r.old_bits);
        EXPECT_EQ(r.new_bits & ~f.mask(), 0u);
        fx.view.set_bits(r.index, r.old_bits);
      }
      {  // multiply(F): the rounded product
        const auto before = snapshot(fx.view);
        const auto r = inject(fx.view, {parse_fault_model("multiply(-1024)"), {}, {}}, g);
        expect_record_consistent(fx.view, r, before);
        EXPECT_EQ(r.new_bits, encode(f, r.old_value * -1024.0)) << f.name;
        fx.view.set_bits(r.index, r.old_bits);
      }
      {  // set_max: largest finite magnitude, sign kept
        const auto before = snapshot(fx.view);
        const auto r = inject(fx.view, {parse_fault_model("set_max"), {}, {}}, g);
        expect_record_consistent(fx.view, r, before);
        if (f.is_float() || !f.has_sign() || r.old_value >= 0) {
          EXPECT_EQ(std::fabs(r.new_value), f.max_finite()) << f.name;
          EXPECT_EQ(std::signbit(r.new_value), std::signbit(r.old_value)) << f.name;
        } else {
          EXPECT_EQ(r.new_value, -f.max_finite() - 1);
        }
        fx.view.set_bits(r.index, r.old_bits);
      }
      // bitflip_random(k, FIELD): exactly k distinct bits, all inside the field.
      for (const char* field : {"all", "exp", "mant", "value"}) {
        std::string why;
        auto bits = parse_bit_set_ref(field).resolve(f, &why);
        if (!bits) continue;
        const int k = std::min<int>(3, int(bits->size()));
        const auto model = parse_fault_model("bitflip_random(" + std::to_string(k) + "," + field + ")");
        const auto before = snapshot(fx.view);
        const auto r = inject(fx.view, {model, *bits, {}}, g);
        expect_record_consistent(fx.view, r, before);
        const uint64_t changed = r.old_bits ^ r.new_bits;
        EXPECT_EQ(std::popcount(changed), k) << f.name << " " << field;
        uint64_t field_mask = 0;
        for (int b : *bits) field_mask |= 1ull << b;
        EXPECT_EQ(changed & ~field_mask, 0u);
        fx.view.set_bits(r.index, r.old_bits);
      }
    }
  }
}

TEST(Injectors, SiteRules) {
  rng g = make_stream(5, 5, 5, trial_kind::faulty, stream_purpose::fault);
  std::vector<int> hits(6 * 9, 0);
  for (int rep = 0; rep < 3000; ++rep) hits[size_t(parse_site_rule("uniform").draw(6, 9, g))]++;
  for (int h : hits) EXPECT_GT(h, 20) << "uniform must reach every element";
  for (int rep = 0; rep < 200; ++rep) {
    EXPECT_EQ(parse_site_rule("row(4)").draw(6, 9, g) / 9, 4);
    EXPECT_EQ(parse_site_rule("col(7)").draw(6, 9, g) % 9, 7);
    EXPECT_EQ(parse_site_rule("at(5,8)").draw(6, 9, g), 5 * 9 + 8);
  }
  EXPECT_FALSE(parse_site_rule("row(6)").check(6, 9).empty());
  EXPECT_TRUE(parse_site_rule("col(8)").check(6, 9).empty());
  EXPECT_THROW(parse_site_rule("diag(3)"), std::exception);
}

TEST(Injectors, StepSchedules) {
  auto cyc = parse_step_schedule("cycle(5,3)");
  std::vector<int64_t> fired;
  for (int64_t s = 0; s < 15; ++s)
    if (cyc.fires(s)) fired.push_back(s);
  EXPECT_EQ(fired, (std::vector<int64_t>{8, 11, 14}));  // 003's cycle: step - start > 0 and divisible by the period
  auto sp = parse_step_schedule("specific(9,2,4)");
  EXPECT_TRUE(sp.fires(2) && sp.fires(4) && sp.fires(9));
  EXPECT_FALSE(sp.fires(3) || sp.fires(10));
  EXPECT_EQ(sp.text(), "specific(2,4,9)");
  EXPECT_TRUE(parse_step_schedule("always").fires(123));
  EXPECT_THROW(parse_step_schedule("cycle(1,0)"), std::exception);
}

// uniform(A,B): one step per episode, drawn from A..B inclusive, every step
// drawn about equally often; it fires only once drawn.
TEST(Injectors, AUniformScheduleDrawsOneStepPerEpisode) {
  const auto u = parse_step_schedule("uniform(0,5)");
  EXPECT_EQ(u.text(), "uniform(0,5)");
  EXPECT_EQ(u.earliest(), 0);
  EXPECT_THROW(u.fires(0), std::logic_error);
  std::vector<int> seen(6, 0);
  for (uint64_t t = 0; t < 600; ++t) {
    rng g = make_stream(1, 2, t, trial_kind::faulty, stream_purpose::fault);
    const auto d = u.drawn(g);
    ASSERT_EQ(d.steps.size(), 1u);
    ASSERT_GE(d.steps[0], 0);
    ASSERT_LE(d.steps[0], 5);
    ++seen[size_t(d.steps[0])];
    EXPECT_TRUE(d.fires(d.steps[0]));
  }
  for (int n : seen) EXPECT_GT(n, 60) << "each of 6 steps about 100 times in 600";
  EXPECT_THROW(parse_step_schedule("uniform(3,2)"), std::exception);
  EXPECT_THROW(parse_step_schedule("uniform(-1,2)"), std::exception);
  EXPECT_EQ(parse_step_schedule("specific(3)").drawn(*std::make_unique<rng>()).text(), "specific(3)");
}

TEST(Injectors, ParseModelsAndBitChoices) {
  for (const char* m : {"bitflip", "flip_0to1", "flip_1to0", "stuck_at_0", "stuck_at_1", "random_value", "set_max",
                        "multiply(1000)", "bitflip_random(2,exp)", "bitflip_designed", "exp_growth"})
    EXPECT_EQ(parse_fault_model(m).text(), m);
  EXPECT_THROW(parse_fault_model("multiply(x)"), std::exception);
  EXPECT_THROW(parse_fault_model("bitflip_random(0,exp)"), std::exception);
  auto c = parse_bit_choice("exp1+exp2");
  std::string why;
  EXPECT_EQ(*c.resolve(bf16(), &why), (std::vector<int>{14, 13}));
  EXPECT_FALSE(parse_bit_choice("exp1+14").resolve(bf16(), &why)) << "the same bit twice";
  EXPECT_TRUE(parse_bit_choice("none").bits.empty());
}
