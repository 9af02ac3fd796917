// The checks that recompute a step, on hand-made steps whose recomputations
// are scripted, where the original's behaviour is known: Megatron-LM's rerun
// state machine (RerunStateMachine.validate_result at d98e8a64: a rejected
// result not reproduced in place is a transient error; a fatal one reproduced
// in place but not on another GPU from the checkpoint, a persistent error;
// reproduced there too, a correct result; a non-fatal one reproduced in place
// continues undiagnosed; _compare_floats relative to the mean, tolerance 0
// for the loss and 0.001 for the grads, NaN equals NaN) and torchtitan's SDC
// replay (SDCReplayer: the first num_steps steps after a restart, or every
// step with -1; every rank replays, the collective included; any rank whose
// loss or digest of its gradient after the all-reduce differs flags, naming
// the lowest such rank), with our local-signature and peer variants.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "training_detector_harness.hpp"

namespace sdc {
namespace {

using nlohmann::json;

std::unique_ptr<episode_detector> make_rerun_check(const std::string& name, const json& params) {
  return testing::make_training_detector(name, params);
}

// Recomputations answer from a table keyed by (data rank, state, device); a
// key not in it gives the clean step (loss 2, gradients of ones). Calls are logged.
// The all-reduce is the mean of the ranks' gradients, summed in rank order;
// `copies` scripts a device whose own copy of the sum comes out otherwise (a
// recurring fault in its bucket).
struct scripted_recomputer final : step_recomputer {
  std::map<std::tuple<int, int, int>, recomputed_step> answers;
  std::map<int, std::vector<float>> copies;
  std::vector<std::tuple<int, int, int>> calls;
  recomputed_step recompute(int data_rank, int state_of, int device) override {
    calls.emplace_back(data_rank, state_of, device);
    auto it = answers.find({data_rank, state_of, device});
    return it != answers.end() ? it->second : recomputed_step{2.0, std::vector<float>(4, 1.0f)};
  }
  std::vector<float> all_reduce(const std::vector<std::vector<float>>& local, int device) override {
    if (auto it = copies.find(device); it != copies.end()) return it->second;
    std::vector<float> sum(local[0].size(), 0.0f);
    for (const auto& g : local)
      for (size_t i = 0; i < g.size(); ++i) sum[i] += g[i] / float(local.size());
    return sum;
  }
};

training_layout layout() {
  training_layout l;
  l.names = {"w", "b"}, l.offsets = {0, 3}, l.shapes = {{3}, {1}}, l.numel = 4;
  return l;
}

// Four ranks' clean steps (loss 2, gradients of ones) that can recompute.
std::vector<training_step> steps(int64_t step, scripted_recomputer* rc, const training_layout& l) {
  std::vector<training_step> s(4);
  for (int r = 0; r < 4; ++r) {
    s[size_t(r)].rank = r, s[size_t(r)].step = step, s[size_t(r)].loss = 2.0;
    s[size_t(r)].grads.assign(4, 1.0f), s[size_t(r)].layout = &l, s[size_t(r)].recomputer = rc;
    s[size_t(r)].reduced_grads.assign(4, 1.0f);
  }
  return s;
}

using testing::ptrs;

double metric(const verdict& v, const std::string& name) {
  for (const auto& [n, x] : v.metrics)
    if (n == name) return x;
  return std::nan("");
}

// Megatron with NaN checks (its defaults) and rerun: rank 1's loss is NaN at
// step 1 (step 0 is the job's first iteration, not validated).
verdict megatron_after(scripted_recomputer& rc, double rank1_loss) {
  const training_layout l = layout();
  auto d = make_rerun_check("megatron_validation", json::object());
  episode_context ctx;
  ctx.ranks = 4;
  d->reset(ctx);
  EXPECT_TRUE(d->needs().recompute);
  d->observe(ptrs(steps(0, &rc, l)));
  auto s = steps(1, &rc, l);
  s[1].loss = rank1_loss;
  return d->observe(ptrs(s));
}

TEST(MegatronRerun, ARejectionThatRerunsCleanInPlaceIsTransient) {
  scripted_recomputer rc;  // every recomputation clean: the in-place rerun gives loss 2, not NaN
  const verdict v = megatron_after(rc, std::nan(""));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 1);
  EXPECT_EQ(metric(v, "rerun_label"), 1);
  EXPECT_EQ(v.diagnosis, rerun_diagnosis::transient_error);
  ASSERT_EQ(rc.calls.size(), 1u);  // no second rerun after a transient
  EXPECT_EQ(rc.calls[0], std::make_tuple(1, 1, 1));
}

TEST(MegatronRerun, ReproducedInPlaceButNotElsewhereIsPersistent) {
  scripted_recomputer rc;
  rc.answers[{1, 1, 1}] = {std::nan(""), std::vector<float>(4, 1.0f)};  // NaN again on rank 1's device: NaN == NaN
  const verdict v = megatron_after(rc, std::nan(""));
  EXPECT_EQ(metric(v, "rerun_label"), 2);
  EXPECT_EQ(v.diagnosis, rerun_diagnosis::persistent_error);
  ASSERT_EQ(rc.calls.size(), 2u);
  // The resumed run: replica 0's state (the checkpoint) on a different device.
  EXPECT_EQ(rc.calls[1], std::make_tuple(1, 0, 2));
}

TEST(MegatronRerun, ReproducedOnAnotherDeviceIsACorrectResult) {
  scripted_recomputer rc;
  rc.answers[{1, 1, 1}] = rc.answers[{1, 0, 2}] = {std::nan(""), std::vector<float>(4, 1.0f)};
  EXPECT_EQ(metric(megatron_after(rc, std::nan("")), "rerun_label"), 0);
}

// Large grads (check_grads: fatal=False, tolerance=0.001) on rank 1 at step
// 2, the reference 2 (num_samples 1: step 1's norm); the in-place rerun's
// rank-1 gradients are `again`. Returns the verdict and the recompute calls.
std::pair<verdict, size_t> large_grads_after(const std::vector<float>& first, const std::vector<float>& again, const json& extra = {}) {
  const training_layout l = layout();
  scripted_recomputer rc;
  rc.answers[{1, 1, 1}] = {2.0, again};
  json params = {{"check_large_grads", true}, {"num_samples", 1}};
  for (const auto& [k, v] : extra.items()) params[k] = v;
  auto d = make_rerun_check("megatron_validation", params);
  episode_context ctx;
  ctx.ranks = 4;
  d->reset(ctx);
  d->observe(ptrs(steps(0, &rc, l)));  // the first iteration: not validated
  d->observe(ptrs(steps(1, &rc, l)));  // the reference: 2 (norm of four ones)
  auto s = steps(2, &rc, l);
  s[1].grads = first;
  const verdict v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(metric(v, "rejected_by"), 6);
  return {v, rc.calls.size()};
}

// _compare_floats: |(a - b) / (a + b) x 2| against the tolerance, relative to
// the two values' mean (not to the first): norms 1000 and 1001.0004 differ by
// 0.09999 % of their mean (reproduced) but 0.10004 % of the first.
TEST(MegatronRerun, AGradNormWithinATenthOfAPercentOfTheMeanOnTheRerunMatches) {
  const std::vector<float> first(4, 500.0f), close(4, 500.5002f), far(4, 500.6f);
  const auto [v, calls] = large_grads_after(first, close);
  EXPECT_EQ(metric(v, "rerun_label"), 3);  // reproduced; large grads are non-fatal: no rerun elsewhere
  EXPECT_EQ(v.diagnosis, rerun_diagnosis::undiagnosed);
  EXPECT_EQ(calls, 1u);
  EXPECT_EQ(metric(large_grads_after(first, far).first, "rerun_label"), 1);  // 0.12 %: a transient error
}

// A non-fatal rejection reproduced in place continues (continue_requested):
// no rerun on another GPU, so no persistent or correct diagnosis; the named
// variant diagnose_non_fatal runs it as for a fatal one.
TEST(MegatronRerun, ANonFatalSpikeThatReproducesContinuesUndiagnosed) {
  const std::vector<float> big(4, 1e3f);
  const auto [v, calls] = large_grads_after(big, big);
  EXPECT_EQ(metric(v, "rerun_label"), 3);
  EXPECT_EQ(calls, 1u);
  const auto [w, calls2] = large_grads_after(big, big, {{"diagnose_non_fatal", true}});
  EXPECT_EQ(metric(w, "rerun_label"), 2);  // the resumed rerun elsewhere is clean (norm 2, not 2000): persistent
  EXPECT_EQ(calls2, 2u);
}

// The loss checks compare with tolerance 0: a spiky loss whose rerun differs
// in the last bit is not reproduced.
TEST(MegatronRerun, TheLossChecksCompareExactly) {
  const training_layout l = layout();
  scripted_recomputer rc;
  rc.answers[{1, 1, 1}] = {std::nextafter(200.0, 300.0), std::vector<float>(4, 1.0f)};
  auto d = make_rerun_check("megatron_validation", {{"check_spiky_loss", true}, {"num_samples", 1}});
  episode_context ctx;
  ctx.ranks = 4;
  d->reset(ctx);
  d->observe(ptrs(steps(0, &rc, l)));
  d->observe(ptrs(steps(1, &rc, l)));  // the loss reference: 2
  auto s = steps(2, &rc, l);
  s[1].loss = 200.0;
  const verdict v = d->observe(ptrs(s));
  EXPECT_EQ(metric(v, "rejected_by"), 3);
  EXPECT_EQ(metric(v, "rerun_label"), 1);
}

// validate_result skips the job's first iteration in validate_results mode
// (first_iteration_complete) but not with --rerun-mode disabled; without
// rerun no label is computed.
TEST(MegatronRerun, TheFirstIterationIsValidatedOnlyWithRerunDisabled) {
  const training_layout l = layout();
  scripted_recomputer rc;
  auto s = steps(0, &rc, l);
  s[1].loss = std::nan("");
  episode_context ctx;
  ctx.ranks = 4;
  auto on = make_rerun_check("megatron_validation", json::object());
  on->reset(ctx);
  EXPECT_FALSE(on->observe(ptrs(s)).flagged);
  auto off = make_rerun_check("megatron_validation", {{"rerun", false}});
  EXPECT_FALSE(off->needs().recompute);
  off->reset(ctx);
  const verdict v = off->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_TRUE(std::isnan(metric(v, "rerun_label")));
  EXPECT_EQ(v.diagnosis, rerun_diagnosis::none);
  EXPECT_TRUE(rc.calls.empty());
}

TEST(SdcReplay, DefaultsCheckOnlyTheFirstStepAfterARestart) {
  const training_layout l = layout();
  scripted_recomputer rc;
  auto d = make_rerun_check("sdc_replay", json::object());
  d->reset({});
  auto warm = steps(0, &rc, l);
  for (auto& x : warm) x.recomputer = nullptr;  // before the restart: not counted
  EXPECT_FALSE(d->observe(ptrs(warm)).flagged);
  EXPECT_FALSE(d->observe(ptrs(steps(0, &rc, l))).flagged);  // checked: every replay matches
  EXPECT_EQ(rc.calls.size(), 4u);                              // one replay per rank, in place
  for (int r = 0; r < 4; ++r) EXPECT_EQ(rc.calls[size_t(r)], std::make_tuple(r, r, r));
  auto s = steps(1, &rc, l);
  s[2].grads[3] = 7;
  EXPECT_FALSE(d->observe(ptrs(s)).flagged);  // not checked: num_steps = 1
  EXPECT_EQ(rc.calls.size(), 4u);
}

// A step the replay does not check (a warm-up step before the restart, or
// past num_steps) computes nothing: score not_computed (null in a result
// set), no metric; a checked step that matches scores 0 mismatches.
TEST(SdcReplay, AStepNotReplayedHasNoScore) {
  const training_layout l = layout();
  scripted_recomputer rc;
  auto d = make_rerun_check("sdc_replay", json::object());
  d->reset({});
  auto warm = steps(0, &rc, l);
  for (auto& x : warm) x.recomputer = nullptr;
  verdict v = d->observe(ptrs(warm));
  EXPECT_TRUE(is_not_computed(v.score)) << "warm-up: " << v.score;
  EXPECT_TRUE(v.metrics.empty());
  v = d->observe(ptrs(steps(0, &rc, l)));
  EXPECT_EQ(v.score, 0) << "replayed: every replay matches";
  EXPECT_EQ(metric(v, "replay_mismatches"), 0);
  v = d->observe(ptrs(steps(1, &rc, l)));
  EXPECT_FALSE(v.flagged);
  EXPECT_TRUE(is_not_computed(v.score)) << "past num_steps = 1: " << v.score;
  EXPECT_TRUE(v.metrics.empty());
}

void flip(float& x, uint32_t mask) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4), bits ^= mask, std::memcpy(&x, &bits, 4);
}

