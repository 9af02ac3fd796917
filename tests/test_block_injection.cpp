// Faults in block-scaled tensors (injectors/block_target.hpp): a code fault
// moves exactly its element, a block-scale fault exactly its block, the
// tensor scale any element; bit names per element and scale type; records.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "foundation/errors.hpp"
#include "injectors/block_target.hpp"

using namespace sdc;

namespace {

// A rows x cols tensor of nonzero values of moderate size (scales near 2^0),
// quantized with `fmt` along rows; every code nonzero, so a scale moves all its block.
block_tensor bi_nonzero_tensor(const block_format& fmt, int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.75, 1.5);
  std::vector<float> x(size_t(rows * cols));
  for (auto& v : x) v = float((g() & 1 ? -1 : 1) * u(g));
  return quantize(x, rows, cols, 1, fmt);
}

// The row-major elements whose dequantized fp32 bits differ.
std::vector<int64_t> bi_changed(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<uint32_t>(a[i]) != std::bit_cast<uint32_t>(b[i])) out.push_back(int64_t(i));
  return out;
}

fault_spec bi_flip(int bit, const std::string& site) { return {parse_fault_model("bitflip"), {bit}, parse_site_rule(site)}; }

}  // namespace

TEST(BlockInjection, ACodeFaultMovesExactlyItsElement) {
  for (const auto& f : all_block_formats()) {
    block_tensor t = bi_nonzero_tensor(f, 3, 40, 1);
    const int bits = element_format(f.elem).bits;
    rng g = make_stream(7, 1, 2, trial_kind::faulty, stream_purpose::fault);
    for (int rep = 0; rep < 64; ++rep) {
      const auto before = dequantize(t);
      const auto r = inject_block(t, block_part::code, bi_flip(rep % bits, "uniform"), g);
      ASSERT_TRUE(r.fault.applied);
      const auto moved = bi_changed(before, dequantize(t));
      EXPECT_EQ(r.moved, moved) << f.name;
      ASSERT_EQ(moved.size(), 1u) << f.name << " bit " << rep % bits;  // every code flip of a nonzero code moves it
      EXPECT_EQ(moved[0], r.fault.index);
      EXPECT_EQ(std::bit_cast<uint32_t>(r.old_values[0]), std::bit_cast<uint32_t>(before[size_t(moved[0])]));
    }
  }
}

TEST(BlockInjection, AScaleFaultMovesExactlyItsBlock) {
  for (const auto& f : all_block_formats()) {
    for (int axis : {1, 0}) {
      std::vector<float> x = dequantize(bi_nonzero_tensor(f, 40, 35, 2));
      for (int bit = 0; bit < 8; ++bit) {
        block_tensor t = quantize(x, 40, 35, axis, f);
        const int64_t b = (bit * 5) % int64_t(t.scales.size());
        const int64_t i = b / t.scale_cols(), j = b % t.scale_cols();
        rng g = make_stream(7, 3, uint64_t(bit), trial_kind::faulty, stream_purpose::fault);
        const auto before = dequantize(t);
        const auto r = inject_block(t, block_part::block_scale, bi_flip(bit, "at(" + std::to_string(i) + "," + std::to_string(j) + ")"), g);
        ASSERT_EQ(r.fault.index, b);
        EXPECT_EQ(bi_changed(before, dequantize(t)), t.elements_of_block(b)) << f.name << " axis " << axis << " bit " << bit;
        EXPECT_EQ(r.moved, t.elements_of_block(b));
        EXPECT_EQ(r.part, block_part::block_scale);
      }
    }
  }
}

TEST(BlockInjection, TheTensorScaleIsNvfp4sAndMovesAnyElement) {
  const auto& nv = block_format_by_name("nvfp4");
  block_tensor t = bi_nonzero_tensor(nv, 2, 20, 3);
  rng g = make_stream(1, 1, 1, trial_kind::faulty, stream_purpose::fault);
  const auto r = inject_block(t, block_part::tensor_scale, bi_flip(23, "uniform"), g);  // fp32 exponent LSB: x2 or /2
  EXPECT_EQ(r.fault.index, 0);
  EXPECT_EQ(r.moved.size(), t.codes.size());
  for (size_t k = 0; k < r.moved.size(); ++k) EXPECT_EQ(std::fabs(r.new_values[k] / r.old_values[k]), r.fault.new_value / r.fault.old_value);
  block_tensor mx = bi_nonzero_tensor(block_format_by_name("mxfp8_e4m3"), 1, 4, 3);
  EXPECT_THROW(block_part_target(mx, block_part::tensor_scale), value_error);
}

