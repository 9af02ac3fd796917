// Deterministic replay of a step's forward and backward: torchtitan's SDC
// replay (torchtitan/observability/sdc_replayer.py at 276e0b9b, SDCReplayer
// run_fwd_bwd and _signature; silent_data_corruption.md). On a checked step
// every rank runs its forward and backward again num_replays times from the
// state it had before the step, in place (its own device and replica), the
// collective included, and compares each replay's signature with the first
// execution's: the loss and a digest of each parameter's gradient as the
// step left it (_hash_tensor: torch.hash_tensor's XOR of the elements' bits,
// order-insensitive; here the fp32 bits XORed per parameter). Under DDP
// (our trainer) that gradient is the rank's copy of the all-reduced one, so a
// fault in one rank's gradient before the collective changes every rank's
// and the replay blames the lowest rank (the original names the lowest
// mismatching rank; under FSDP only the shard that holds the element would
// differ). Any mismatch raises SDCReplayMismatch on every rank, so the first
// mismatching replay ends the check. The schedule: num_steps optimizer steps
// checked from each (re)start, -1 every step; an episode forks from a
// checkpoint, so its first step is the first after a restart. Cost: 1 +
// num_replays forward/backwards on a checked step on every rank. The rest of
// the original's signature (RNG states, buffers, ntokens_seen) is restored
// before a replay and equal unless a fault lands in it, which none of our
// sites does (CONFORMANCE.md, "torchtitan SDC replay").
//
// In place, a replay reproduces anything deterministic: a corrupted weight
// or optimizer moment (state), and a permanent fault of the device; a
// transient fault in a rank's copy of the reduced gradient shows on that rank
// alone. Named variants (ours, off by default): `signature: local` compares
// each rank's own gradient before the all-reduce, blaming the rank whose own
// gradient differs (what we ran before issue 67); `peer` (the replica-
// consensus idea, needs `signature: local`: a peer replays one rank's step
// alone) replays rank r's step on devices r+1 .. r+num_replays (mod ranks),
// each from its own replica, so state divergence and a broken device show;
// with three or more copies (num_replays >= 2) it blames by majority the
// device whose copy alone differs (none when no single copy does), else the
// rank whose step was checked. `period` K (0 = off) checks the steps where
// step % K == 0 instead of the first num_steps.
// Score = mismatching (rank, replay) pairs; not_computed on a step not checked.
#include <bit>
#include <map>

#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

// The loss bits and one XOR digest per parameter's gradient.
std::vector<uint64_t> signature(double loss, const std::vector<float>& grads, const training_layout& l) {
  std::vector<uint64_t> sig{std::bit_cast<uint64_t>(loss)};
  for (size_t p = 0; p < l.offsets.size(); ++p) {
    const int64_t end = p + 1 < l.offsets.size() ? l.offsets[p + 1] : l.numel;
    uint64_t x = 0;
    for (int64_t i = l.offsets[p]; i < end; ++i) x ^= std::bit_cast<uint32_t>(grads[size_t(i)]);
    sig.push_back(x);
  }
  return sig;
}

class sdc_replay final : public episode_detector {
 public:
  sdc_replay(int64_t num_steps, int64_t num_replays, bool peer, int64_t period, bool reduced)
      : num_steps_(num_steps), replays_(num_replays), peer_(peer), period_(period), reduced_(reduced) {}
  void reset(const episode_context&) override { steps_ = 0; }
  detector_needs needs() const override { return {.recompute = true, .reduced_grads = reduced_}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    verdict v;  // score and metrics not computed unless the step is checked
    const std::vector<const training_step*> s = training_steps(views);
    if (s.empty() || !s[0]->recomputer) return v;  // a warm-up step before the episode's restart
    const int64_t local = steps_++;
    const bool checked = period_ > 0 ? s[0]->step % period_ == 0 : (num_steps_ < 0 || local < num_steps_);
    if (!checked) return v;
    const auto [mismatches, blamed] = reduced_ ? replay_step(s) : replay_ranks(s);
    v.flagged = mismatches > 0;
    v.score = double(mismatches);
    v.metrics = {{"replay_mismatches", double(mismatches)}};
    if (v.flagged) v.rank = blamed;
    return v;
  }

