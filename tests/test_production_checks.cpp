// The checks production training runs, on hand-made steps where the
// original's behaviour is known: Megatron-LM's parameter hashes across
// data-parallel replicas (one changed parameter on one rank changes its hash;
// the original compares with replica 0) and its result validation (NaN/Inf
// first, spikes against the maximum of the first num_samples values, the
// job's first iteration not validated).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "protocol/views/training_view.hpp"
#include "training_detector_harness.hpp"

namespace sdc {
namespace {

using nlohmann::json;

std::unique_ptr<episode_detector> make(const std::string& name, const json& params) {
  return testing::make_training_detector(name, params);
}

// Four ranks' steps whose parameters hash like `params` (one vector of floats
// per rank), the model copy and the master weights alike (fp32 precision).
std::vector<training_step> hashed(const std::vector<std::vector<float>>& params, int64_t step) {
  std::vector<training_step> s(params.size());
  for (size_t r = 0; r < params.size(); ++r) {
    s[r].rank = int(r), s[r].step = step;
    s[r].param_sha1 = {sha1_hex(params[r].data(), params[r].size() * sizeof(float)), sha1_hex("bias", 4)};
    s[r].param_sha1_model = s[r].param_sha1;
  }
  return s;
}

void drop_hashes(std::vector<training_step>& s) {
  for (auto& x : s) x.param_sha1.clear(), x.param_sha1_model.clear();
}

using testing::ptrs;

TEST(ParamHash, OneChangedWeightBitOnOneRankChangesItsHash) {
  EXPECT_EQ(sha1_hex("abc", 3), "a9993e364706816aba3e25717850c26c9cd0d89d");  // FIPS 180 test vector
  std::vector<float> w = {0.5f, -1.25f, 3.0f};
  std::vector<std::vector<float>> p(4, w);
  auto d = make("param_hash", json::object());
  d->reset({});
  auto s = hashed(p, 0);
  verdict v = d->observe(ptrs(s));
  EXPECT_FALSE(v.flagged);
  uint32_t bits;
  std::memcpy(&bits, &p[2][1], 4), bits ^= 1u << 23, std::memcpy(&p[2][1], &bits, 4);  // one exponent bit on rank 2
  s = hashed(p, 1);
  v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 2);
  EXPECT_EQ(v.score, 1);
  EXPECT_EQ(v.metrics[1].second, 1) << "one parameter differs";
  // Replica 0 diverged: every other rank differs from it. The original's
  // report names ranks 1-3 (replica0 blames rank 1); the majority variant rank 0.
  p.assign(4, w);
  p[0][0] = 0.75f;
  s = hashed(p, 2);
  v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 1);
  EXPECT_EQ(v.score, 3);
  auto m = make("param_hash", {{"blame", "majority"}});
  m->reset({});
  EXPECT_EQ(m->observe(ptrs(s)).rank, 0);
  p[3][0] = 0.25f;  // two ranks diverged, differently: no single minority
  s = hashed(p, 2);
  EXPECT_EQ(m->observe(ptrs(s)).rank, -1);
  // Checked after the job's iterations that are multiples of `interval`
  // (episode step k is iteration k + 1 without history); warm-up steps carry no hashes.
  auto every2 = make("param_hash", {{"interval", 2}});
  every2->reset({});
  s = hashed(p, 4);
  EXPECT_FALSE(every2->observe(ptrs(s)).flagged);
  s = hashed(p, 3);
  EXPECT_TRUE(every2->observe(ptrs(s)).flagged);
  drop_hashes(s);
  EXPECT_FALSE(every2->observe(ptrs(s)).flagged);
  // The model copy by default (Megatron's param.data), the master weights as the named variant.
  auto master = make("param_hash", {{"copy", "master"}});
  EXPECT_EQ(master->needs().param_hashes, detector_needs::hashes::master);
  EXPECT_EQ(d->needs().param_hashes, detector_needs::hashes::model);
  master->reset({});
  s = hashed(p, 0);
  for (auto& x : s) x.param_sha1_model = s[0].param_sha1_model;  // the copies agree; the masters do not
  EXPECT_FALSE(d->observe(ptrs(s)).flagged);
  EXPECT_TRUE(master->observe(ptrs(s)).flagged);
}

