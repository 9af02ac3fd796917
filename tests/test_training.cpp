// The training workload's configuration, model and trainer
// (workloads/training/): a bad job configuration's named field, the model's
// hooked linear layer against torch's own, and the data-parallel
// trainer (bit-identical reruns, replicas kept equal by the all-reduce, the
// ordered bf16 reduction, seed policies, 002's recorded cosines), checkpoints
// and fine-tuning that learns. Its data: test_training_data.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include <ATen/CPUGeneratorImpl.h>

#include <filesystem>

#include "detectors/consistency/consistency.hpp"
#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "workloads/training/training_fork.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "scratch.hpp"

namespace {

using namespace sdc::train;
namespace fs = std::filesystem;

bool bit_equal(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && torch::equal(a, b);
}

TEST(TrainingModel, HookedLinearEqualsTorchLinearForwardAndBackward) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(3);
  const auto x = torch::randn({13, 24}, gen).set_requires_grad(true);
  const auto w = torch::randn({7, 24}, gen).set_requires_grad(true);
  const auto b = torch::randn({7}, gen).set_requires_grad(true);
  const auto g = torch::randn({13, 7}, gen);
  const auto y = hooked_linear(x, w, b, 0, nullptr);
  y.backward(g);
  const auto x2 = x.detach().clone().set_requires_grad(true), w2 = w.detach().clone().set_requires_grad(true),
             b2 = b.detach().clone().set_requires_grad(true);
  const auto y2 = torch::nn::functional::linear(x2, w2, b2);
  y2.backward(g);
  EXPECT_TRUE(torch::allclose(y, y2, 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(x.grad(), x2.grad(), 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(w.grad(), w2.grad(), 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(b.grad(), b2.grad(), 1e-6, 1e-6));
}

// C = A B by the triple-loop twin of the model's GEMM kernel (sequential
// order, fp32 accumulation; a bf16 product rounded once to bf16).
torch::Tensor reference_mm(const torch::Tensor& a, const torch::Tensor& b) {
  const auto af = a.to(torch::kFloat).contiguous(), bf = b.to(torch::kFloat).contiguous();
  auto c = torch::empty({a.size(0), b.size(1)});
  sdc::gemm_reference(af.data_ptr<float>(), bf.data_ptr<float>(), c.data_ptr<float>(), {a.size(0), b.size(1), a.size(1)}, {});
  return c.to(a.scalar_type());
}

struct counting_hook : gemm_hook {
  std::map<std::pair<int, gemm_pass>, int> calls;
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    ++calls[{linear, pass}];
    products_match &= torch::equal(out, reference_mm(a, b));  // the hook is shown out = a b, the twin's bits
  }
  bool products_match = true;
};

TEST(TrainingModel, HookSeesEveryGemmOfEveryLinearLayerOnce) {
  for (const bool bf16 : {false, true}) {
    model_config m;
    m.layers = 2, m.width = 16, m.heads = 2, m.seq = 8, m.bf16 = bf16;
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
    const param_set p = init_params(m, gen);
    counting_hook h;
    forward_options o;
    o.hook = &h;
    const auto tokens = torch::randint(0, 256, {2, 8}, torch::kLong);
    forward(m, p, tokens, o).sum().backward();
    const auto names = linear_names(m);
    ASSERT_EQ(names.size(), 9u);
    for (int l = 0; l < int(names.size()); ++l)
      for (auto pass : {gemm_pass::forward, gemm_pass::grad_input, gemm_pass::grad_weight})
        EXPECT_EQ((h.calls[{l, pass}]), 1) << names[size_t(l)] << " " << gemm_pass_name(pass) << " bf16 " << bf16;
    EXPECT_TRUE(h.products_match) << "bf16 " << bf16;
  }
}

train_config small_config() {
  train_config c;
  c.model.layers = 1, c.model.width = 32, c.model.heads = 2, c.model.seq = 96;
  c.dp.ranks = 3, c.dp.micro_batch = 2;
  c.examples = 200, c.eval_examples = 16;
  c.steps = 4, c.optim.total = 4, c.optim.warmup = 1;
  return c;
}

std::vector<step_record> run(const train_config& c, const train_data& d, std::vector<replica>* end = nullptr,
                             step_observer* obs = nullptr) {
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  t.start_from(fresh_replica(c.model, c.dp.seed));
  std::vector<step_record> r;
  for (int64_t s = 0; s < c.steps; ++s) r.push_back(t.step(obs, {.grad_norms = true}));
  if (end) *end = t.replicas();
  return r;
}

TEST(TrainingDp, SameConfigurationGivesABitIdenticalTrajectory) {
  torch::set_num_threads(1);
  train_config c = small_config();
  c.model.dropout = 0.1;
  const auto d = load_train_data(c);
  std::vector<replica> a, b;
  const auto ra = run(c, d, &a), rb = run(c, d, &b);
  for (size_t s = 0; s < ra.size(); ++s) {
    EXPECT_EQ(ra[s].loss, rb[s].loss);
    EXPECT_EQ(ra[s].grad_norm, rb[s].grad_norm);
  }
  for (size_t i = 0; i < a[0].params.tensors.size(); ++i) EXPECT_TRUE(bit_equal(a[1].params.tensors[i], b[1].params.tensors[i]));
}

TEST(TrainingDp, TheAllReduceKeepsReplicasIdenticalWhileRanksSeeDifferentData) {
  for (const char* policy : {"S1-1", "S1-3"}) {
    train_config c = small_config();
    c.dp.policy = parse_seed_policy(policy);
    const auto d = load_train_data(c);
    std::vector<replica> end;
    const auto rec = run(c, d, &end);
    EXPECT_NE(rec[0].loss[0], rec[0].loss[1]) << policy;  // different shards
    for (int r = 1; r < c.dp.ranks; ++r)
      for (size_t i = 0; i < end[0].params.tensors.size(); ++i)
        EXPECT_TRUE(bit_equal(end[0].params.tensors[i], end[size_t(r)].params.tensors[i])) << policy << " rank " << r;
    // Which is what lets an episode's truth evaluate one of them (same_bits):
    // the same validation loss, and a set with one zero's sign flipped is not the same bits.
    EXPECT_TRUE(same_bits(end[0].params, end[1].params)) << policy;
    EXPECT_EQ(eval_loss(c.model, end[0].params, d.eval), eval_loss(c.model, end[1].params, d.eval)) << policy;
    param_set flipped = end[1].params.clone();
    {
      torch::NoGradGuard ng;
      flipped.tensors[0].view(-1)[0] = 0.0f;
      end[1].params.tensors[0].view(-1)[0] = -0.0f;
    }
    EXPECT_FALSE(same_bits(flipped, end[1].params)) << policy;
    EXPECT_TRUE(torch::equal(flipped.tensors[0], end[1].params.tensors[0])) << "torch::equal takes -0 for +0";
  }
}

TEST(TrainingDp, SeedPoliciesChangeOnlyTheRanksTheyReseed) {
  train_config c = small_config();
  c.steps = 1;
  const auto d = load_train_data(c);
  c.dp.policy = seed_policy::s1_1;
  const auto s11 = run(c, d);
  c.dp.policy = seed_policy::s1_2;
  const auto s12 = run(c, d);
  c.dp.policy = seed_policy::s1_3;
  const auto s13 = run(c, d);
  EXPECT_NE(s12[0].loss[0], s11[0].loss[0]);  // S1-2: rank 0 reseeded
  EXPECT_EQ(s12[0].loss[1], s11[0].loss[1]);
  EXPECT_EQ(s13[0].loss[0], s11[0].loss[0]);  // S1-3: rank r gets seed + r
  EXPECT_NE(s13[0].loss[1], s11[0].loss[1]);
}

// Captures each rank's gradients before the all-reduce and its reduced bucket.
struct capture : step_observer {
  std::vector<torch::Tensor> flats, reduced_buckets;
  void grads_ready(int64_t, int, replica& r) override {
    std::vector<torch::Tensor> g;
    for (const auto& t : r.params.tensors) g.push_back(t.grad().reshape({-1}));
    flats.push_back(torch::cat(g).clone());
  }
  void reduced(int64_t, int, torch::Tensor& b) override { reduced_buckets.push_back(b.clone()); }
};

TEST(TrainingDp, Bf16BucketsAreSummedInRankOrderAsTheCompressionHookDoes) {
  train_config c = small_config();
  c.steps = 1;
  c.dp.bf16_buckets = true;
  const auto d = load_train_data(c);
  capture cap;
  run(c, d, nullptr, &cap);
  ASSERT_EQ(cap.flats.size(), 3u);
  torch::Tensor expect = cap.flats[0].to(torch::kBFloat16).div_(3);
  for (int r = 1; r < 3; ++r) expect = expect + cap.flats[size_t(r)].to(torch::kBFloat16).div_(3);
  for (const auto& b : cap.reduced_buckets) EXPECT_TRUE(bit_equal(b, expect.to(torch::kFloat)));
  const auto fp32_sum = (cap.flats[0] + cap.flats[1] + cap.flats[2]) / 3;
  EXPECT_FALSE(bit_equal(cap.reduced_buckets[0], fp32_sum));  // the compression is real
}

// 002 eqs. (4), (7), (8) as the trainer records them (`consistency`): each
// rank's norm before the all-reduce, the mean cosine over the unordered pairs
// and each rank's cosine to the rest from the all-reduce of unit vectors,
// against the pairwise definitions on the captured gradients.
TEST(TrainingDp, ConsistencyRecordsEq8sMeanOfThePairwiseCosines) {
  train_config c = small_config();
  const auto d = load_train_data(c);
  capture cap;
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  t.start_from(fresh_replica(c.model, c.dp.seed));
  const step_record rec = t.step(&cap, {.consistency = true});
  std::vector<std::span<const float>> g;
  for (const auto& f : cap.flats) g.emplace_back(f.data_ptr<float>(), size_t(f.numel()));
  const sdc::consistency ref = sdc::consistency_reference(rec.loss, g);
  EXPECT_NEAR(rec.cos_mean, ref.cos_mean, 1e-12);
  ASSERT_EQ(rec.cos_to_rest.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(rec.cos_to_rest[r], ref.cos_to_rest[r], 1e-12) << r;
    EXPECT_NEAR(rec.grad_norm[r], ref.norms[r], 1e-12 * ref.norms[r]) << r;
  }
}

// One rank has no pairs and no rest: 002's cosines are not defined, NaN
// (consistency.cpp's reference), not a number made up from rounding.
TEST(TrainingDp, OneRankHasNoCosines) {
  train_config c = small_config();
  c.dp.ranks = 1;
  const auto d = load_train_data(c);
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  t.start_from(fresh_replica(c.model, c.dp.seed));
  const step_record rec = t.step(nullptr, {.consistency = true});
  EXPECT_TRUE(std::isnan(rec.cos_mean));
  ASSERT_EQ(rec.cos_to_rest.size(), 1u);
  EXPECT_TRUE(std::isnan(rec.cos_to_rest[0])) << rec.cos_to_rest[0];
}

TEST(TrainingCheckpoint, RoundTripsAndRefusesAnotherConfigurationOrABrokenFile) {
  model_config m;
  m.layers = 1, m.width = 16, m.heads = 2, m.seq = 8;
  replica r = fresh_replica(m, 4);
  r.step = 17;
  const std::string path = (fs::path(sdc::testing::scratch_dir("ckpt")) / "ckpt.pt").string();
  save_checkpoint(r, path, "abc");
  const replica back = load_checkpoint(m, path, "abc");
  EXPECT_EQ(back.step, 17);
  for (size_t i = 0; i < r.params.tensors.size(); ++i) EXPECT_TRUE(bit_equal(back.params.tensors[i], r.params.tensors[i]));
  EXPECT_THROW(load_checkpoint(m, path, "other"), sdc::input_error);
  fs::resize_file(path, fs::file_size(path) / 2);
  EXPECT_THROW(load_checkpoint(m, path, "abc"), sdc::input_error);
}

TEST(TrainingFineTune, FromThePretrainedCheckpointTheResponseLossDrops) {
  torch::set_num_threads(1);
  const std::string corpus = "/usr/share/games/fortunes";
  ASSERT_TRUE(fs::exists(corpus)) << "Debian's fortunes package provides the pretraining corpus (scripts/setup.sh)";
  train_config c;
  c.model.layers = 1, c.model.width = 48, c.model.heads = 4, c.model.seq = 96;
  c.pretrain.corpus = corpus, c.pretrain.steps = 60, c.pretrain.batch = 8, c.pretrain.optim.total = 60;
  c.cache_dir = (fs::path(sdc::testing::scratch_dir("cache")) / "cache").string();
  c.dp.ranks = 2, c.dp.micro_batch = 8;
  c.steps = 60, c.optim.total = 60;
  c.examples = 1000, c.eval_examples = 32;
  const auto d = load_train_data(c);
  std::string cached;
  const replica start = pretrained_start(c, &cached);
  EXPECT_TRUE(fs::exists(cached));
  const replica again = pretrained_start(c);  // from the cache: the same weights
  for (size_t i = 0; i < start.params.tensors.size(); ++i) EXPECT_TRUE(bit_equal(start.params.tensors[i], again.params.tensors[i]));
  const double before = eval_loss(c.model, start.params, d.eval);
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  t.start_from(start);
  for (int64_t s = 0; s < c.steps; ++s) t.step();
  const double after = eval_loss(c.model, t.replicas()[0].params, d.eval);
  EXPECT_LT(after, 0.7 * before) << "held-out response loss " << before << " -> " << after;
}

}  // namespace

TEST(TrainingConfig, BadConfigurationsNameTheField) {
  auto field_of = [](const char* text) -> std::string {
    try {
      parse_train_config(nlohmann::json::parse(text), "cfg.json", ".");
    } catch (const sdc::input_error& e) {
      EXPECT_EQ(e.file(), "cfg.json");
      return e.field();
    }
    return "(accepted)";
  };
  EXPECT_EQ(field_of(R"({"model": {"width": 30, "heads": 4}})"), "/model/heads");
  EXPECT_EQ(field_of(R"({"optim": {"lr": -1}})"), "/optim/lr");
  EXPECT_EQ(field_of(R"({"ranks": 0})"), "/ranks");
  EXPECT_EQ(field_of(R"({"seed_policy": "S2"})"), "/seed_policy");
  EXPECT_EQ(field_of(R"({"buckets": "fp16"})"), "/buckets");
  EXPECT_EQ(field_of(R"({"model": {"layerz": 2}})"), "/model/layerz");
  EXPECT_EQ(field_of(R"({"pretrain": {"steps": 1.5}})"), "/pretrain/steps");
  EXPECT_EQ(field_of(R"({"steps": 3})"), "(accepted)");
  EXPECT_EQ(field_of(R"({"model": {"precision": "fp8"}})"), "/model/precision");
  EXPECT_EQ(field_of(R"({"model": {"precision": "bf16", "mxfp8_recipe": "microxcaling"}})"), "/model/mxfp8_recipe");
  EXPECT_EQ(field_of(R"({"model": {"precision": "mxfp8", "mxfp8_recipe": "te"}})"), "/model/mxfp8_recipe");
  {  // mxfp8: bf16 around the MXFP8 linear GEMMs, TE's recipe unless named; described only where it differs
    const auto m = parse_train_config(nlohmann::json::parse(R"({"model": {"precision": "mxfp8"}})"), "cfg.json", ".");
    EXPECT_TRUE(m.model.bf16 && m.model.mxfp8 && !m.model.mx_microxcaling);
    EXPECT_EQ(describe(m)["model"]["precision"], "mxfp8");
    EXPECT_FALSE(describe(m)["model"].contains("mxfp8_recipe"));
    const auto x = parse_train_config(nlohmann::json::parse(R"({"model": {"precision": "mxfp8", "mxfp8_recipe": "microxcaling"}})"),
                                      "cfg.json", ".");
    EXPECT_TRUE(x.model.mx_microxcaling);
    EXPECT_EQ(describe(x)["model"]["mxfp8_recipe"], "microxcaling");
    EXPECT_EQ(describe(parse_train_config(nlohmann::json::parse(R"({"model": {"precision": "bf16"}})"), "cfg.json", "."))["model"]["precision"], "bf16");
  }
  train_config c = small_config();
  c.dp.ranks = 500;
  EXPECT_THROW(load_train_data(c), sdc::input_error);  // more ranks than samples
}
