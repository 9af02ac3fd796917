// What the data-parallel harness costs (issues 11 and 32; ratios in one run,
// paired iterations: bench/paired_timer.hpp), per model preset:
//   - one in-process step of R ranks (dp_trainer: per-rank forward and
//     backward, gradients flattened into a bucket, the ordered reduction, a
//     copy per rank, clipping, AdamW) against R plain libtorch steps of the
//     same model on one replica (forward, backward, clip_grad_norm_,
//     torch::optim::AdamW): goal <= 1.1 x;
//   - the same step with the training workload's observer (each rank's
//     gradients copied out for the detectors);
//   - forking an episode from a checkpoint (every rank's replica and AdamW
//     state copied) against one step: goal <= 1;
//   - tokens/s and GEMM GFLOP/s of the DP step, and the process's peak
//     resident memory;
//   - what the fixed-order GEMM (same bits on every CPU) costs against
//     libtorch's own torch::mm (OpenBLAS) at the preset's largest GEMM.
// Presets: `smoke` (2 layers, width 64, seq 128, micro-batch 4, fp32: the
// size of the smoke configurations) and `medium` (suites/training/
// llama_medium.json: the LLaMA-style decoder, 10.8 M parameters, bf16 mixed
// precision). One thread. Run one preset per process (--benchmark_filter=medium)
// for its own peak memory.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <sys/resource.h>

#include <functional>
#include <map>
#include <vector>

#include "bench/paired_timer.hpp"
#include "foundation/io/json_file.hpp"
#include "workloads/training/trainer/fixed_gemm.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "foundation/parallel/heap_policy.hpp"

