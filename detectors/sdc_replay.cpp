// Deterministic replay of a step's forward and backward: torchtitan's SDC
// replay (torchtitan/observability/sdc_replayer.py, SDCReplayer.run_fwd_bwd;
// silent_data_corruption.md). On a checked step every rank runs its forward
// and backward again num_replays times from the state it had before the step
// (in place: its own device and replica) and compares each replay's
// signature with the first execution's: the loss and a digest of each
// parameter's local gradient (_hash_tensor: torch.hash_tensor's XOR of the
// elements' bits, order-insensitive), here the fp32 bits XORed per
// parameter. Any mismatch raises SDCReplayMismatch on every rank, naming the
// originating rank (here the lowest mismatching one). The schedule:
// num_steps optimizer steps checked from each (re)start, -1 every step; an
// episode forks from a checkpoint, so its first step is the first after a
// restart. Cost: 1 + num_replays forward/backwards on a checked step.
//
// In place, a replay reproduces anything deterministic: a corrupted weight,
// optimizer moment or reduced gradient (state), and a permanent fault of the
// device. The named variant `peer` (ours, off by default; the replica-
// consensus idea) replays rank r's step on devices r+1 .. r+num_replays
// (mod ranks), each from its own replica, so state divergence and a broken
// device show; with three or more copies (num_replays >= 2) it blames by
// majority the device whose copy alone differs (none when no single copy
// does), else the rank whose step was checked. `period` K (ours, 0 = off)
// checks the steps where step % K == 0 instead of the first num_steps.
// Score = mismatching replays; not_computed on a step not checked (no replay).
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
  sdc_replay(int64_t num_steps, int64_t num_replays, bool peer, int64_t period)
      : num_steps_(num_steps), replays_(num_replays), peer_(peer), period_(period) {}
  void reset(const episode_context&) override { steps_ = 0; }
  nlohmann::json needs() const override { return {{"recompute", true}}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    verdict v;  // score and metrics not computed unless the step is checked
    const std::vector<const training_step*> s = training_steps(views);
    if (s.empty() || !s[0]->recomputer) return v;  // a warm-up step before the episode's restart
    const int64_t local = steps_++;
    const bool checked = period_ > 0 ? s[0]->step % period_ == 0 : (num_steps_ < 0 || local < num_steps_);
    if (!checked) return v;
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
    v.flagged = mismatches > 0;
    v.score = double(mismatches);
    v.metrics = {{"replay_mismatches", double(mismatches)}};
    if (v.flagged) v.rank = blamed;
    return v;
  }

 private:
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
                              "named variant: check the steps where step % period == 0 (0: torchtitan's num_steps)", {}}},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("sdc_replay sees every rank at once: use make_episode");
                            },
                            false,
                            {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              const int64_t n = p.integer("num_steps"), k = p.integer("num_replays"), period = p.integer("period");
                              if (!(n == -1 || n >= 1) || k < 1 || period < 0)
                                throw value_error("sdc_replay: expected num_steps -1 or >= 1, num_replays >= 1, period >= 0");
                              return std::make_unique<sdc_replay>(n, k, p.boolean("peer"), period);
                            }});

}  // namespace
}  // namespace sdc