// One rank's steps with these losses and a gradient of this norm.
training_step step_of(double loss, float grad, int64_t step) {
  training_step s;
  s.loss = loss, s.step = step, s.grads = {grad, 0.0f};
  return s;
}

double rejected_by(const verdict& v) {
  for (const auto& [k, x] : v.metrics)
    if (k == "rejected_by") return x;
  return 0;
}

TEST(MegatronValidation, NanFirstThenSpikesAgainstTheFirstSamplesMaximum) {
  auto d = make("megatron_validation", {{"check_spiky_loss", true}, {"check_large_grads", true}, {"num_samples", 3}});
  d->reset({});
  auto see = [&](double loss, float grad, int64_t step) {
    const training_step s = step_of(loss, grad, step);
    return d->observe({&s});
  };
  EXPECT_FALSE(see(NAN, 1, 0).flagged) << "the job's first iteration is not validated";
  // The reference: the max |loss| of the next three values (NaN/Inf ignored), 2.0; of the grads, 4.
  EXPECT_FALSE(see(1.0, 1, 1).flagged);
  EXPECT_FALSE(see(-2.0, 4, 2).flagged);
  EXPECT_FALSE(see(1.5, 2, 3).flagged);
  verdict v = see(19.9, 1, 4);  // 19.9 < 10 x 2
  EXPECT_FALSE(v.flagged);
  EXPECT_NEAR(v.score, 19.9 / 20, 1e-12);
  v = see(20.0, 1, 5);  // >= 10 x 2
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(rejected_by(v), 3);
  v = see(1.0, 40.0f, 6);
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(rejected_by(v), 6);
  v = see(INFINITY, 1, 7);
  EXPECT_EQ(rejected_by(v), 2);
  v = see(1.0, NAN, 8);
  EXPECT_EQ(rejected_by(v), 4);
  v = see(NAN, NAN, 9);
  EXPECT_EQ(rejected_by(v), 1) << "the loss is checked before the gradients";
  // Megatron's defaults: NaN/Inf only.
  auto def = make("megatron_validation", json::object());
  def->reset({});
  training_step a = step_of(1, 1, 0), b = step_of(1e30, 1e30f, 1), c = step_of(1, INFINITY, 2);
  def->observe({&a});
  EXPECT_FALSE(def->observe({&b}).flagged);
  EXPECT_TRUE(def->observe({&c}).flagged);
}

// OLMo-core's rule: once window_size values are held, a spike is a value
// above mean + k std (population) of them; every value joins the window; a
// NaN is no spike and blinds the window.
TEST(StabilityMonitor, SpikesAgainstTheWindowAndANaNBlindsIt) {
  auto d = make("stability_monitor", {{"window_size", 4}, {"threshold_std", 2.0}});
  d->reset({});
  auto see = [&](double loss, double norm) {
    std::vector<training_step> s(2);
    s[0].loss = loss - 0.5, s[1].loss = loss + 0.5;  // the mean is `loss`
    s[0].reduced_grad_norm = norm, s[1].reduced_grad_norm = 1e9;  // rank 0's is the logged one
    return d->observe(ptrs(s));
  };
  for (double x : {1.0, 2.0, 1.0, 2.0}) EXPECT_FALSE(see(x, 1).flagged);  // filling the window
  verdict v = see(2.4, 1);  // mean 1.5, std 0.5: the line is 2.5
  EXPECT_FALSE(v.flagged);
  EXPECT_NEAR(v.score, 0.9, 1e-12);
  v = see(3.0, 1);  // window 2,1,2,2.4: mean 1.85, std 0.517: line 2.884
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.metrics[0].second, 1);
  EXPECT_EQ(v.rank, -1) << "a global curve names no rank";
  // The grad norm's window holds 1, 1, ...: std 0, no spike, however large.
  EXPECT_FALSE(see(2.0, 1e6).flagged);
  EXPECT_FALSE(see(NAN, 1).flagged);
  EXPECT_FALSE(see(1e6, 1).flagged) << "a NaN in the window makes every comparison false";
}