namespace {

using namespace sdc::train;
constexpr int k_ranks = 4;

struct setup {
  std::string name;
  train_config c;
  train_data d;
  replica start;
};

setup make_setup(const std::string& name) {
  torch::set_num_threads(1);
  setup s;
  s.name = name;
  if (name == "smoke") {
    s.c.model.layers = 2, s.c.model.width = 64, s.c.model.heads = 4, s.c.model.seq = 128;
    s.c.dp.ranks = k_ranks, s.c.dp.micro_batch = 4;
    s.c.examples = 2000, s.c.eval_examples = 8;
  } else {
    const std::string path = std::string(SDCBENCH_SOURCE_DIR) + "/suites/training/llama_medium.json";
    s.c = parse_train_config(sdc::read_json_file(path), path, std::string(SDCBENCH_SOURCE_DIR) + "/suites/training");
    s.c.examples = 2000;  // windows enough for the iterations
  }
  s.c.steps = 1000, s.c.optim.total = 1000;
  s.d = load_train_data(s.c);
  s.start = fresh_replica(s.c.model, 1);  // the step's cost does not depend on pretraining
  return s;
}

// One plain libtorch step of one replica on its own batch.
struct plain_rank {
  param_set p;
  std::unique_ptr<torch::optim::AdamW> opt;
  torch::Tensor in, tg, mk;
  plain_rank(const setup& s, int rank) : p(s.start.params.clone()) {
    opt = std::make_unique<torch::optim::AdamW>(p.tensors, torch::optim::AdamWOptions(s.c.optim.lr).weight_decay(s.c.optim.weight_decay));
    const int64_t B = s.c.dp.micro_batch, T = s.c.model.seq;
    in = torch::empty({B, T}, torch::kLong), tg = torch::empty({B, T}, torch::kLong), mk = torch::empty({B, T});
    for (int64_t i = 0; i < B; ++i)
      for (int64_t t = 0; t < T; ++t) {
        const auto& x = s.d.train.samples[size_t(rank * B + i)];
        in[i][t] = x.tokens[size_t(t)], tg[i][t] = x.tokens[size_t(t) + 1], mk[i][t] = float(x.loss_mask[size_t(t)]);
      }
  }
  void step(const setup& s) {
    opt->zero_grad();
    forward_options o;
    masked_loss(forward(s.c.model, p, in, o), tg, mk).backward();
    torch::nn::utils::clip_grad_norm_(p.tensors, s.c.optim.clip);
    opt->step();
  }
};

struct copy_grads final : step_observer {
  std::vector<std::vector<float>> g = std::vector<std::vector<float>>(k_ranks);
  void grads_ready(int64_t, int r, replica& rep) override {
    auto& v = g[size_t(r)];
    v.clear();
    for (const auto& t : rep.params.tensors) v.insert(v.end(), t.grad().data_ptr<float>(), t.grad().data_ptr<float>() + t.numel());
  }
};

// GEMM floating-point operations of one DP step: forward 2 x (linear weights
// + the head) per token plus the attention products (QK^T and AV over the
// full T x T, 4 T D per layer and token); backward twice the forward.
double step_flops(const setup& s) {
  const auto& m = s.c.model;
  const double w = m.width, f = m.ffn_width(), L = m.layers, T = m.seq;
  const double mlp = m.swiglu ? 3 * w * f : 2 * w * f;
  const double linear = L * (4 * w * w + mlp) + double(m.vocab) * w;
  const double tokens = double(s.c.dp.ranks * s.c.dp.micro_batch) * T;
  return 3 * tokens * (2 * linear + 4 * L * T * w);
}

struct result {
  sdc::bench::paired_timer step, gemm;
  double flops = 0, tokens = 0, gemm_flops = 0;
  std::string gemm_shape;
};
std::map<std::string, result>& results() {
  static std::map<std::string, result> r;
  return r;
}

void run_preset(benchmark::State& st, const std::string& name) {
  static std::map<std::string, setup> setups;
  if (!setups.count(name)) setups.emplace(name, make_setup(name));
  setup& s = setups.at(name);
  result& res = results()[name];
  res.flops = step_flops(s), res.tokens = double(s.c.dp.ranks * s.c.dp.micro_batch * s.c.model.seq);
  std::vector<plain_rank> plain;
  for (int r = 0; r < k_ranks; ++r) plain.emplace_back(s, r);
  dp_trainer dp(s.c.model, s.c.optim, s.c.dp, &s.d.train), dp2(s.c.model, s.c.optim, s.c.dp, &s.d.train);
  dp.start_from(s.start), dp2.start_from(s.start);
  copy_grads obs;
  const std::vector<std::function<void()>> variants = {
      [&] { for (auto& p : plain) p.step(s); },
      [&] { dp.step(); },
      [&] { dp2.step(&obs); },
      [&] { dp_trainer f(s.c.model, s.c.optim, s.c.dp, &s.d.train); f.start_from(s.start); benchmark::DoNotOptimize(f.global_step()); }};
  // The largest GEMM of a rank's step: its tokens x width times width x ffn (the MLP's up projection).
  const int64_t M = s.c.dp.micro_batch * s.c.model.seq, K = s.c.model.width, N = s.c.model.ffn_width();
  const torch::Tensor a = torch::randn({M, K}), b = torch::randn({K, N});
  res.gemm_flops = 2.0 * double(M) * double(K) * double(N);
  res.gemm_shape = fmt::format("{}x{}x{}", M, N, K);
  const std::vector<std::function<void()>> gemms = {[&] { benchmark::DoNotOptimize(torch::mm(a, b).data_ptr<float>()); },
                                                    [&] { benchmark::DoNotOptimize(fixed_mm(a, b).data_ptr<float>()); }};
  size_t i = 0;
  for (auto _ : st) {
    res.step.measure(variants, i);
    for (int rep = 0; rep < 5; ++rep) res.gemm.measure(gemms, i * 5 + size_t(rep));
    ++i;
  }
}

void report(const std::string& name, const result& t) {
  fmt::print("\n{} preset, {} ranks in one process, one thread; medians of {} paired iterations:\n", name, k_ranks, t.step.iterations());
  fmt::print("  {} plain libtorch steps          {:9.2f} ms\n", k_ranks, t.step.median(0) * 1e3);
  fmt::print("  one DP step of {} ranks           {:9.2f} ms  = {:.3f} x the plain steps (goal <= 1.1)\n", k_ranks,
             t.step.median(1) * 1e3, t.step.median_ratio(1, 0));
  fmt::print("  ... with the workload's copy      {:9.2f} ms  = {:.3f} x\n", t.step.median(2) * 1e3, t.step.median_ratio(2, 0));
  fmt::print("  fork an episode (all ranks)       {:9.2f} ms  = {:.3f} of one DP step (goal <= 1)\n", t.step.median(3) * 1e3,
             t.step.median_ratio(3, 1));
  fmt::print("  DP step: {:.0f} tokens/s, {:.1f} GFLOP/s in its GEMMs ({:.3g} GFLOP per step)\n", t.tokens / t.step.median(1),
             t.flops / t.step.median(1) * 1e-9, t.flops * 1e-9);
  fmt::print("  largest GEMM {} (MxNxK, fp32): torch::mm {:.1f} GFLOP/s, fixed-order kernel {:.1f} GFLOP/s = {:.2f} x torch::mm's time\n",
             t.gemm_shape, t.gemm_flops / t.gemm.median(0) * 1e-9, t.gemm_flops / t.gemm.median(1) * 1e-9, t.gemm.median_ratio(1, 0));
}

}  // namespace

int main(int argc, char** argv) {
  sdc::keep_freed_memory();  // as sdcbench does (foundation/parallel/heap_policy.hpp)
  benchmark::RegisterBenchmark("training_step/smoke", [](benchmark::State& st) { run_preset(st, "smoke"); })
      ->Unit(benchmark::kMillisecond)->Iterations(30);
  benchmark::RegisterBenchmark("training_step/medium", [](benchmark::State& st) { run_preset(st, "medium"); })
      ->Unit(benchmark::kMillisecond)->Iterations(8);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  for (const auto& [name, t] : results()) report(name, t);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  fmt::print("\npeak resident memory of this process: {:.0f} MiB\n", double(u.ru_maxrss) / 1024.0);
}
