// torch_npu's CheckSum at its original's scope and with its same-device
// recompute (issue 67), each test named after the branch of the original it
// pins (Ascend/pytorch 9e73e708):
//   asd.py _trigger_matmul_decorator / _trigger_tensor_matmul_decorator: the
//     check runs on torch.matmul / Tensor.matmul calls with two bf16 operands
//     (our model: the forward attention products), never on nn.Linear;
//   checksum.py _matmul_checksum: reductions over dim -1, so a batched call is
//     one check and torch.min(c_max / c_mean) > 5 one decision over all its
//     rows; a flagged call is recomputed on the same device (matmul(a, b,
//     out=c)) and reported iff torch.any(c_mean != c_mean2).
// MindSpore's scope (checksum.cc: 2-D bf16 MatMul nodes) is every linear GEMM
// of our model. Torch-free: records made by hand, as the training workload
// makes them (training_view.hpp).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <cmath>

#include "checksum_twins.hpp"
#include "detectors/ascend/matmul_checksum.hpp"
#include "foundation/formats/format.hpp"
#include "protocol/detector.hpp"

namespace sdc {
namespace {

float bf(double x) { return float(round_to(bf16(), x)); }

// `batch` products C = A B rounded to bf16, from bf16-representable normal inputs.
gemm_record product(int64_t batch, int64_t m, int64_t k, int64_t n, uint64_t seed) {
  boost::random::mt19937_64 g(seed);
  boost::random::normal_distribution<double> z;
  gemm_record r;
  r.bf16 = true, r.batch = batch, r.m = m, r.k = k, r.n = n;
  for (int64_t i = 0; i < batch * m * k; ++i) r.a.push_back(bf(z(g)));
  for (int64_t i = 0; i < batch * k * n; ++i) r.b.push_back(bf(z(g)));
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) s += double(r.a[size_t((t * m + i) * k + q)]) * r.b[size_t((t * k + q) * n + j)];
        r.c.push_back(bf(s));
      }
  return r;
}

checksum_result torch_npu(const gemm_record& g) { return matmul_checksum(checksum_operands(g), checksum_variant::torch_npu); }

std::unique_ptr<detector> checksum_detector(const nlohmann::json& params) {
  const auto* info = find_detector(view_kind::training, "matmul_checksum");
  return info->make(detector_params(validate_params(*info, params), nullptr), detector_context{});
}

double metric(const verdict& v, const std::string& name) {
  for (const auto& [n, x] : v.metrics)
    if (n == name) return x;
  return NAN;
}

// A step whose linear GEMM holds an exponent flip and whose two attention
// products (one bf16, as under bf16 precision; one fp32) are clean.
training_step step_with_a_faulty_linear_gemm() {
  training_step s;
  s.gemms.push_back(product(1, 16, 64, 48, 7));
  s.gemms.back().c[size_t(5 * 48 + 9)] *= 0x1p16f;
  s.attention.push_back(product(3, 8, 16, 8, 8));
  s.attention.back().pass = k_attention_scores;
  s.attention.push_back(product(3, 8, 8, 16, 9));
  s.attention.back().pass = k_attention_context, s.attention.back().bf16 = false;
  return s;
}

// asd.py: torch.matmul / Tensor.matmul patched, checked iff a.dtype == b.dtype == bfloat16.
TEST(TorchNpuChecksum, TorchNpuChecksOnlyMatmulCallsWithTwoBf16Operands) {
  const training_step s = step_with_a_faulty_linear_gemm();
  const auto original = checksum_detector({{"variant", "torch_npu"}});
  EXPECT_EQ(original->needs().training_fields(), std::vector<std::string>{"attention_gemms"});
  const verdict v = original->observe(s);
  EXPECT_FALSE(v.flagged);  // the linear GEMM's fault is outside torch.matmul
  EXPECT_EQ(metric(v, "gemms_checked"), 1);  // the bf16 attention product; the fp32 one is not
  const auto linear = checksum_detector({{"variant", "torch_npu"}, {"scope", "linear"}});
  EXPECT_EQ(linear->needs().training_fields(), std::vector<std::string>{"gemms"});
  const verdict w = linear->observe(s);
  EXPECT_TRUE(w.flagged);
  EXPECT_EQ(metric(w, "gemms_checked"), 1);
  // fp32 configurations: no call has two bf16 operands, nothing is checked.
  training_step fp32 = s;
  for (auto& g : fp32.attention) g.bf16 = false;
  EXPECT_EQ(metric(original->observe(fp32), "gemms_checked"), 0);
}