// Where the originals compute nothing the score is not_computed (null in a
// result set), never 0: Megatron's ratios on the job's first iteration and
// while each reference samples its first num_samples values (or with no
// spike check on), the hashes between checked steps, OLMo-core's windows
// before they are full or while their std is below 1e-10. Verdicts as
// before.
TEST(MegatronValidation, NoRatioWhileTheReferenceSamples) {
  auto d = make("megatron_validation", {{"check_spiky_loss", true}, {"check_large_grads", true}, {"num_samples", 2}});
  d->reset({});
  auto see = [&](double loss, float grad, int64_t step) {
    const training_step s = step_of(loss, grad, step);
    return d->observe({&s});
  };
  verdict v = see(1.0, 1, 0);
  EXPECT_FALSE(v.flagged);
  EXPECT_TRUE(is_not_computed(v.score)) << "the first iteration is not validated: " << v.score;
  for (int64_t step : {1, 2}) {  // the references' two samples
    v = see(2.0, 4, step);
    EXPECT_FALSE(v.flagged);
    EXPECT_TRUE(is_not_computed(v.score)) << "sampling at step " << step << ": " << v.score;
  }
  v = see(5.0, 4, 3);  // loss 5 / (2 x 10), grads 4 / (4 x 10)
  EXPECT_FALSE(v.flagged);
  EXPECT_DOUBLE_EQ(v.score, 0.25);
  v = see(INFINITY, 4, 4);  // Inf loss: rejected (code 2), Inf
  EXPECT_EQ(rejected_by(v), 2);
  // With the NaN check off, a NaN loss is no ratio (is_unexpectedly_large
  // ignores it): the grads' ratio alone scores the step.
  auto spiky = make("megatron_validation", {{"check_nan", false}, {"check_spiky_loss", true}, {"check_large_grads", true}, {"num_samples", 1}});
  spiky->reset({});
  for (int64_t step : {0, 1}) {
    const training_step s = step_of(2.0, 4, step);
    spiky->observe({&s});
  }
  const training_step nan_loss = step_of(NAN, 2, 2);
  v = spiky->observe({&nan_loss});
  EXPECT_FALSE(v.flagged);
  EXPECT_DOUBLE_EQ(v.score, 0.05);
  // Megatron's defaults (NaN/Inf only) compute no ratio on a clean step.
  auto def = make("megatron_validation", json::object());
  def->reset({});
  for (int64_t step : {0, 1, 2}) {
    const training_step s = step_of(1.0, 1, step);
    v = def->observe({&s});
    EXPECT_FALSE(v.flagged);
    EXPECT_TRUE(is_not_computed(v.score)) << step << ": " << v.score;
  }
}

// Megatron's training.py checks when `iteration % interval == 0`, iteration
// counting the job's completed steps: here the history's (the run up to the
// fork) and the episode's. After 130 steps of history, interval 4 checks
// episode steps 1 and 5 (iterations 132 and 136).
TEST(ParamHash, ChecksAfterIterationsThatAreMultiplesOfTheIntervalHistoryIncluded) {
  std::vector<std::vector<float>> p(4, std::vector<float>{0.5f, -1.25f});
  p[1][0] = 0.75f;  // rank 1 diverged: every checked step flags
  auto d = make("param_hash", {{"interval", 4}});
  episode_context c;
  c.history = 130;
  d->reset(c);
  std::vector<int64_t> checked;
  for (int64_t k = 0; k < 6; ++k) {
    auto s = hashed(p, k);
    const verdict v = d->observe(ptrs(s));
    if (!is_not_computed(v.score)) checked.push_back(k);
  }
  EXPECT_EQ(checked, (std::vector<int64_t>{1, 5}));
}

