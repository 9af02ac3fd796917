// The training workload's episodes (training_episode.hpp): the runner; the
// clean twin and the ground truth are training_truth.*, the fork point and the
// natural-variation reference training_fork.*.
#include "workloads/training/training_episode.hpp"

#include <algorithm>
#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "foundation/io/digest.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/timing.hpp"
#include "protocol/views/training_view.hpp"
#include "workloads/training/gemm_guards.hpp"
#include "workloads/training/recompute_service.hpp"
#include "workloads/training/step_work.hpp"
#include "workloads/training/training_fork.hpp"
#include "workloads/training/training_truth.hpp"

namespace sdc::train {

namespace {

class training_runner final : public episode_runner, public step_observer, public gemm_hook {
 public:
  training_runner(const training_cell& g, uint64_t seed, const std::vector<detector_needs>& needs)
      : g_(g),
        seed_(seed),
        cell_hash_(g.hash),
        fork_(fork_for(g_.config_path, g_.warmup, 0)),
        sites_(g_.site, fork_->config.model, g_.q),
        views_(size_t(fork_->config.dp.ranks)),
        work_(needs),
        guards_(work_.any(step_need::gemm_guard) ? size_t(fork_->config.dp.ranks) : 0),
        record_gemms_(work_.any(step_need::gemms)),
        record_attention_(work_.any(step_need::attention_gemms)),
        hash_params_(work_.any(step_need::param_hashes)),
        copy_reduced_(work_.any(step_need::reduced_grads)),
        hash_copies_(param_copies(needs)),
        plan_(plan_of(g_.faults, site_format(g_.site, fork_->config.model))),
        recompute_(g_.site, fork_->config.model, g_.q, g_.lifetime, plan_.spec, work_.any(step_need::recompute)) {
    torch::set_num_threads(1);
    for (auto& v : views_) v.layout = &fork_->layout;
    for (size_t r = 0; r < views_.size(); ++r) views_[r].rank = int(r);
  }

  uint64_t begin(trial_kind kind, uint64_t trial) override {
    torch::set_num_threads(1);  // ATen's reductions depend on the thread count
    const uint64_t group = kind == trial_kind::faulty ? trial / uint64_t(g_.per_twin) : trial;
    fork_index_ = int64_t(group % uint64_t(g_.forks));
    fork_ = fork_for(g_.config_path, g_.warmup, fork_index_);
    dp_ = fork_->config.dp;
    if (g_.policy) dp_.policy = *g_.policy;  // the cell's seed policy from the fork on
    dp_.distributed_optimizer = g_.distributed_optimizer;
    for (auto& v : views_) v.bucket_bf16 = dp_.bf16_buckets;
    // Episodes see their own shuffles: (kind, group) picks the sampler's epochs.
    dp_.epoch_offset = int64_t(1 + (kind == trial_kind::faulty ? 0 : (1ull << 30)) + group * 1000);
    dp_.seed = fork_->config.dp.seed ^ (seed_ * 0x9e3779b97f4a7c15ull);
    // A faulty episode at a site inside the softmax (and its clean twin)
    // trains with the explicit softmax; a clean one keeps torch's, as cells
    // that differ only in their site share their clean episodes.
    const model_config m = kind == trial_kind::faulty ? model_for_site(g_.site, fork_->config.model) : fork_->config.model;
    trainer_ = std::make_unique<dp_trainer>(m, fork_->config.optim, dp_, &fork_->data.train);
    trainer_->start_from(fork_->start);
    recompute_.begin(trainer_.get(), [this, kind, trial](int64_t step) {
      rng g = make_stream(seed_, cell_hash_, trial, kind, g_.faults.rank, step, stream_purpose::lifetime);
      return boost::random::uniform_01<double>()(g);
    });
    for (auto& v : views_) v.recomputer = recompute_.keeps_state() ? &recompute_ : nullptr;
    losses_.clear();
    when_ = kind == trial_kind::faulty ? episode_schedule(plan_, seed_, cell_hash_, trial, kind) : plan_.when;
    data_id_ = (kind == trial_kind::faulty ? 0 : (1ull << 62)) + group;
    return data_id_;
  }
  std::vector<std::vector<const step_view*>> history() override {
    std::vector<std::vector<const step_view*>> h;
    for (const auto& step : fork_->history) {
      h.emplace_back();
      for (const auto& v : step) h.back().push_back(&v);
    }
    return h;
  }
  bool injects_in_step() const override { return true; }
  double run_step(int64_t) override { throw std::logic_error("training steps run with their injector"); }
  double run_step_injecting(int64_t step, step_injector& inj) override {
    sites_.arm(&recompute_.injector_for(inj, g_.faults.rank, step, trainer_->global_step()));
    work_.reset();
    const auto t0 = clock_type::now();
    const step_record rec = trainer_->step(this);
    sites_.arm(nullptr);
    double mean = 0;
    for (size_t r = 0; r < rec.loss.size(); ++r) views_[r].loss = rec.loss[r], views_[r].step = step, mean += rec.loss[r];
    losses_.push_back(mean / double(rec.loss.size()));
    return seconds_since(t0);
  }
  // The step's work for detectors: what each asked of it (needs()), and its guards.
  step_work detector_work() const override {
    step_work w = work_.charge();
    for (const auto& g : guards_) g.add_work(w.by_slot, w.total);
    return w;
  }
  fault_target& target(int64_t, int) override { throw std::logic_error("training faults land inside the step"); }
  void faulted(int64_t, int, const std::vector<injection_record>&) override {}
  location truth_location(const injection_record&) const override { return {}; }  // the driver adds the rank
  std::vector<const step_view*> views(int64_t) override {
    std::vector<const step_view*> v;
    for (const auto& s : views_) v.push_back(&s);
    return v;
  }
  episode_truth truth() override;

