// What each training-level detector costs per training step (issue 12's goals:
// <= 0.5 % of a step for 000's and 003's checks, <= 1 % for 002's metrics;
// 000 measured 0.46 % on LLaMA2-7B), as ratios in one run (paired iterations:
// bench/paired_timer.hpp): one in-process data-parallel step of 4 ranks
// against each detector observing that step's 4 ranks (their gradients before
// the all-reduce, as the campaign hands them over; the copy itself is the
// harness's, not the detector's, and is not timed). The detectors do O(P)
// work per rank and step while the step does O(tokens x P), so the ratio falls
// with the tokens per rank: two model sizes show the trend. The GEMM checks
// follow, on every linear GEMM of the 4 ranks (forward and both backward):
// 001's V-ABFT and 003's CheckSum on the hook's copies after the step
// (V-ABFT's in_step: false; torch_npu's CheckSum also at its original scope,
// the forward attention products), and V-ABFT fused into our GEMM as a campaign
// runs it by default (the protected GEMM, weights encoded afresh each step
// as they change), priced as the protected GEMMs' time beyond the plain
// GEMMs' in the same iteration: what it costs where the GEMM is ours. The production checks follow (Megatron-LM's result
// validation and replica hashes, OLMo-core's spike monitor, torchtitan's SDC
// replay and our peer variant), priced per checked step. One thread.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <functional>
#include <vector>

#include "bench/paired_timer.hpp"
#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/io/digest.hpp"
#include "harness/campaign/trial_driver.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "protocol/views/training_view.hpp"
#include "foundation/parallel/heap_policy.hpp"

