// The block-scaled GEMM (issue 69): the integer kernel against its MPFR twin
// bit for bit, a one-block product against MPFR's exact dequantized product
// rounded once, the fp32 rounding of a scaled integer against MPFR, and the
// checks on fault-free quantized GEMMs: V-ABFT at its calibrated e_max and
// the scale check stay clean; the scale check sees a flipped scale exponent.
#include <gtest/gtest.h>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/formats/block_scaled.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/kernels/block_gemm/block_gemm.hpp"
#include "foundation/random/streams.hpp"

using namespace sdc;
using json = nlohmann::json;

namespace {

struct bg_pair {
  std::vector<float> a, b;
  block_tensor aq, bq;
};

bg_pair bg_draw(const block_format& f, int64_t m, int64_t k, int64_t n, uint64_t seed, double sigma = 1.0) {
  rng g = make_stream(seed, 69, 2, trial_kind::clean, stream_purpose::data);
  boost::random::normal_distribution<double> d(0.0, sigma);
  bg_pair p;
  p.a.resize(size_t(m * k)), p.b.resize(size_t(k * n));
  for (auto& x : p.a) x = float(d(g));
  for (auto& x : p.b) x = float(d(g));
  p.aq = quantize(p.a, m, k, 1, f), p.bq = quantize(p.b, k, n, 0, f);
  return p;
}

bool bg_same_bits(float x, float y) { return std::bit_cast<uint32_t>(x) == std::bit_cast<uint32_t>(y); }

std::unique_ptr<gemm_detector> bg_make(const std::string& name, const json& params, const block_format& f, gemm_shape s) {
  const auto* info = find_detector(view_kind::gemm, name);
  EXPECT_NE(info, nullptr) << name;
  auto det = info->make(detector_params(validate_params(*info, params), &fp32()),
                        {&fp32(), &fp32(), {{"accumulation", "sequential"}}, gemm_context{s, accumulation_order{}, &f}});
  return std::unique_ptr<gemm_detector>(detector_cast<gemm_detector>(std::move(det), "?", "gemm").release());
}

}  // namespace

// Odd shapes (a short last block), every format, and tensors with faults in
// their codes and scales (NaN, inf, huge and tiny scales).
TEST(BlockGemm, KernelEqualsReferenceTwinBitForBit) {
  for (const auto& f : all_block_formats()) {
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{5, 45, 7}, {3, 96, 4}, {2, 16, 3}}) {
      bg_pair p = bg_draw(f, m, k, n, 11);
      rng g = make_stream(3, 69, 3, trial_kind::faulty, stream_purpose::fault);
      boost::random::uniform_int_distribution<int> byte(0, 255);
      for (int rep = 0; rep < 4; ++rep) {
        std::vector<float> c(size_t(m * n)), r(c.size());
        block_gemm(p.aq, p.bq, c.data());
        block_gemm_reference(p.aq, p.bq, r.data());
        for (size_t i = 0; i < c.size(); ++i)
          ASSERT_TRUE(bg_same_bits(c[i], r[i]) || (std::isnan(c[i]) && std::isnan(r[i])))
              << f.name << " " << m << "x" << k << "x" << n << " rep " << rep << " at " << i << ": " << c[i] << " vs " << r[i];
        // Random bytes into a scale and a code of each tensor (any code: NaN and inf too).
        p.aq.scales[size_t(rep) % p.aq.scales.size()] = uint8_t(byte(g));
        p.bq.codes[size_t(rep * 7) % p.bq.codes.size()] = uint8_t(byte(g) & (f.elem == elem_type::fp4_e2m1 ? 0xf : 0xff));
        if (f.elem == elem_type::fp6_e3m2 || f.elem == elem_type::fp6_e2m3) p.bq.codes[size_t(rep * 7) % p.bq.codes.size()] &= 0x3f;
      }
    }
  }
}

