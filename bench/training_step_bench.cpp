// What the data-parallel harness costs (issue 11's goals, ratios in one run,
// paired iterations: bench/paired_timer.hpp):
//   - one in-process step of R ranks (dp_trainer: per-rank forward and
//     backward, gradients flattened into a bucket, the ordered reduction, a
//     copy per rank, clipping, AdamW) against R plain libtorch steps of the
//     same model on one replica (forward, backward, clip_grad_norm_,
//     torch::optim::AdamW): goal <= 1.1 x;
//   - the same step with the training workload's observer (each rank's
//     gradients copied out for the detectors);
//   - forking an episode from a checkpoint (every rank's replica and AdamW
//     state copied) against one step: goal <= 1.
// Smoke-size model (2 layers, width 64, 4 heads, seq 128, micro-batch 4), fp32, one thread.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <functional>
#include <vector>

#include "bench/paired_timer.hpp"
#include "workloads/training/training_run.hpp"

namespace {

using namespace sdc::train;
constexpr int k_ranks = 4;

struct setup {
  train_config c;
  train_data d;
  replica start;
  setup() {
    torch::set_num_threads(1);
    c.model.layers = 2, c.model.width = 64, c.model.heads = 4, c.model.seq = 128;
    c.dp.ranks = k_ranks, c.dp.micro_batch = 4;
    c.examples = 2000, c.eval_examples = 8, c.steps = 1000, c.optim.total = 1000;
    d = load_train_data(c);
    start = fresh_replica(c.model, 1);
  }
};

setup& world() {
  static setup s;
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

sdc::bench::paired_timer& timer() {
  static sdc::bench::paired_timer t;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("training_step", [](benchmark::State& st) {
    setup& s = world();
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
    size_t i = 0;
    for (auto _ : st) timer().measure(variants, i++);
  })->Unit(benchmark::kMillisecond)->Iterations(30);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  const auto& t = timer();
  fmt::print("\nsmoke-size model (2 layers, width 64, seq 128, micro-batch 4), {} ranks in one process, fp32, one thread; "
             "medians of {} paired iterations:\n", k_ranks, t.iterations());
  fmt::print("  {} plain libtorch steps        {:8.2f} ms\n", k_ranks, t.median(0) * 1e3);
  fmt::print("  one DP step of {} ranks         {:8.2f} ms  = {:.3f} x the plain steps (goal <= 1.1)\n", k_ranks,
             t.median(1) * 1e3, t.median_ratio(1, 0));
  fmt::print("  ... with the workload's copy    {:8.2f} ms  = {:.3f} x\n", t.median(2) * 1e3, t.median_ratio(2, 0));
  fmt::print("  fork an episode (all ranks)     {:8.2f} ms  = {:.3f} of one DP step (goal <= 1)\n", t.median(3) * 1e3,
             t.median_ratio(3, 1));
}