namespace {

using namespace sdc::train;
constexpr int k_ranks = 4;

struct size_case {
  const char* name;
  int layers, width, heads, seq, micro_batch;
};
constexpr size_case k_sizes[] = {{"smoke (2 layers, width 64, seq 128, micro-batch 4)", 2, 64, 4, 128, 4},
                                 {"larger (4 layers, width 128, seq 256, micro-batch 8)", 4, 128, 4, 256, 8}};

// Each rank's loss, gradients and linear GEMMs of the last step, as detectors see them.
struct capture final : step_observer, gemm_hook {
  std::vector<sdc::training_step> views = std::vector<sdc::training_step>(k_ranks);
  sdc::training_layout layout;
  int rank = 0;
  gemm_hook* gemm_hook_for(int64_t, int r) override {
    rank = r;
    views[size_t(r)].gemms.clear(), views[size_t(r)].attention.clear();
    return this;
  }
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    views[size_t(rank)].gemms.push_back(gemm_record_of(linear, pass, a, b, out));
  }
  void after_attention(int layer, int pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out) override {
    views[size_t(rank)].attention.push_back(batched_record_of(layer, pass, a, b, out));
  }
  void grads_ready(int64_t step, int r, replica& rep) override {
    auto& v = views[size_t(r)];
    v.rank = r, v.step = step, v.layout = &layout, v.grads.clear();
    if (layout.names.empty())
      for (size_t i = 0; i < rep.params.tensors.size(); ++i) {
        layout.names.push_back(rep.params.names[i]);
        layout.offsets.push_back(layout.numel);
        layout.shapes.push_back(rep.params.tensors[i].sizes().vec());
        layout.numel += rep.params.tensors[i].numel();
      }
    for (const auto& t : rep.params.tensors) v.grads.insert(v.grads.end(), t.grad().data_ptr<float>(), t.grad().data_ptr<float>() + t.numel());
  }
  void reduced(int64_t, int r, torch::Tensor& bucket) override {
    const torch::Tensor c = bucket.contiguous();
    views[size_t(r)].reduced_grads.assign(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
};

struct detector_case {
  std::string label, name;
  nlohmann::json params;
};
const std::vector<detector_case> k_detectors = {
    {"nonfinite_grad (baseline)", "nonfinite_grad", {}},
    {"folding_w1 per_row (000)", "folding_w1", {}},
    {"folding_w1 per_tensor (000)", "folding_w1", {{"split", "per_tensor"}}},
    {"feature_value defaults (003)", "feature_value", {}},
    {"feature_value every step, all tensors (003)", "feature_value", {{"grad_sample_interval", 1}, {"tensor", "all"}}},
    {"npu_asd (003, older)", "npu_asd", {}},
    {"grad_norm_outlier (002)", "grad_norm_outlier", {}},
    {"cosine_outlier (002)", "cosine_outlier", {}},
    {"consistency_curve: all 002 metrics", "consistency_curve", {}},
    // GEMM checks on every linear GEMM's record, after the step (the campaign's way).
    {"gemm_vabft, every GEMM, separate (001)", "gemm_vabft", {{"in_step", false}}},
    {"matmul_checksum, every GEMM (003)", "matmul_checksum", {{"bf16_only", false}}},
    // torch_npu's rule per scope: its own (the forward attention products,
    // fp32 here: bf16_only off to price them) and every linear GEMM.
    {"matmul_checksum torch_npu, original scope", "matmul_checksum", {{"variant", "torch_npu"}, {"bf16_only", false}}},
    {"matmul_checksum torch_npu, scope linear", "matmul_checksum",
     {{"variant", "torch_npu"}, {"scope", "linear"}, {"bf16_only", false}}},
    // Production checks. Megatron's validation is timed on a step it accepts
    // (a rejection's rerun costs one or two forward/backwards of a rank: the
    // replay rows below price one); param_hash includes hashing every
    // replica's parameters (the workload hashes them in a campaign); a
    // replay's cost falls on its checked steps, so every K steps it is 1/K of these.
    {"megatron_validation defaults (Megatron)", "megatron_validation", {}},
    {"megatron spiky+large grads (Megatron)", "megatron_validation", {{"check_spiky_loss", true}, {"check_large_grads", true}}},
    {"param_hash, SHA-1 of 4 replicas (Megatron)", "param_hash", {}},
    {"stability_monitor (OLMo-core rule, alarm ours)", "stability_monitor", {}},
    {"sdc_replay in place, checked step (torchtitan)", "sdc_replay", {{"num_steps", -1}}},
    {"sdc_replay in place, local signature, checked step", "sdc_replay", {{"num_steps", -1}, {"signature", "local"}}},
    {"sdc_replay peer, 2 copies, checked step", "sdc_replay", {{"num_steps", -1}, {"peer", true}, {"signature", "local"}}},
    {"sdc_replay peer, 3 copies, checked step", "sdc_replay",
     {{"num_steps", -1}, {"peer", true}, {"num_replays", 2}, {"signature", "local"}}},
};

// The replicas before the step, recomputed on request (what the training
// workload's recompute_service does in a campaign, without fault sites).
struct bench_recomputer final : sdc::step_recomputer {
  dp_trainer* dp = nullptr;
  std::vector<param_set> before;
  int64_t step = 0;
  sdc::recomputed_step recompute(int data_rank, int state_of, int device) override {
    const recomputation r = dp->recompute(data_rank, device, before[size_t(state_of)], step, nullptr);
    sdc::recomputed_step out;
    out.loss = r.loss;
    out.grads.assign(r.grads.data_ptr<float>(), r.grads.data_ptr<float>() + r.grads.numel());
    return out;
  }
  std::vector<float> all_reduce(const std::vector<std::vector<float>>& local, int) override {
    std::vector<torch::Tensor> flat;
    for (const auto& g : local) flat.push_back(torch::tensor(g, torch::kFloat));
    const torch::Tensor c = dp->all_reduce(std::move(flat)).to(torch::kFloat).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
  }
};

// One model size: its trainer, the captured views, the detectors and their timings.
struct size_run {
  size_case sz;
  train_config c;
  train_data d;
  std::unique_ptr<dp_trainer> dp;
  capture cap;
  bench_recomputer rec;
  std::vector<const sdc::step_view*> views;
  std::vector<std::unique_ptr<sdc::episode_detector>> dets;
  std::vector<std::function<void()>> variants;
  sdc::bench::paired_timer timer;

  explicit size_run(const size_case& s) : sz(s) {
    c.model.layers = sz.layers, c.model.width = sz.width, c.model.heads = sz.heads, c.model.seq = sz.seq;
    c.dp.ranks = k_ranks, c.dp.micro_batch = sz.micro_batch;
    c.examples = 2000, c.eval_examples = 8, c.steps = 1000, c.optim.total = 1000;
    d = load_train_data(c);
    dp = std::make_unique<dp_trainer>(c.model, c.optim, c.dp, &d.train);
    dp->start_from(fresh_replica(c.model, 1));
    rec.dp = dp.get(), rec.step = dp->global_step();
    for (const auto& r : dp->replicas()) rec.before.push_back(r.params.clone());
    const step_record first = dp->step(&cap);
    for (auto& v : cap.views) v.loss = first.loss[size_t(v.rank)], v.recomputer = &rec, views.push_back(&v);
    for (const auto& dc : k_detectors) {
      sdc::detector_choice ch;
      ch.info = sdc::find_detector(sdc::view_kind::training, dc.name);
      ch.label = dc.label;
      ch.params = sdc::validate_params(*ch.info, dc.params.is_null() ? nlohmann::json::object() : dc.params);
      dets.push_back(sdc::build_episode_detector(ch, {&sdc::fp32(), &sdc::fp32(), nlohmann::json::object()}));
      dets.back()->reset({sdc::trial_kind::clean, 0, k_ranks, 1000000, 0, 0});
    }
    // A replay that mismatches on this clean step would time an early exit (it stops at its first mismatch).
    for (size_t k = 0; k < dets.size(); ++k)
      if (k_detectors[k].name == "sdc_replay" && dets[k]->observe(views).flagged)
        throw std::runtime_error(k_detectors[k].label + " flags a clean step: its timing would cover an early exit");
    variants.push_back([this] { dp->step(); });
    for (size_t k = 0; k < dets.size(); ++k) {
      auto& det = dets[k];
      if (k_detectors[k].name != "param_hash") {
        variants.push_back([&det, this] { benchmark::DoNotOptimize(det->observe(views)); });
        continue;
      }
      variants.push_back([&det, this] {  // hash every replica, then compare
        const auto& reps = dp->replicas();
        for (size_t r = 0; r < reps.size(); ++r) {
          auto& h = cap.views[r].param_sha1;
          h.clear();
          for (const auto& t : reps[r].params.tensors) h.push_back(sdc::sha1_hex(t.data_ptr<float>(), size_t(t.numel()) * sizeof(float)));
        }
        benchmark::DoNotOptimize(det->observe(views));
      });
    }
    add_fused_variants();
  }
  // V-ABFT fused into our GEMM on every recorded linear GEMM, and the same
  // GEMMs plain: the last two variants.
  std::unique_ptr<sdc::gemm_detector> vabft;
  std::vector<float> out;
  void add_fused_variants() {
    const auto* info = sdc::find_detector(sdc::view_kind::gemm, "vabft");
    vabft = sdc::detector_cast<sdc::gemm_detector>(
        info->make(sdc::detector_params(sdc::validate_params(*info, nlohmann::json::object()), &sdc::fp32()),
                   {&sdc::fp32(), &sdc::fp32(), nlohmann::json::object()}),
        "vabft", "gemm");
    size_t most = 0;
    for (const auto& v : cap.views)
      for (const auto& g : v.gemms) most = std::max(most, g.c.size());
    out.resize(most);
    variants.push_back([this] {
      for (const auto& v : cap.views)
        for (const auto& g : v.gemms) {
          sdc::gemm_data<float> d;
          d.dtype = d.out_fmt = &sdc::fp32(), d.shape = {g.m, g.n, g.k};
          d.A = g.a.data(), d.B = g.b.data(), d.C = d.acc = g.c.data();
          vabft->encode(d);
          sdc::verdict vd;
          if (!vabft->protected_gemm(d, out.data(), &vd)) throw std::logic_error("vabft has no protected GEMM here");
          benchmark::DoNotOptimize(vd);
        }
    });
    variants.push_back([this] {
      for (const auto& v : cap.views)
        for (const auto& g : v.gemms) sdc::gemm_fixed_order(g.a.data(), g.b.data(), out.data(), {g.m, g.n, g.k}, {});
      benchmark::ClobberMemory();
    });
  }
  void report() const {
    if (timer.iterations() == 0) return;  // filtered out (--benchmark_filter)
    fmt::print("\n{}: {} parameters, {} ranks in one process, fp32, one thread; medians of {} paired iterations\n", sz.name,
               cap.layout.numel, k_ranks, timer.iterations());
    fmt::print("  one DP step of {} ranks                      {:9.3f} ms\n", k_ranks, timer.median(0) * 1e3);
    for (size_t k = 0; k < k_detectors.size(); ++k) {
      const double share = 100 * timer.median_ratio(k + 1, 0);
      fmt::print("  {:<44} {:9.3f} ms = {:6.3f} % of the step", k_detectors[k].label, timer.median(k + 1) * 1e3, share);
      // A check run every K steps (replays, hashes) costs nothing on the others: 1/K of this per step.
      if (k_detectors[k].name == "sdc_replay" || k_detectors[k].name == "param_hash")
        fmt::print("; every K steps: K=2 {:.2f} %, K=4 {:.2f} %, K=8 {:.2f} %, K=16 {:.2f} %", share / 2, share / 4, share / 8, share / 16);
      fmt::print("\n");
    }
    const size_t fused = k_detectors.size() + 1, plain = fused + 1;
    size_t gemms = 0;
    for (const auto& v : cap.views) gemms += v.gemms.size();
    fmt::print("  {:<44} {:9.3f} ms = {:6.3f} % of the step (protected GEMMs {:.3f} ms beyond the plain ones;\n"
               "  {:<44} the step's {} linear GEMMs on our kernel: {:.3f} ms = {:.1f} % of the step)\n",
               "gemm_vabft fused into our GEMM (001)", (timer.median(fused) - timer.median(plain)) * 1e3,
               100 * timer.median_excess_ratio(fused, plain, 0), (timer.median(fused) - timer.median(plain)) * 1e3, "", gemms,
               timer.median(plain) * 1e3, 100 * timer.median_ratio(plain, 0));
  }
};

}  // namespace

int main(int argc, char** argv) {
  sdc::keep_freed_memory();  // as sdcbench does (foundation/parallel/heap_policy.hpp)
  torch::set_num_threads(1);
  // --iterations=N (default 40): paired iterations per size. CI's run of this
  // program (ctest bench_main_job_training) checks that it runs, with 4.
  int iterations = 40;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--iterations=", 0) != 0) continue;
    try {
      size_t used = 0;
      iterations = std::stoi(a.substr(13), &used);
      if (used != a.size() - 13 || iterations < 1) throw std::invalid_argument(a);
    } catch (const std::exception&) {
      fmt::print(stderr, "training_detectors_bench: --iterations: expected a positive integer, got '{}'\n", a.substr(13));
      return 2;
    }
    for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
    --argc, --i;
  }
  benchmark::Initialize(&argc, argv);
  std::vector<std::unique_ptr<size_run>> runs;
  for (const auto& sz : k_sizes) {
    runs.push_back(std::make_unique<size_run>(sz));
    size_run* r = runs.back().get();
    benchmark::RegisterBenchmark((std::string("training_detectors/") + sz.name).c_str(), [r](benchmark::State& st) {
      size_t i = 0;
      for (auto _ : st) r->timer.measure(r->variants, i++);
    })->Unit(benchmark::kMillisecond)->Iterations(iterations);
  }
  benchmark::RunSpecifiedBenchmarks();
  for (const auto& r : runs) r->report();
}
