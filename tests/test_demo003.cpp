// 003's demo scripts (workloads/ascend_demos, harness/services/demo003_scripts):
// NumPy's legacy stream against NumPy itself, GenerateEodMaskV2's designed
// flip as generate_eod_mask_v2_kernel.cc BitFlipDesigned computes it, the
// sharded network against its unsharded twin, and the paper's logs
// (003_dc12117c3d941011.txt, Use Cases) on initializations where the fault
// bites at step 5, as it did in the paper's run.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <string>

#include "harness/services/demo003_scripts.hpp"
#include "foundation/formats/format.hpp"
#include "foundation/random/numpy_legacy.hpp"
#include "injectors/fault_model.hpp"
#include "workloads/ascend_demos/silent_check_mlp.hpp"

namespace {

using namespace sdc;

std::string run_python(const std::string& code) {
  std::string out;
  FILE* p = popen(("/usr/bin/python3 -c '" + code + "'").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  pclose(p);
  return out;
}

// Debian's python3-numpy (scripts/setup.sh installs it): the same draws, bit for bit.
TEST(NumpyLegacy, SameBitsAsNumpy) {
  const std::string got = run_python(
      "import numpy as np\n"
      "np.random.seed(1)\n"
      "a = np.random.randn(2001)\n"
      "b = np.random.randint(low=0, high=10, size=37, dtype=np.int32)\n"
      "c = np.random.rand(9)\n"
      "np.random.seed(12345)\n"
      "d = np.random.randn(5)\n"
      "print(\" \".join(repr(x) for x in a.tolist() + b.tolist() + c.tolist() + d.tolist()))\n");
  ASSERT_FALSE(got.empty()) << "python3-numpy is needed (scripts/setup.sh installs it)";
  std::vector<double> want;  // repr is the shortest text that reads back as the same double
  for (const char* p = got.c_str(); *p && *p != '\n';) {
    char* end = nullptr;
    want.push_back(std::strtod(p, &end));
    ASSERT_NE(end, p);
    p = end;
  }
  ASSERT_EQ(want.size(), 2001u + 37u + 9u + 5u);
  numpy_legacy_random r(1), r2(12345);
  std::vector<double> ours;
  for (int i = 0; i < 2001; ++i) ours.push_back(r.standard_normal());
  for (int i = 0; i < 37; ++i) ours.push_back(r.randint(0, 10));
  for (int i = 0; i < 9; ++i) ours.push_back(r.random_sample());
  for (int i = 0; i < 5; ++i) ours.push_back(r2.standard_normal());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(std::bit_cast<uint64_t>(ours[i]), std::bit_cast<uint64_t>(want[i])) << i << ": " << ours[i] << " vs " << want[i];
}

float designed(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  rng g(0);
  const auto out = apply_fault(parse_fault_model("bitflip_designed"), fp32(), {}, b, g);
  if (!out) return x;
  b = uint32_t(*out);
  std::memcpy(&x, &b, 4);
  return x;
}

// BitFlipDesigned: set the first 0 bit of the exponent, from its top.
TEST(EodMask, DesignedFlipAsTheKernel) {
  EXPECT_EQ(designed(0.0f), 2.0f);                               // 0x00000000 -> 0x40000000
  EXPECT_EQ(designed(0.5f), std::ldexp(0.5f, 128));              // exponent 0111 1110 -> 1111 1110
  EXPECT_TRUE(std::isnan(designed(1.5f)));                       // 0111 1111 -> 1111 1111, mantissa != 0
  EXPECT_TRUE(std::isinf(designed(1.0f)));                       // the same, mantissa 0
  EXPECT_EQ(designed(3.0f), std::ldexp(3.0f, 64));               // 1000 0000 -> 1100 0000
  EXPECT_EQ(designed(-0.25f), -std::ldexp(0.25f, 128));          // the sign stays
}

// Every device draws the same rows, so the mean loss over the global batch is
// the same for any number of devices: the sharded forward and backward (2 and
// 4 devices, their communication operators) against the unsharded twin.
TEST(SilentCheckMlp, ShardedEqualsUnsharded) {
  demo003::silent_check_mlp_config c;
  c.batch = 4, c.in = 16, c.hidden = 8, c.classes = 3, c.steps = 6, c.lr = 0.05f, c.init_sigma = 0.3f, c.input_shift = 0.5f;
  c.ranks = 1;
  const auto one = demo003::run_silent_check_mlp(c, {});
  for (int ranks : {2, 4}) {
    c.ranks = ranks;
    const auto many = demo003::run_silent_check_mlp(c, {});
    ASSERT_EQ(many.loss.size(), one.loss.size());
    for (size_t s = 0; s < one.loss.size(); ++s) EXPECT_NEAR(many.loss[s], one.loss[s], 1e-5 * std::fabs(one.loss[s])) << ranks << " devices, step " << s;
    EXPECT_LT(one.loss.back(), one.loss.front());  // it learns
  }
}

int errors(const demo003::script_run& r) {
  int n = 0;
  for (const auto& l : r.lines) n += l.level == "ERROR";
  return n;
}

// NPU_ASD_ENABLE=2 (paper: one ERROR, device 2, step 5, val nan; training
// stops) on an initialization whose designed flip hits a positive value at
// step 5, as the paper's did.
TEST(SilentCheckScript, Level2StopsAtDevice2) {
  const auto r = demo003::run_silent_check(2, 7, 0);
  ASSERT_EQ(errors(r), 1);
  EXPECT_EQ(r.lines[0].device, 2);
  EXPECT_EQ(r.lines[0].step, 5);
  EXPECT_EQ(r.lines[0].where, "AllReduce (matmul2 output gradient)");
  EXPECT_TRUE(std::isnan(r.lines[0].value));
  EXPECT_NE(r.lines[0].text.find("step=[5]"), std::string::npos);
  EXPECT_NE(r.lines[0].text.find("npu_asd_detect = [2]"), std::string::npos);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.steps_done, 5);
}

// NPU_ASD_ENABLE=1 (paper: device 0 logs NaN ERRORs at steps 5, 6, 7; the
// training goes on), and 3 (INFO lines for the normal values, then as 2).
TEST(SilentCheckScript, Level1LogsAndGoesOn) {
  const auto r = demo003::run_silent_check(1, 7, 0);
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(r.steps_done, 20);
  for (int64_t step : {5, 6, 7}) {
    bool dev0 = false;
    for (const auto& l : r.lines) dev0 |= l.level == "ERROR" && l.device == 0 && l.step == step && std::isnan(l.value);
    EXPECT_TRUE(dev0) << step;
  }
  for (const auto& l : r.lines) EXPECT_GE(l.step, 5) << l.text;
  const auto r3 = demo003::run_silent_check(3, 7, 0);
  EXPECT_EQ(errors(r3), 1);
  // 4 checks x 4 devices x steps 0-4 normal, then at step 5's first check
  // the other devices' normal lines beside device 2's ERROR, and nothing after.
  EXPECT_EQ(r3.lines.size(), 4 * 4 * 5 + 4);
  for (size_t i = 4 * 4 * 5; i < r3.lines.size(); ++i) {
    EXPECT_EQ(r3.lines[i].step, 5);
    EXPECT_EQ(r3.lines[i].level, r3.lines[i].device == 2 ? "ERROR" : "INFO");
  }
}

// silent_detect.py (paper: worker 0's first strike fc1.weight, inf, count 6,
// none_zero_count 6; "Global CheckSum result is 0" 62 s later).
TEST(SilentDetectScript, StrikeThenCheckSumZero) {
  const auto r = demo003::run_silent_detect(4, 0);
  const demo003::log_line* strike = nullptr;
  for (const auto& l : r.lines)
    if (!strike && l.device == 0 && l.text.find("strike detected") != std::string::npos) strike = &l;
  ASSERT_NE(strike, nullptr);
  EXPECT_EQ(strike->where, "fc1.weight");
  EXPECT_TRUE(std::isinf(strike->value));
  EXPECT_NE(strike->text.find("count: 6, none_zero_count: 6"), std::string::npos) << strike->text;
  const demo003::log_line* verdict = nullptr;
  for (const auto& l : r.lines)
    if (!verdict && l.text.find("Global CheckSum result is 0") != std::string::npos) verdict = &l;
  ASSERT_NE(verdict, nullptr);
  EXPECT_GE(verdict->time - strike->time, 60);  // a 10 s poll, then cooldown 1 min
  EXPECT_LE(verdict->time - strike->time, 70);
}

}  // namespace