TEST(ParamHash, AStepNotCheckedHasNoScore) {
  const std::vector<std::vector<float>> p(4, std::vector<float>{0.5f, -1.25f});
  auto d = make("param_hash", {{"interval", 2}});
  d->reset({});
  auto s = hashed(p, 4);
  verdict v = d->observe(ptrs(s));
  EXPECT_FALSE(v.flagged);
  EXPECT_TRUE(is_not_computed(v.score)) << "step 4 (iteration 5) is not checked: " << v.score;
  EXPECT_TRUE(v.metrics.empty());
  s = hashed(p, 3);
  v = d->observe(ptrs(s));
  EXPECT_FALSE(v.flagged);
  EXPECT_EQ(v.score, 0) << "checked: no rank differs";
  drop_hashes(s);  // a warm-up step: no hashes
  EXPECT_TRUE(is_not_computed(d->observe(ptrs(s)).score));
}

TEST(StabilityMonitor, NoScoreBeforeTheWindowFillsNorWithoutSpread) {
  auto d = make("stability_monitor", {{"window_size", 4}, {"threshold_std", 2.0}});
  d->reset({});
  auto see = [&](double loss, double norm) {
    std::vector<training_step> s(2);
    s[0].loss = loss - 0.5, s[1].loss = loss + 0.5;
    s[0].reduced_grad_norm = s[1].reduced_grad_norm = norm;
    return d->observe(ptrs(s));
  };
  for (double x : {1.0, 2.0, 1.0, 2.0}) {
    const verdict v = see(x, 1);
    EXPECT_FALSE(v.flagged);
    EXPECT_TRUE(is_not_computed(v.score)) << "filling the window: " << v.score;
  }
  // The loss: mean 1.5, std 0.5, so 1.0 scores (1 - 1.5) / (2 x 0.5); the
  // grad norm's window is constant (std 0): no score of its own, not 0.
  verdict v = see(1.0, 1);
  EXPECT_FALSE(v.flagged);
  EXPECT_DOUBLE_EQ(v.score, -0.5);
  // A NaN that joins the window makes the score NaN (the detector saw one),
  // not a number, and not "not computed"; no spike either way.
  v = see(NAN, 1);
  EXPECT_TRUE(std::isnan(v.score) && !is_not_computed(v.score));
  v = see(1e6, 1);
  EXPECT_FALSE(v.flagged);
  EXPECT_TRUE(std::isnan(v.score) && !is_not_computed(v.score)) << v.score;
}

// OLMo-core checkpoints the callback's window with the trainer, so after a
// restart its first step is judged against the 128 values before it. Ours
// is emptied at each episode and refilled from the episode's history (the
// trial driver shows every detector the run up to the fork first): with at
// least 128 steps of history the first episode step is judged at the
// original's defaults; with 127 it is not judged at all.
TEST(StabilityMonitor, AWindowFilledByTheHistoryJudgesTheFirstEpisodeStep) {
  for (const int history : {128, 127}) {
    auto d = make("stability_monitor", json::object());  // window 128, 6 standard deviations
    d->reset({});
    auto see = [&](double loss) {
      std::vector<training_step> s(2);
      s[0].loss = s[1].loss = loss;
      s[0].reduced_grad_norm = s[1].reduced_grad_norm = 1.0;
      return d->observe(ptrs(s));
    };
    for (int k = 0; k < history; ++k) see(k % 2 ? 2.0 : 1.0);
    const verdict v = see(10.0);  // mean 1.5, std 0.5: the bar is 4.5
    EXPECT_EQ(v.flagged, history == 128) << history;
    if (history == 127) {
      EXPECT_TRUE(is_not_computed(v.score));
    }
  }
}

}  // namespace
}  // namespace sdc