// torchtitan hashes each rank's gradient after the step's backward, which
// under DDP is its copy of the all-reduced gradient: a fault in one rank's
// gradient before the collective changes every rank's, and the replay names
// the lowest mismatching rank, 0; a fault in one rank's copy after the
// collective shows on that rank alone.
TEST(SdcReplay, AFaultBeforeTheCollectiveShowsOnEveryRankAndTheLowestIsBlamed) {
  const training_layout l = layout();
  scripted_recomputer rc;
  auto d = make_rerun_check("sdc_replay", {{"num_steps", -1}});
  d->reset({});
  auto s = steps(0, &rc, l);
  flip(s[2].grads[1], 1u);
  for (auto& x : s) flip(x.reduced_grads[1], 1u);  // the sum carries rank 2's fault to every rank
  verdict v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 0);
  EXPECT_EQ(metric(v, "replay_mismatches"), 4);
  EXPECT_EQ(rc.calls.size(), 4u);  // every rank replayed once, in place
  s = steps(1, &rc, l);
  flip(s[2].reduced_grads[3], 1u << 22);  // rank 2's own copy of the sum
  v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 2);
  EXPECT_EQ(metric(v, "replay_mismatches"), 1);
  // The same fault recurring in device 2's copy on the replay (a permanent
  // fault of the device) is reproduced: no mismatch.
  rc.copies[2] = s[2].reduced_grads;
  EXPECT_FALSE(d->observe(ptrs(s)).flagged);
}