// The double-sum kernel (the training workload's MXFP8 GEMMs) gives the
// integer kernel's bits: every format (E5M2 is handed to the integer kernel),
// short blocks, codes at their largest (sigma 1e3 saturates), faulty codes
// and scales, the smallest and largest E8M0 scales (fp32 subnormals, overflow).
TEST(BlockGemm, DoubleKernelEqualsIntegerKernelBitForBit) {
  for (const auto& f : all_block_formats()) {
    for (auto [m, k, n, sigma] : {std::tuple<int64_t, int64_t, int64_t, double>{5, 45, 7, 1.0}, {4, 96, 33, 1e3}, {3, 64, 5, 1e-30}}) {
      bg_pair p = bg_draw(f, m, k, n, 12, sigma);
      rng g = make_stream(4, 69, 3, trial_kind::faulty, stream_purpose::fault);
      boost::random::uniform_int_distribution<int> byte(0, 255);
      for (int rep = 0; rep < 6; ++rep) {
        std::vector<float> c(size_t(m * n)), d(c.size());
        block_gemm(p.aq, p.bq, c.data());
        block_gemm_double(p.aq, p.bq, d.data());
        for (size_t i = 0; i < c.size(); ++i)
          ASSERT_TRUE(bg_same_bits(c[i], d[i]) || (std::isnan(c[i]) && std::isnan(d[i])))
              << f.name << " " << m << "x" << k << "x" << n << " rep " << rep << " at " << i << ": " << c[i] << " vs " << d[i];
        const uint8_t extreme[] = {0, 254, 1, 253};
        p.aq.scales[size_t(rep) % p.aq.scales.size()] = rep < 4 ? extreme[rep] : uint8_t(byte(g));
        p.bq.scales[size_t(rep * 3) % p.bq.scales.size()] = rep < 4 ? extreme[3 - rep] : uint8_t(byte(g));
        p.bq.codes[size_t(rep * 7) % p.bq.codes.size()] = uint8_t(byte(g) & (f.elem == elem_type::fp4_e2m1 ? 0xf : 0xff));
        if (f.elem == elem_type::fp6_e3m2 || f.elem == elem_type::fp6_e2m3) p.bq.codes[size_t(rep * 7) % p.bq.codes.size()] &= 0x3f;
      }
    }
  }
}

// One block along K: the kernel's element is the exact product of the
// dequantized inputs rounded once to fp32 (MX: dequantized values are exact in fp32).
TEST(BlockGemm, OneBlockEqualsMpfrOfDequantizedProduct) {
  for (const auto& f : all_block_formats()) {
    if (f.tensor_scale) continue;  // NVFP4's tensor scales round again after the accumulator
    const int64_t m = 6, k = f.block, n = 5;
    const bg_pair p = bg_draw(f, m, k, n, 12);
    const std::vector<float> ad = dequantize(p.aq), bd = dequantize(p.bq);
    std::vector<float> c(size_t(m * n));
    block_gemm(p.aq, p.bq, c.data());
    mp_value exact;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        exact_dot(exact.get(), ad.data() + i * k, 1, bd.data() + j, n, k);
        EXPECT_TRUE(bg_same_bits(c[size_t(i * n + j)], mpfr_get_flt(exact.get(), MPFR_RNDN))) << f.name << " " << i << "," << j;
      }
  }
}

// Many blocks: within the fp32 additions' bound of MPFR's exact dequantized
// product, gamma_nb sum |block values| (Higham eq. (3.5)) plus a rounding per block.
TEST(BlockGemm, ManyBlocksWithinBoundOfMpfr) {
  for (const auto& f : all_block_formats()) {
    const int64_t m = 4, k = 512, n = 4, nb = k / f.block;
    const bg_pair p = bg_draw(f, m, k, n, 13);
    const std::vector<float> ad = dequantize(p.aq), bd = dequantize(p.bq);
    std::vector<float> c(size_t(m * n));
    block_gemm(p.aq, p.bq, c.data());
    mp_value exact;
    const double u = std::ldexp(1.0, -24);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        exact_dot(exact.get(), ad.data() + i * k, 1, bd.data() + j, n, k);
        double abs_sum = 0;
        for (int64_t x = 0; x < k; ++x) abs_sum += std::fabs(double(ad[size_t(i * k + x)]) * double(bd[size_t(x * n + j)]));
        // NVFP4: the dequantized inputs are themselves rounded to fp32 (times the tensor scale): 2u more per product.
        const double bound = (double(nb + 1) * u / (1 - double(nb + 1) * u) + (f.tensor_scale ? 3 * u : 0)) * abs_sum;
        EXPECT_LE(std::fabs(double(c[size_t(i * n + j)]) - exact.to_double()), bound) << f.name;
      }
  }
}