namespace {

// 001's GEMM checks on training GEMMs read the stored output: a check of the
// fp32 accumulator (point = fused) cannot run there and is refused by name.
TEST(TrainingGemmChecks, AFusedPointIsRefused) {
  const auto* info = sdc::find_detector(sdc::view_kind::training, "gemm_vabft");
  ASSERT_NE(info, nullptr);
  const sdc::detector_params p(sdc::validate_params(*info, {{"point", "fused"}}), nullptr);
  try {
    info->make(p, sdc::detector_context{});
    FAIL() << "a fused point was accepted";
  } catch (const sdc::value_error& e) {
    EXPECT_NE(std::string(e.what()).find("gemm_vabft: point: expected \"offline\""), std::string::npos) << e.what();
  }
  const sdc::detector_params ok(sdc::validate_params(*info, nlohmann::json::object()), nullptr);
  EXPECT_NE(info->make(ok, sdc::detector_context{}), nullptr);
}

}  // namespace

namespace {

// The armed guard of a hand-made step (what the training runner offers).
struct board final : sdc::gemm_guards {
  sdc::gemm_guard* armed = nullptr;
  void arm(size_t, sdc::gemm_guard* g) override { armed = g; }
};

std::unique_ptr<sdc::detector> gemm_vabft(bool in_step) {
  const auto* info = sdc::find_detector(sdc::view_kind::training, "gemm_vabft");
  return info->make(sdc::detector_params(sdc::validate_params(*info, {{"in_step", in_step}}), nullptr), sdc::detector_context{});
}

// gemm_vabft inside the GEMMs (its protected GEMM, prepared or not) and on
// records after the step: the product is our kernel's bit for bit, and each step's verdict,
// score and counts are the same, clean and with an output element flipped
// after the product (the guard is told, and checks the stored output).
TEST(TrainingGemmChecks, InsideTheGemmTheVerdictsAreThoseOnRecords) {
  const int64_t m = 37, k = 70, n = 45;
  std::vector<float> a(size_t(m * k)), b(size_t(k * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(std::sin(0.37 * double(i))) * 0.5f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = float(std::cos(0.11 * double(i))) * 0.25f;
  auto inside = gemm_vabft(true), after = gemm_vabft(false);
  EXPECT_TRUE(inside->needs().gemm_guard);
  EXPECT_TRUE(after->needs().gemms);
  for (const bool prepared : {true, false}) {  // the runner prepares (encodes) first; product() alone encodes itself
    for (const int64_t flip : {int64_t(-1), int64_t(m * n / 2)}) {
      SCOPED_TRACE(std::string(flip < 0 ? "clean" : "an output element's exponent bit flipped") +
                   (prepared ? ", prepared" : ""));
      board guards;
      sdc::training_step enc;
      enc.guards = &guards;
      inside->encode(enc, 0);
      ASSERT_NE(guards.armed, nullptr) << "in_step arms a guard";
      sdc::gemm_call g;
      g.m = m, g.k = k, g.n = n, g.a = a.data(), g.b = b.data();
      std::vector<float> c(size_t(m * n)), plain(size_t(m * n));
      if (prepared) guards.armed->prepare(g);
      ASSERT_TRUE(guards.armed->product(g, c.data())) << "fp32 V-ABFT has a protected GEMM";
      sdc::gemm_fixed_order(a.data(), b.data(), plain.data(), {m, n, k}, {});
      ASSERT_EQ(0, std::memcmp(c.data(), plain.data(), c.size() * sizeof(float))) << "the product is our kernel's";
      const bool changed = flip >= 0;
      if (changed) {
        uint32_t bits;
        std::memcpy(&bits, &c[size_t(flip)], 4);
        bits ^= 1u << 27;
        std::memcpy(&c[size_t(flip)], &bits, 4);
      }
      guards.armed->stored(g, c.data(), changed);
      const sdc::verdict v_in = inside->observe(sdc::training_step{});
      sdc::training_step rec;
      rec.gemms.push_back({0, 0, false, m, k, n, a, b, c});
      const sdc::verdict v_after = after->observe(rec);
      EXPECT_EQ(v_in.flagged, v_after.flagged);
      EXPECT_EQ(v_in.flagged, flip >= 0) << "the flip is seen, the clean GEMM passes";
      EXPECT_EQ(v_in.score, v_after.score);
      EXPECT_EQ(v_in.metrics, v_after.metrics);
    }
  }
}

}  // namespace