// checksum.cc: MindSpore's 2-D bf16 MatMul nodes are our linear GEMMs: both scopes are one.
TEST(MindSporeChecksum, TheOriginalScopeIsEveryLinearGemm) {
  const training_step s = step_with_a_faulty_linear_gemm();
  for (const char* scope : {"original", "linear"}) {
    const auto d = checksum_detector({{"scope", scope}});
    EXPECT_EQ(d->needs().training_fields(), std::vector<std::string>{"gemms"}) << scope;
    EXPECT_TRUE(d->observe(s).flagged) << scope;
  }
}

// _matmul_checksum: torch.min(c_max / c_mean) over the whole call. Batch 0
// alone is spiky (max bound, small) and its fault is flagged and reported;
// beside batch 1's flat rows the call takes the mean bound for every row,
// and the same fault passes.
TEST(TorchNpuChecksum, TheRatioTestIsOneDecisionOverTheWholeBatchedCall) {
  gemm_record g;
  g.bf16 = true, g.batch = 2, g.m = 1, g.k = 1, g.n = 10000;
  g.a = {1.0f, 1.0f};
  for (int j = 0; j < 10000; ++j) g.b.push_back(j == 0 ? 8.0f : 1.0f + 0x1p-8f + 0x1p-16f);  // batch 0: a spike of 8
  for (int j = 0; j < 10000; ++j) g.b.push_back(1.0f);                                       // batch 1: flat
  for (float x : g.b) g.c.push_back(bf(x));
  for (int j = 1; j <= 10; ++j) g.c[size_t(j)] = 8.0f;  // a transient corruption in batch 0, below its spike
  gemm_record first = g;
  first.batch = 1, first.a.resize(1), first.b.resize(10000), first.c.resize(10000);
  const auto alone = torch_npu(first);
  EXPECT_TRUE(alone.rows_flagged);
  EXPECT_TRUE(alone.failed);
  const auto whole = torch_npu(g);
  EXPECT_FALSE(whole.rows_flagged);
  EXPECT_FALSE(whole.failed);
  EXPECT_LT(whole.worst_ratio, alone.worst_ratio);
}

// The combined scheme's CheckSum asks for the same GEMMs (feature_value's `checksum_scope`).
TEST(TorchNpuChecksum, TheCombinedSchemesCheckSumTakesTheSameScope) {
  const auto* info = find_detector(view_kind::training, "feature_value");
  auto needs = [info](const nlohmann::json& p) {
    return info->make_episode(detector_params(validate_params(*info, p), nullptr), detector_context{})->needs().training_fields();
  };
  EXPECT_EQ(needs({{"variant", "torch_npu"}, {"with_checksum", true}}), std::vector<std::string>{"attention_gemms"});
  EXPECT_EQ(needs({{"variant", "torch_npu"}, {"with_checksum", true}, {"checksum_scope", "linear"}}), std::vector<std::string>{"gemms"});
  EXPECT_EQ(needs({{"with_checksum", true}}), std::vector<std::string>{"gemms"});
  EXPECT_EQ(needs({{"variant", "torch_npu"}}), std::vector<std::string>{});
}