TEST(BlockGemm, ScaledIntegerRoundsAsMpfr) {
  rng g = make_stream(5, 69, 5, trial_kind::clean, stream_purpose::data);
  boost::random::uniform_int_distribution<int64_t> any(INT64_MIN, INT64_MAX);
  boost::random::uniform_int_distribution<int> bits(0, 126), expo(-300, 140);
  mp_value x(256);
  for (int t = 0; t < 20000; ++t) {
    unsigned __int128 u = (static_cast<unsigned __int128>(uint64_t(any(g))) << 64) | uint64_t(any(g));
    u >>= bits(g);  // magnitudes of every width
    const __int128 v = t % 2 ? -__int128(u >> 1) : __int128(u >> 1);
    const int e = t % 5 == 0 ? expo(g) : expo(g) / 3 - 40;
    mpfr_set_sj_2exp(x.get(), intmax_t(v >> 64), e + 64, MPFR_RNDN);  // exact at 256 bits
    mp_value lo(256);
    mpfr_set_uj_2exp(lo.get(), uintmax_t(uint64_t(v)), e, MPFR_RNDN);
    mpfr_add(x.get(), x.get(), lo.get(), MPFR_RNDN);
    const float want = mpfr_get_flt(x.get(), MPFR_RNDN), got = fp32_from_scaled_integer(v, e);
    ASSERT_TRUE(bg_same_bits(got, want)) << t << ": e " << e << " got " << got << " want " << want;
  }
}

// A check's verdict on a fault-free quantized GEMM is clean at its
// calibrated threshold (results/emax-calibration.json's block-scaled entries),
// encoded after quantization and checked before output quantization; and
// the scale check is clean on it.
TEST(BlockGemm, ChecksCleanOnFaultFreeQuantizedGemm) {
  const gemm_shape s{64, 256, 64};
  for (const auto& f : all_block_formats()) {
    for (uint64_t seed = 0; seed < 5; ++seed) {
      const bg_pair p = bg_draw(f, s.m, s.k, s.n, 100 + seed);
      const std::vector<float> ad = dequantize(p.aq), bd = dequantize(p.bq);
      std::vector<float> c(size_t(s.m * s.n));
      block_gemm(p.aq, p.bq, c.data());
      gemm_data<float> d;
      d.dtype = d.out_fmt = &fp32(), d.shape = s, d.A = ad.data(), d.B = bd.data(), d.C = d.acc = c.data();
      d.a_blocks = &p.aq, d.b_blocks = &p.bq;
      for (const auto& [name, params] : {std::pair<std::string, json>{"vabft", {{"e_max", "calibrated"}, {"tightness", false}}},
                                         {"block_scales", json::object()}}) {
        auto det = bg_make(name, params, f, s);
        det->encode(d);
        const verdict v = det->verify(d);
        EXPECT_FALSE(v.flagged) << f.name << " " << name << " seed " << seed << " score " << v.score;
      }
    }
  }
}

// A flip of a block scale's top exponent bit leaves the codes as they were
// and is caught by the scale range; a code whose block maximum loses its top
// binade is caught by the top-binade rule.
TEST(BlockGemm, ScaleCheckSeesScaleAndTopCodeFaults) {
  const gemm_shape s{8, 64, 8};
  for (const auto& f : all_block_formats()) {
    const bg_pair p = bg_draw(f, s.m, s.k, s.n, 7);
    const std::vector<float> ad = dequantize(p.aq), bd = dequantize(p.bq);
    std::vector<float> c(size_t(s.m * s.n));
    gemm_data<float> d;
    d.dtype = d.out_fmt = &fp32(), d.shape = s, d.A = ad.data(), d.B = bd.data(), d.C = d.acc = c.data();
    d.a_blocks = &p.aq, d.b_blocks = &p.bq;
    auto det = bg_make("block_scales", json::object(), f, s);
    det->encode(d);
    block_tensor a2 = p.aq;
    a2.scales[3] ^= f.scale == scale_type::e8m0 ? 0x80 : 0x40;  // E8M0 exp1; E4M3 exp1
    d.a_blocks = &a2;
    const verdict v = det->verify(d);
    EXPECT_TRUE(v.flagged) << f.name;
    EXPECT_EQ(v.located_row, 3 / a2.scale_cols()) << f.name;
    // Zero the block's largest code: its maximum leaves the top binade (or the block is zero).
    block_tensor b2 = p.bq;
    d.a_blocks = &p.aq, d.b_blocks = &b2;
    const auto elems = b2.elements_of_block(0);
    for (int64_t i : elems)
      if (std::fabs(decode_element(f.elem, b2.codes[size_t(i)])) >= std::ldexp(1.0, elem_emax(f.elem))) b2.codes[size_t(i)] = 0;
    bool all_zero = true;
    for (int64_t i : elems) all_zero &= decode_element(f.elem, b2.codes[size_t(i)]) == 0;
    if (!all_zero) {
      EXPECT_TRUE(det->verify(d).flagged) << f.name;
    }
  }
}