TEST(BlockInjection, BitsAreNamedPerElementAndScaleType) {
  block_tensor mx4 = bi_nonzero_tensor(block_format_by_name("mxfp4_e2m1"), 1, 4, 4);
  block_tensor mxi = bi_nonzero_tensor(block_format_by_name("mxint8"), 1, 4, 4);
  block_tensor nv = bi_nonzero_tensor(block_format_by_name("nvfp4"), 1, 4, 4);
  std::string why;
  auto bit = [&](const block_tensor& t, block_part p, const char* name) {
    return parse_bit_ref(name).resolve(block_part_format(t, p), &why);
  };
  EXPECT_EQ(bit(mx4, block_part::code, "sign"), 3);
  EXPECT_EQ(bit(mx4, block_part::code, "exp1"), 2);
  EXPECT_EQ(bit(mx4, block_part::code, "mant1"), 0);
  EXPECT_EQ(bit(mx4, block_part::block_scale, "exp1"), 7);  // E8M0: eight exponent bits, no sign
  EXPECT_EQ(bit(mx4, block_part::block_scale, "exp8"), 0);
  EXPECT_FALSE(bit(mx4, block_part::block_scale, "sign"));
  EXPECT_FALSE(bit(mx4, block_part::block_scale, "mant1"));
  EXPECT_EQ(bit(nv, block_part::block_scale, "sign"), 7);   // E4M3
  EXPECT_EQ(bit(nv, block_part::block_scale, "mant1"), 2);
  EXPECT_EQ(bit(nv, block_part::tensor_scale, "exp1"), 30);
  EXPECT_EQ(bit(mxi, block_part::code, "sign"), 7);
  EXPECT_FALSE(bit(mxi, block_part::code, "exp1"));
  EXPECT_EQ(bit_alias(block_part_format(mx4, block_part::block_scale), 7), "exp1");
}

TEST(BlockInjection, MultiBitStuckAtAndPatternsRecordWhatMoved) {
  const auto& f = block_format_by_name("mxfp8_e4m3");
  block_tensor t = bi_nonzero_tensor(f, 2, 64, 5);
  rng g = make_stream(2, 2, 2, trial_kind::faulty, stream_purpose::fault);
  // Two scale bits at once: 2^0 (code 127) -> exp7 and exp8 cleared -> 2^-3.
  auto bits = parse_bit_choice("exp7+exp8").resolve(e8m0(), nullptr);
  ASSERT_TRUE(bits);
  const auto two = inject_block(t, block_part::block_scale, {parse_fault_model("bitflip"), *bits, parse_site_rule("at(0,1)")}, g);
  EXPECT_EQ(two.fault.old_bits ^ two.fault.new_bits, 3u);
  EXPECT_EQ(two.moved, t.elements_of_block(1));
  // Stuck-at on a bit already set: applied, nothing moves.
  const uint8_t c = t.codes[5];
  const int set_bit = std::countr_zero(unsigned(c));
  const auto stuck = inject_block(t, block_part::code, {parse_fault_model("stuck_at_1"), {set_bit}, parse_site_rule("at(0,5)")}, g);
  EXPECT_FALSE(stuck.fault.changed());
  EXPECT_TRUE(stuck.moved.empty());
  // A run of four codes: each record names its own element.
  const auto run = inject_block_pattern(t, block_part::code, bi_flip(6, "run(4)"), g);
  ASSERT_EQ(run.size(), 4u);
  for (const auto& r : run) {
    EXPECT_EQ(r.moved, std::vector<int64_t>{r.fault.index});
    EXPECT_EQ(r.fault.pattern, "run(4)");
  }
  EXPECT_THROW(inject_block(t, block_part::code, bi_flip(6, "run(4)"), g), value_error);
}

TEST(BlockInjection, Int8CodeRecordsCarryElementValues) {
  block_tensor t = quantize(std::vector<float>{1.0f, -0.5f}, 1, 2, 1, block_format_by_name("mxint8"));
  rng g = make_stream(3, 3, 3, trial_kind::faulty, stream_purpose::fault);
  const auto r = inject_block(t, block_part::code, bi_flip(7, "at(0,1)"), g);  // the sign bit of two's complement
  EXPECT_EQ(r.fault.old_value, -0.5);
  EXPECT_EQ(r.fault.new_value, decode_element(elem_type::int8, uint8_t(r.fault.new_bits)));
  EXPECT_THROW(parse_block_part("scale"), value_error);
  EXPECT_EQ(parse_block_part("block_scale"), block_part::block_scale);
}
