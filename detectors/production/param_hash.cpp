// Bitwise hashes of the replicated parameters across data-parallel ranks,
// after the optimizer step: Megatron-LM's
// megatron/core/utils.py check_param_hashes_across_dp_replicas (called from
// megatron/training/training.py post_training_step_callbacks every
// --check-weight-hash-across-dp-replicas-interval iterations, at d98e8a64).
// Each rank hashes every parameter's param.data, upcast to fp32, with SHA-1
// (hashlib.sha1(param.data.to("cpu").float().numpy())): the model copy the
// forward uses, bf16 under --bf16, not the fp32 master weights the optimizer
// keeps; the hashes are all-gathered, and each rank compares its own with DP
// replica 0's (cross_check: with every replica). Any divergence of the model
// copies shows, wherever it came from: a fault after the all-reduce (a
// reduced bucket, an optimizer moment, a weight) that every check before the
// collective misses, once it reaches the bf16 copy. `copy: master` (a named
// variant, ours) hashes the fp32 master weights instead, which also shows a
// divergence below bf16's precision.
//
// Blame (the verdict's rank): the original only says which ranks differ from
// replica 0; `blame: replica0` (default) blames the lowest such rank, which is
// wrong when replica 0 itself diverged (every other rank then differs). The
// named variant `blame: majority` blames the one rank outside the largest
// group of equal replicas, and no rank when that is not a single rank.
// Score = the ranks that differ from replica 0; not_computed on a step not
// checked (between intervals, or warm-up steps, which carry no hashes). The
// period's phase is Megatron's: completed iterations of the job, the run up
// to the fork (the episode's history) included. Under the distributed
// optimizer (trainer.hpp) the replicas are all-gathered from the shards'
// owners, so a fault in a rank's own shard reaches every replica alike and
// no hash differs.
#include <map>

#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

class param_hash final : public episode_detector {
 public:
  param_hash(int64_t interval, bool majority, bool master) : interval_(interval), majority_(majority), master_(master) {}
  void reset(const episode_context& c) override { history_ = c.history; }
  detector_needs needs() const override {
    return {.param_hashes = master_ ? detector_needs::hashes::master : detector_needs::hashes::model};
  }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& views) override {
    verdict v;  // score and metrics not computed unless the step is checked
    const std::vector<const training_step*> s = training_steps(views);
    // Megatron's `iteration % interval == 0` after the iteration-th step of
    // the job: the history's steps and this one (episode step k is the
    // job's iteration history + k + 1).
    if (s.empty() || hashes(*s[0]).empty() || (history_ + s[0]->step + 1) % interval_ != 0) return v;
    int differing = 0, first = -1;
    int64_t params = 0;
    for (size_t r = 1; r < s.size(); ++r) {
      bool differs = false;
      for (size_t i = 0; i < hashes(*s[r]).size() && i < hashes(*s[0]).size(); ++i)
        if (hashes(*s[r])[i] != hashes(*s[0])[i]) differs = true, ++params;
      if (differs) ++differing, first = first < 0 ? int(r) : first;
    }
    v.flagged = differing > 0;
    v.score = double(differing);
    v.metrics = {{"ranks_differing_from_replica0", double(differing)}, {"params_differing", double(params)}};
    if (v.flagged) v.rank = majority_ ? minority_rank(s) : first;
    return v;
  }

 private:
  const std::vector<std::string>& hashes(const training_step& s) const { return master_ ? s.param_sha1 : s.param_sha1_model; }
  // The single rank outside the largest group of identical replicas, or -1.
  int minority_rank(const std::vector<const training_step*>& s) const {
    std::map<std::vector<std::string>, std::vector<int>> groups;
    for (size_t r = 0; r < s.size(); ++r) groups[hashes(*s[r])].push_back(int(r));
    size_t largest = 0, ties = 0;
    for (const auto& [h, ranks] : groups) {
      if (ranks.size() > largest) largest = ranks.size(), ties = 1;
      else if (ranks.size() == largest) ++ties;
    }
    if (ties != 1 || largest + 1 != s.size()) return -1;
    for (const auto& [h, ranks] : groups)
      if (ranks.size() == 1) return ranks[0];
    return -1;
  }

  int64_t interval_;
  bool majority_, master_;
  int64_t history_ = 0;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::training, "param_hash",
                            "Megatron-LM's check_param_hashes_across_dp_replicas: SHA-1 of every parameter after the optimizer step, "
                            "each rank against replica 0, every `interval` steps (score = ranks that differ)",
                            {{"interval", param_spec::type::integer, 1,
                              "check after the job's iterations (history and episode steps) that are multiples of interval", {}},
                             {"blame", param_spec::type::choice, "replica0",
                              "replica0 (the lowest rank differing from replica 0, the original's report) or majority (named variant: the one rank outside the largest group)",
                              {"replica0", "majority"}},
                             {"copy", param_spec::type::choice, "model",
                              "model (the copy the forward uses, bf16 under bf16 precision: Megatron's param.data) or master (named "
                              "variant: the fp32 master weights)",
                              {"model", "master"}}},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              throw std::logic_error("param_hash sees every rank at once: use make_episode");
                            },
                            false,
                            {},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<episode_detector> {
                              if (p.integer("interval") < 1) throw value_error("param_hash: interval: expected an integer >= 1");
                              return std::make_unique<param_hash>(p.integer("interval"), p.choice("blame") == "majority",
                                                                  p.choice("copy") == "master");
                            }});

}  // namespace
}  // namespace sdc