TEST(SdcReplay, TheLocalSignatureFlagsAnyDifferingBitAndNamesTheRank) {
  const training_layout l = layout();
  scripted_recomputer rc;
  auto d = make_rerun_check("sdc_replay", {{"num_steps", -1}, {"signature", "local"}});
  d->reset({});
  d->observe(ptrs(steps(0, &rc, l)));
  auto s = steps(1, &rc, l);
  uint32_t bits;
  std::memcpy(&bits, &s[2].grads[1], 4), bits ^= 1u, std::memcpy(&s[2].grads[1], &bits, 4);  // the last mantissa bit
  const verdict v = d->observe(ptrs(s));
  EXPECT_TRUE(v.flagged);
  EXPECT_EQ(v.rank, 2);
  // The digest is torch.hash_tensor's XOR: one flipped bit always shows; the
  // same bit flipped in two elements of one parameter cancels (order-insensitive).
  s = steps(2, &rc, l);
  std::memcpy(&bits, &s[1].grads[0], 4), bits ^= 1u << 30, std::memcpy(&s[1].grads[0], &bits, 4);
  std::memcpy(&bits, &s[1].grads[1], 4), bits ^= 1u << 30, std::memcpy(&s[1].grads[1], &bits, 4);
  EXPECT_FALSE(d->observe(ptrs(s)).flagged);
}