 private:
  // The original: every rank replays in place, the replays' gradients are
  // all-reduced as the step's were, and each rank's signature is compared;
  // the first mismatching replay raises, naming the lowest mismatching rank.
  std::pair<int, int> replay_step(const std::vector<const training_step*>& s) {
    const int R = int(s.size());
    step_recomputer& rc = *s[0]->recomputer;
    for (int64_t k = 1; k <= replays_; ++k) {
      std::vector<std::vector<float>> local{size_t(R)};
      std::vector<double> loss(static_cast<size_t>(R), 0.0);
      for (int r = 0; r < R; ++r) {
        recomputed_step again = rc.recompute(r, r, r);
        loss[size_t(r)] = again.loss, local[size_t(r)] = std::move(again.grads);
      }
      int mismatches = 0, blamed = -1;
      for (int r = 0; r < R; ++r) {
        const auto& t = *s[size_t(r)];
        if (signature(loss[size_t(r)], rc.all_reduce(local, r), *t.layout) == signature(t.loss, t.reduced_grads, *t.layout)) continue;
        ++mismatches;
        if (blamed < 0) blamed = r;
      }
      if (mismatches > 0) return {mismatches, blamed};  // SDCReplayMismatch
    }
    return {0, -1};
  }

  // signature: local (and peer): each rank's step alone, its gradient before the all-reduce.
  std::pair<int, int> replay_ranks(const std::vector<const training_step*>& s) {
    const int R = int(s.size());
    int mismatches = 0, blamed = -1;
    for (int r = 0; r < R; ++r) {
      const auto& t = *s[size_t(r)];
      std::vector<std::vector<uint64_t>> copies{signature(t.loss, t.grads, *t.layout)};  // copy k from device r + k (peer)
      for (int64_t k = 1; k <= replays_; ++k) {
        const int device = peer_ ? int((r + k) % R) : r;
        const recomputed_step rc = t.recomputer->recompute(r, device, device);
        copies.push_back(signature(rc.loss, rc.grads, *t.layout));
      }
      int here = 0;
      for (size_t k = 1; k < copies.size(); ++k) here += copies[k] != copies[0];
      mismatches += here;
      if (here > 0 && blamed < 0) blamed = peer_ && copies.size() >= 3 ? odd_device(copies, r, R) : r;
      if (here > 0 && !(peer_ && copies.size() >= 3)) break;  // SDCReplayMismatch: the step stops here
    }
    return {mismatches, blamed};
  }

  // The device whose copy alone differs from all the others (which agree), or -1.
  static int odd_device(const std::vector<std::vector<uint64_t>>& copies, int r, int R) {
    std::map<std::vector<uint64_t>, std::vector<size_t>> groups;
    for (size_t k = 0; k < copies.size(); ++k) groups[copies[k]].push_back(k);
    if (groups.size() != 2) return -1;
    for (const auto& [sig, ks] : groups)
      if (ks.size() == 1 && copies.size() - 1 > 1) return int((size_t(r) + ks[0]) % size_t(R));
    return -1;
  }

  int64_t num_steps_, replays_;
  bool peer_;
  int64_t period_;
  bool reduced_;
  int64_t steps_ = 0;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "sdc_replay",
                            "torchtitan's SDC replay: on a checked step every rank reruns its forward and backward num_replays times "
                            "in place and compares loss and per-parameter gradient digests bitwise (score = mismatching replays)",
                            {{"num_steps", param_spec::type::integer, 1,
                              "steps checked from each (re)start (torchtitan: 1, -1 every step)", {}},
                             {"num_replays", param_spec::type::integer, 1, "re-executions compared with the first (torchtitan: 1)", {}},
                             {"peer", param_spec::type::boolean, false,
                              "named variant: replay rank r's step on ranks r+1.. from their own replicas; majority blame with 3+ copies", {}},
                             {"period", param_spec::type::integer, 0,
                              "named variant: check the steps where step % period == 0 (0: torchtitan's num_steps)", {}},
                             {"signature", param_spec::type::choice, "reduced",
                              "reduced (torchtitan: each rank's gradient after the all-reduce, every rank replayed) or local "
                              "(named variant: each rank's own gradient before it; peer needs it)",
                              {"reduced", "local"}}},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("sdc_replay sees every rank at once: use make_episode");
                            },
                            false,
                            {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              const int64_t n = p.integer("num_steps"), k = p.integer("num_replays"), period = p.integer("period");
                              if (!(n == -1 || n >= 1) || k < 1 || period < 0)
                                throw value_error("sdc_replay: expected num_steps -1 or >= 1, num_replays >= 1, period >= 0");
                              const bool reduced = p.choice("signature") == "reduced";
                              if (p.boolean("peer") && reduced)
                                throw value_error("sdc_replay: peer replays one rank's step alone: expected signature: local");
                              return std::make_unique<sdc_replay>(n, k, p.boolean("peer"), period, reduced);
                            }});

}  // namespace
}  // namespace sdc