  // step_observer: the site first, then copy the rank's gradients for the detectors.
  void step_begins(int64_t s, int r, replica& rep) override {
    sites_.step_begins(s, r, rep);
    const auto t0 = clock_type::now();
    recompute_.step_begins(r, rep, s);
    work_.add(step_need::recompute, seconds_since(t0));
  }
  // A rerun's diagnosis (protocol/detector.hpp, rerun_diagnosis; an
  // undiagnosed one is judged by nobody) against what was injected: a clean
  // episode's alarm is a correct result, a transient fault transient, a
  // recurring one (permanent, intermittent: a device's) persistent.
  void judge(const verdict& v, trial_kind kind, metric_list& out) override {
    if (v.diagnosis == rerun_diagnosis::none || v.diagnosis == rerun_diagnosis::undiagnosed) return;
    const rerun_diagnosis truth = kind == trial_kind::clean ? rerun_diagnosis::correct_result
                                  : g_.lifetime.recurs()    ? rerun_diagnosis::persistent_error  // a device's
                                                            : rerun_diagnosis::transient_error;
    out.emplace_back("attribution_right", v.diagnosis == truth ? 1.0 : 0.0);
  }
  // Before each step, the detectors that run inside the GEMMs arm their guards here.
  std::vector<const step_view*> encode_views(int64_t) override {
    std::vector<const step_view*> v;
    for (size_t r = 0; r < guards_.size(); ++r) guards_[r].clear(), views_[r].guards = &guards_[r], v.push_back(&views_[r]);
    return v;
  }
  gemm_hook* gemm_hook_for(int64_t s, int r) override {
    site_hook_ = sites_.gemm_hook_for(s, r);
    guarded_ = !guards_.empty() && guards_[size_t(r)].any();
    if (!record_gemms_ && !record_attention_ && !guarded_) return site_hook_;
    hook_rank_ = r;
    if (record_gemms_) views_[size_t(r)].gemms.clear();
    if (record_attention_) views_[size_t(r)].attention.clear();
    return this;
  }
  // The forward's attention products, when a detector asks: no site is in
  // them, so each is as computed (fault_changed false).
  void after_attention(int layer, int pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out) override {
    if (!record_attention_) return;
    const auto t0 = clock_type::now();
    views_[size_t(hook_rank_)].attention.push_back(batched_record_of(layer, pass, a, b, out));
    work_.add(step_need::attention_gemms, seconds_since(t0));
  }
  // The attention sites, after the attention products are recorded.
  bool wants_attention(int layer, attention_point p) override { return site_hook_ && site_hook_->wants_attention(layer, p); }
  void at_attention(int layer, attention_point p, torch::Tensor& t) override { site_hook_->at_attention(layer, p, t); }
  bool run_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    return guarded_ && guards_[size_t(hook_rank_)].run_gemm(linear, pass, a, b, out);
  }
  // gemm_hook. A defective GEMM (gemm:) corrupts its own output: the record
  // holds it, and whether the fault changed it and recurs on this device (a
  // recomputation there repeats it). act: and actgrad: faults land after the
  // GEMM, as MindSpore's injection operator after a MatMul does: the GEMM's
  // own output, which a GEMM check verifies, is recorded clean first.
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    const bool after_the_gemm = g_.site.k == fault_site::kind::act || g_.site.k == fault_site::kind::actgrad;
    const bool fault_here = site_hook_ && !after_the_gemm && !g_.site.mx() &&
                            g_.site.k != fault_site::kind::attention;  // mx: in the operands, before the product; attention: not in a linear GEMM
    if (guarded_) guards_[size_t(hook_rank_)].before_fault(out, fault_here);
    const auto t0 = clock_type::now();
    const torch::Tensor before = record_gemms_ && fault_here ? out.clone() : torch::Tensor();
    const double copy = seconds_since(t0);
    if (fault_here) site_hook_->after_gemm(linear, pass, a, b, out);
    if (record_gemms_) {
      const auto t1 = clock_type::now();
      record(linear, pass, a, b, out, before);
      work_.add(step_need::gemms, copy + seconds_since(t1));
    }
    if (guarded_) guards_[size_t(hook_rank_)].stored(linear, pass, a, b, out);
    if (site_hook_ && after_the_gemm) site_hook_->after_gemm(linear, pass, a, b, out);
  }
  // Precision mxfp8: a fault in an operand's codes or scales lands as the GEMM quantizes it.
  void quantized(int linear, gemm_pass pass, int operand, block_tensor& q) override {
    if (site_hook_) site_hook_->quantized(linear, pass, operand, q);
  }
  void record(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out,
              const torch::Tensor& before) {
    gemm_record& g = views_[size_t(hook_rank_)].gemms.emplace_back(gemm_record_of(linear, pass, a, b, out));
    g.fault_changed = before.defined() && std::memcmp(before.data_ptr(), out.data_ptr(), size_t(out.nbytes())) != 0;
    g.fault_recurs = recompute_.repeats_on(hook_rank_);
  }
  void grads_ready(int64_t s, int r, replica& rep) override {
    sites_.grads_ready(s, r, rep);
    auto& g = views_[size_t(r)].grads;
    g.resize(size_t(fork_->layout.numel));
    for (size_t i = 0; i < rep.params.tensors.size(); ++i) {
      const auto& t = rep.params.tensors[i].grad();
      std::copy_n(t.data_ptr<float>(), t.numel(), g.data() + fork_->layout.offsets[i]);
    }
  }
  void reduced(int64_t s, int r, torch::Tensor& b) override {
    sites_.reduced(s, r, b);
    if (!copy_reduced_) return;
    const auto t0 = clock_type::now();
    const torch::Tensor c = b.contiguous();
    views_[size_t(r)].reduced_grads.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    work_.add(step_need::reduced_grads, seconds_since(t0));
  }
  void optimizer_grads(int64_t, int r, const torch::Tensor& g) override { views_[size_t(r)].reduced_grad_norm = norm_of(g); }
  // After the optimizer step: each replica's parameter hashes, when asked,
  // of the copies asked for (training_view.hpp: the fp32 master weights, and
  // the model copy: bf16 under bf16 precision, hashed upcast to fp32 as
  // Megatron's check_param_hashes_across_dp_replicas hashes param.data).
  void step_ends(int64_t, const std::vector<replica>& reps) override {
    if (!hash_params_) return;
    const auto t0 = clock_type::now();
    const bool bf16 = fork_->config.model.bf16;
    for (size_t r = 0; r < reps.size(); ++r) {
      auto& master = views_[r].param_sha1;
      auto& model = views_[r].param_sha1_model;
      master.clear(), model.clear();
      for (const auto& t : reps[r].params.tensors) {
        const torch::Tensor f = t.detach().to(torch::kFloat).contiguous();
        const std::string h = sha1_hex(f.data_ptr<float>(), size_t(f.numel()) * sizeof(float));
        if (hash_copies_.master) master.push_back(h);
        if (!hash_copies_.model) continue;
        if (!bf16) {
          model.push_back(h);
          continue;
        }
        const torch::Tensor m = t.detach().to(torch::kBFloat16).to(torch::kFloat).contiguous();
        model.push_back(sha1_hex(m.data_ptr<float>(), size_t(m.numel()) * sizeof(float)));
      }
    }
    work_.add(step_need::param_hashes, seconds_since(t0));
  }