TEST(SdcReplay, InPlaceMissesStateThePeerVariantBlamesByMajority) {
  const training_layout l = layout();
  scripted_recomputer rc;
  // Device 1's replica diverged: whatever it computes differs.
  for (int r = 0; r < 4; ++r) rc.answers[{r, 1, 1}] = {2.5, std::vector<float>(4, 1.0f)};
  auto s = steps(0, &rc, l);
  s[1].loss = 2.5;  // rank 1's own step, from its diverged replica
  auto in_place = make_rerun_check("sdc_replay", json::object());
  in_place->reset({});
  EXPECT_FALSE(in_place->observe(ptrs(s)).flagged);  // the replay reproduces the diverged state
  auto two = make_rerun_check("sdc_replay", {{"peer", true}, {"signature", "local"}});
  two->reset({});
  const verdict v2 = two->observe(ptrs(s));
  EXPECT_TRUE(v2.flagged);
  EXPECT_EQ(v2.rank, 0);  // rank 0's step replayed on device 1 differs first: two copies cannot tell
  auto three = make_rerun_check("sdc_replay", {{"peer", true}, {"num_replays", 2}, {"signature", "local"}});
  three->reset({});
  const verdict v3 = three->observe(ptrs(s));
  EXPECT_TRUE(v3.flagged);
  EXPECT_EQ(v3.rank, 1);  // the copy from device 1 alone differs
  // The period variant checks the steps where step % period == 0.
  auto k = make_rerun_check("sdc_replay", {{"peer", true}, {"period", 2}, {"signature", "local"}});
  k->reset({});
  auto odd = s;
  for (auto& x : odd) x.step = 3;
  EXPECT_FALSE(k->observe(ptrs(odd)).flagged);
  EXPECT_TRUE(k->observe(ptrs(s)).flagged);
}

TEST(SdcReplay, PeerNeedsTheLocalSignature) {
  EXPECT_THROW(make_rerun_check("sdc_replay", {{"peer", true}}), std::exception);
}

}  // namespace
}  // namespace sdc