// matmul(a, b, out=c) on the same NPU: a fault the device repeats gives the
// same C, the same row means, and nothing is reported.
TEST(TorchNpuChecksum, APermanentFaultRecursOnTheSameDeviceAndIsNotReported) {
  gemm_record g = product(2, 16, 64, 48, 7);
  g.c[size_t(21 * 48 + 9)] *= 0x1p16f;  // batch 1, row 5
  g.fault_changed = g.fault_recurs = true;
  const auto r = torch_npu(g);
  EXPECT_TRUE(r.rows_flagged);
  EXPECT_EQ(r.worst_row, 21);
  EXPECT_FALSE(r.failed);
  EXPECT_FALSE(matmul_checksum_reference(checksum_operands(g), checksum_variant::torch_npu).failed);
  // MindSpore has no recompute: the same fault fails.
  EXPECT_TRUE(matmul_checksum(checksum_operands(g), checksum_variant::mindspore).failed);
}

// A transient fault: the recomputation is clean and a row mean changes.
TEST(TorchNpuChecksum, ATransientFaultIsReported) {
  gemm_record g = product(2, 16, 64, 48, 7);
  g.c[size_t(21 * 48 + 9)] *= 0x1p16f;
  g.fault_changed = true, g.fault_recurs = false;
  EXPECT_TRUE(torch_npu(g).failed);
  // A device with a recurring fault that did not change this product recomputes it clean too.
  g.fault_changed = false, g.fault_recurs = true;
  EXPECT_TRUE(torch_npu(g).failed);
}

// A clean product the bound flags (spiky rows, n = 10000: rounding adds more
// to sum C than 5 x the max bound) recomputes to the same bits: not reported.
TEST(TorchNpuChecksum, ACleanDeterministicFlagIsNotReported) {
  gemm_record g;
  g.bf16 = true, g.m = 1, g.k = 1, g.n = 10000, g.a = {1.0f};
  for (int j = 0; j < 10000; ++j) g.b.push_back(j == 0 ? 8.0f : 1.0f + 0x1p-8f + 0x1p-16f);
  for (float x : g.b) g.c.push_back(bf(x));
  for (bool recurs : {false, true}) {
    g.fault_recurs = recurs;
    const auto r = torch_npu(g);
    EXPECT_TRUE(r.rows_flagged);
    EXPECT_FALSE(r.failed);
  }
}

// torch.any(c_mean != c_mean2): a NaN row mean differs from itself, so a
// repeated fault that left a NaN row is reported once another row is flagged.
TEST(TorchNpuChecksum, ARepeatedNanRowIsReportedOnceTheCallIsFlagged) {
  gemm_record g = product(1, 16, 64, 48, 7);
  g.c[size_t(2 * 48 + 1)] = NAN;
  g.fault_changed = g.fault_recurs = true;
  EXPECT_FALSE(torch_npu(g).rows_flagged);  // a NaN row flags nothing
  g.c[size_t(5 * 48 + 9)] *= 0x1p16f;
  const auto r = torch_npu(g);
  EXPECT_TRUE(r.rows_flagged);
  EXPECT_TRUE(r.failed);
}

// The fast twin against the reference on batched calls, recomputed ones
// included, bit for bit.
TEST(TorchNpuChecksum, BatchedFastTwinEqualsTheReferenceBitForBit) {
  uint64_t seed = 31;
  for (int64_t batch : {1, 2, 3})
    for (const auto& [m, k, n] : {std::array<int64_t, 3>{7, 9, 15}, {8, 8, 8}, {17, 33, 5}, {3, 70, 1}})
      for (int edit = 0; edit < 3; ++edit)
        for (bool recurs : {false, true}) {
          gemm_record g = product(batch, m, k, n, seed++);
          if (edit == 1) g.c[size_t(batch * m * n / 2)] = NAN;
          if (edit == 2) g.c[size_t(batch * m * n - 1)] *= 0x1p20f;
          g.fault_changed = edit > 0, g.fault_recurs = recurs;
          const auto at = ::testing::Message() << batch << "x" << m << "x" << k << "x" << n << " edit " << edit << " recurs " << recurs;
          testing::expect_twins_equal(checksum_operands(g), at);
        }
}

}  // namespace
}  // namespace sdc