 private:
  training_cell g_;
  uint64_t seed_, cell_hash_;
  std::shared_ptr<const fork_point> fork_;
  site_injector sites_;
  std::vector<training_step> views_;
  step_work_meter work_;             // what the detectors asked of the step, and its seconds on it
  std::vector<rank_guards> guards_;  // per rank, when a detector runs inside the GEMMs
  bool guarded_ = false;
  dp_config dp_;
  std::unique_ptr<dp_trainer> trainer_;
  std::vector<double> losses_;
  uint64_t data_id_ = 0;
  int64_t fork_index_ = 0;
  bool record_gemms_, record_attention_, hash_params_, copy_reduced_;  // work_.any(gemms), (attention_gemms), (param_hashes), (reduced_grads)
  // Which copies the detectors that ask for hashes name (detector_needs::param_hashes).
  struct copies {
    bool model = false, master = false;
  };
  static copies param_copies(const std::vector<detector_needs>& needs) {
    copies c;
    for (const auto& n : needs)
      if (n.param_hashes != detector_needs::hashes::none) (n.param_hashes == detector_needs::hashes::master ? c.master : c.model) = true;
    return c;
  }
  copies hash_copies_;
  fault_plan plan_;
  step_schedule when_;  // the plan's schedule in this episode (a uniform one drawn)
  recompute_service recompute_;
  gemm_hook* site_hook_ = nullptr;
  int hook_rank_ = 0;
  clean_twin twin_;  // of the current data group
};

episode_truth training_runner::truth() {
  twin_.run(*fork_, model_for_site(g_.site, fork_->config.model), dp_, g_.steps, data_id_);
  return episode_truth_of(g_, *fork_, fork_index_, dp_, when_, trainer_->replicas(), losses_, twin_);
}

}  // namespace

std::unique_ptr<episode_runner> make_training_runner(const training_cell& g, uint64_t seed, const std::vector<detector_needs>& needs) {
  return std::make_unique<training_runner>(g, seed, needs);
}

}  // namespace sdc::train
