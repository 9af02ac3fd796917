// The training workload: episodes of K data-parallel fine-tuning steps, each
// forked from one checkpoint (the pretrained model fine-tuned for
// `warmup_steps`, made once per process and configuration), with the cell's
// fault plan applied inside the step at its site (training_sites.hpp). Every
// faulty episode is compared with its clean twin (the same data and streams,
// no fault; one twin per group of `faults_per_twin` episodes that share their
// data) for the ground truth: how much the fault mattered. Here: the axes,
// what makes no sense, the plan; the episodes are training_episode.*.
#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "foundation/io/data_files.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "workloads/training/trainer/torch_numerics.hpp"
#include "protocol/typed_workload.hpp"
#include "workloads/training/training_episode.hpp"

namespace sdc {
namespace {

using namespace sdc::train;

class training_workload final : public typed_workload<training_cell> {
 public:
  training_workload() {
    auto simple = [](auto parse) { return [parse](const std::string& v, const std::string&) { return parse(v); }; };
    auto integer = [](const char* name, int64_t min) {
      return [name, min](const std::string& v, const std::string&) { return std::to_string(parse_integer_at_least(v, min, name)); };
    };
    axes_ = {
        {"config", "a training configuration (suites/training/*.json), relative to the suite's folder", {"training/episodes.json"},
         [](const std::string& v, const std::string& dir) {
           if (!std::filesystem::exists(resolve_config(v, dir))) throw value_error("no training configuration at " + resolve_config(v, dir));
           return v;  // as written: the cell's key (and its streams) must not depend on where sdcbench runs
         }},
        {"warmup_steps", "fine-tuning steps from the pretrained model to the checkpoint every episode forks from", {"20"}, integer("warmup_steps", 0)},
        {"steps", "steps per episode (K)", {"8"}, integer("steps", 1)},
        {"site", "weight:P, adam_m:P, adam_v:P, grad:P (P = all: every parameter), bucket, act:L, actgrad:L, gemm:L, gemm:all", {"grad:blocks.0.mlp.fc1.weight"},
         simple([](const std::string& v) { return parse_fault_site(v).text(); })},
        fault_axis({"bitflip"}),
        bit_axis("the site's format: fp32 (bf16 activations and GEMM outputs under bf16 precision)", {"exp1"}),
        element_axis("element", true, {"uniform"}),
        count_axis("count", "faults each time the plan fires", {"1"}),
        when_axis({"specific(2)"}),
        rank_axis({"1"}),
        {"lifetime", "transient (the fault happens once, where the plan fires: a recomputation of the step is clean), "
         "permanent (from the plan's step on, the same corruption recurs every time the plan's rank computes the site, "
         "recomputations included; in stored state, weight:, adam_m:, adam_v:, a stuck cell: the bits it changed keep their "
         "values after every write) or intermittent(P_ON,P_OFF) (the same, in bursts: per step an on device turns off with "
         "P_OFF, an off one on with P_ON); fault_lifetime.hpp", {"transient"},
         simple([](const std::string& v) { return parse_fault_lifetime(v).text(); }), "transient"},
        {"gemm_q", "gemm sites: probability that each GEMM on the faulty rank corrupts an element", {"0.001"},
         simple([](const std::string& v) {
           double q = -1;
           try { q = std::stod(v); } catch (const std::exception&) {}
           if (!(q > 0 && q <= 1)) throw value_error("gemm_q: expected a probability in (0, 1]; got '" + v + "'");
           return fmt::format("{}", q);
         })},
        {"faults_per_twin", "faulty episodes that share their data and one clean twin run", {"4"}, integer("faults_per_twin", 1)},
        {"seed_policy", "002's per-rank seeds from the fork on: S1-1 (all one), S1-2 (rank 0 another), S1-3 (each its own), or config", {"config"},
         simple([](const std::string& v) { return v == "config" ? v : std::string(seed_policy_name(parse_seed_policy(v))); })},
        {"forks", "independent warm-ups (checkpoints) the episodes fork from: episode group g from fork g mod forks", {"1"},
         integer("forks", 1)},
        {"natural_runs", "clean runs from the fork, differing in data order and rank seeds, whose pairwise divergences "
         "over the horizon define harm (its 99th percentile)", {"16"}, integer("natural_runs", 2)},
        {"optimizer", "replicated (every rank steps a full replica, DDP) or distributed (Megatron-LM's "
         "--use-distributed-optimizer: masters and Adam moments sharded over the ranks, parameters all-gathered; trainer.hpp)",
         {"replicated"}, simple([](const std::string& v) { return std::string(parse_optimizer(v) ? "distributed" : "replicated"); }),
         "replicated"},
    };
  }
  std::string name() const override { return "training"; }
  view_kind view() const override { return view_kind::training; }
  std::string summary() const override {
    return "data-parallel fine-tuning of a byte-level transformer (libtorch), faults inside the step; 000, 002, 003";
  }
  const std::vector<axis_def>& axes() const override { return axes_; }
  training_cell parse_cell(const cell& c) const override { return parse_training_cell(c); }
  std::optional<skip_info> skip(const training_cell& g) const override {
    const train_config& cfg = *g.config;
    if (auto why = check_site(g.site, cfg.model); !why.empty()) return skip_info{"site", why};
    if (g.faults.rank >= cfg.dp.ranks) return skip_info{"rank", fmt::format("rank {} of a {}-rank run", g.faults.rank, cfg.dp.ranks)};
    if (g.lifetime.recurs()) {
      const auto& w = g.faults.when;
      if (!(w.k == step_schedule::kind::uniform || (w.k == step_schedule::kind::specific && w.steps.size() == 1)))
        return skip_info{"lifetime", "a recurring fault starts at one step (when: specific(K) or uniform(A,B)); got " + w.text()};
    }
    if (g.faults.when.k == step_schedule::kind::uniform && g.faults.when.every >= g.steps)
      return skip_info{"when", fmt::format("{} draws steps past the episode's {} steps", g.faults.when.text(), g.steps)};
    std::string why, axis;
    if (!fault_spec_for(g.faults, site_format(g.site, cfg.model), &why, &axis)) return skip_info{axis, why};
    return std::nullopt;
  }
  // A clean episode forks from the checkpoint with data and rank seeds of its
  // trial alone (training_episode.cpp, begin): no fault axis reaches it, and no
  // detector reads the cell's axes (context), so the cells of one fork share it.
  // Without a fault the two optimizers give the same bits (trainer.hpp), so
  // `optimizer` is one too (tests/test_clean_sets.cpp runs both).
  std::vector<std::string> clean_set_fault_axes() const override {
    return {"site", "fault", "bit", "element", "count", "when", "rank", "lifetime", "gemm_q", "faults_per_twin", "optimizer"};
  }
  detector_context context_of(const training_cell&) const override { return {&fp32(), &fp32()}; }
  std::vector<std::string> truth_metrics() const override {
    return {"loss_delta_rel", "param_distance_twin", "replica_divergence", "nonfinite"};
  }
  episode_shape shape_of(const training_cell& g) const override { return {g.config->dp.ranks, g.steps}; }
  fault_plan plan_for(const training_cell& g) const override { return plan_of(g.faults, site_format(g.site, g.config->model)); }
  std::unique_ptr<episode_runner> runner(const training_cell& g, uint64_t seed, const std::vector<detector_needs>& needs) const override {
    return make_training_runner(g, seed, needs);
  }
  nlohmann::json numerics() const override { return torch_numerics(); }
  // Each distinct pretraining corpus: its file name (foundation/io/data_files.hpp:
  // portable_path; a Debian package's file), the bytes of text read (decompressed) and their SHA-256,
  // which also keys the cached checkpoint (training_run.cpp).
  nlohmann::json inputs_of(const std::vector<const training_cell*>& cells) const override {
    std::set<std::string> corpora;
    for (const training_cell* g : cells)
      if (!g->config->pretrain.corpus.empty()) corpora.insert(g->config->pretrain.corpus);
    if (corpora.empty()) return nullptr;
    nlohmann::json out = nlohmann::json::array();
    for (const auto& path : corpora) {
      const std::string text = read_corpus(path);
      out.push_back({{"role", "pretraining corpus"}, {"path", portable_path(path)}, {"bytes", text.size()}, {"sha256", sha256_hex(text)}});
    }
    return out;
  }

 private:
  std::vector<axis_def> axes_;
};

const bool training_workload_registered = register_workload(std::make_unique<training_workload>());

}  // namespace
}  // namespace sdc
