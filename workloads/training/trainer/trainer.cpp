#include "workloads/training/trainer/trainer.hpp"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc::train {
namespace {

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

torch::Tensor flat_grads(const param_set& p) {
  std::vector<torch::Tensor> g;
  for (const auto& t : p.tensors) g.push_back(t.grad().defined() ? t.grad().reshape({-1}) : torch::zeros({t.numel()}));
  return torch::cat(g);
}

// Each gradient becomes a view of the rank's own reduced copy `flat` (no
// second copy: clipping scales it in place, as it would the clones).
void unflatten_into_grads(param_set& p, const torch::Tensor& flat) {
  int64_t at = 0;
  for (auto& t : p.tensors) {
    t.mutable_grad() = flat.slice(0, at, at + t.numel()).view(t.sizes());
    at += t.numel();
  }
}

void adamw_step(replica& r, const optim_config& o, double lr) {
  torch::NoGradGuard ng;
  ++r.step;
  const double c1 = 1 - std::pow(o.beta1, double(r.step)), c2 = 1 - std::pow(o.beta2, double(r.step));
  for (size_t i = 0; i < r.params.tensors.size(); ++i) {
    auto& p = r.params.tensors[i];
    const auto& g = p.grad();
    p.mul_(1 - lr * o.weight_decay);
    r.exp_avg[i].mul_(o.beta1).add_(g, 1 - o.beta1);
    r.exp_avg_sq[i].mul_(o.beta2).addcmul_(g, g, 1 - o.beta2);
    const auto denom = (r.exp_avg_sq[i].sqrt() / std::sqrt(c2)).add_(o.eps);
    p.addcdiv_(r.exp_avg[i], denom, -lr / c1);
  }
}

void clip_grads(param_set& p, double max_norm) {
  torch::NoGradGuard ng;
  std::vector<torch::Tensor> norms;
  for (const auto& t : p.tensors) norms.push_back(t.grad().norm());
  const double total = torch::stack(norms).norm().item<double>();
  const double coef = max_norm / (total + 1e-6);
  if (coef < 1)
    for (auto& t : p.tensors) t.mutable_grad().mul_(coef);
}

}  // namespace

dataset instruction_dataset(const std::vector<instruction_example>& ex, int seq) {
  dataset d;
  for (const auto& e : ex) d.samples.push_back(tokenize_instruction(e, seq));
  return d;
}

dataset text_dataset(const std::string& text, int seq, int64_t max_windows) {
  dataset d;
  const int64_t fit = std::max<int64_t>(1, int64_t(text.size()) / (seq + 1));
  const int64_t n = std::min(fit, max_windows);
  const int64_t stride = std::max<int64_t>(1, (int64_t(text.size()) - seq - 1) / n);
  for (int64_t i = 0; i < n; ++i) d.samples.push_back(tokenize_text(text, size_t(i * stride), seq));
  return d;
}

replica replica::clone() const {
  replica r;
  r.params = params.clone();
  for (const auto& t : exp_avg) r.exp_avg.push_back(t.clone());
  for (const auto& t : exp_avg_sq) r.exp_avg_sq.push_back(t.clone());
  r.step = step;
  return r;
}

replica fresh_replica(const model_config& m, uint64_t seed) {
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
  replica r;
  r.params = init_params(m, gen);
  for (const auto& t : r.params.tensors) {
    r.exp_avg.push_back(torch::zeros_like(t).set_requires_grad(false));
    r.exp_avg_sq.push_back(torch::zeros_like(t).set_requires_grad(false));
  }
  return r;
}

std::vector<int> inprocess_collective::local_ranks() const {
  std::vector<int> r(static_cast<size_t>(ranks_));
  for (int i = 0; i < ranks_; ++i) r[size_t(i)] = i;
  return r;
}

torch::Tensor inprocess_collective::sum(std::vector<torch::Tensor>& local) {
  torch::Tensor s = local[0];  // the buckets are the collective's: summed into the first, in rank order
  for (size_t r = 1; r < local.size(); ++r) s.add_(local[r]);
  return s;
}

dp_trainer::dp_trainer(model_config m, optim_config o, dp_config d, const dataset* data, collective* coll)
    : m_(std::move(m)), o_(std::move(o)), d_(d), data_(data) {
  if (!coll) own_ = std::make_unique<inprocess_collective>(d_.ranks), coll = own_.get();
  coll_ = coll;
  if (coll_->world() != d_.ranks)
    throw value_error(fmt::format("ranks: the configuration has {} ranks and the collective {}", d_.ranks, coll_->world()));
  local_ = coll_->local_ranks();
}

void dp_trainer::start_from(const replica& r) {
  ranks_.clear();
  for (size_t i = 0; i < local_.size(); ++i) ranks_.push_back(r.clone());
  step_ = r.step;
}

dp_trainer::batch dp_trainer::batch_for(int rank, int64_t step) {
  const int64_t n = int64_t(data_->samples.size());
  const int64_t per_rank = (n + d_.ranks - 1) / d_.ranks;
  const int64_t first = step * d_.micro_batch;
  const uint64_t seed = rank_seed(d_.policy, d_.seed, rank);
  std::vector<int64_t> idx;
  int64_t epoch = -1;
  std::vector<int64_t> mine;
  for (int64_t k = first; k < first + d_.micro_batch; ++k) {
    const int64_t e = d_.epoch_offset + k / per_rank;
    if (e != epoch) mine = distributed_indices(n, d_.ranks, rank, seed, e), epoch = e;
    idx.push_back(mine[size_t(k % per_rank)]);
  }
  const int64_t T = m_.seq;
  batch b;
  b.inputs = torch::empty({d_.micro_batch, T}, torch::kLong);
  b.targets = torch::empty({d_.micro_batch, T}, torch::kLong);
  b.mask = torch::empty({d_.micro_batch, T}, torch::kFloat);
  auto in = b.inputs.accessor<int64_t, 2>();
  auto tg = b.targets.accessor<int64_t, 2>();
  auto mk = b.mask.accessor<float, 2>();
  for (int64_t i = 0; i < d_.micro_batch; ++i) {
    const auto& s = data_->samples[size_t(idx[size_t(i)])];
    for (int64_t t = 0; t < T; ++t) in[i][t] = s.tokens[size_t(t)], tg[i][t] = s.tokens[size_t(t) + 1], mk[i][t] = s.loss_mask[size_t(t)];
  }
  return b;
}

double dp_trainer::forward_backward(int data_rank, int device, replica& rep, int64_t step, step_observer* obs) {
  for (auto& t : rep.params.tensors) t.mutable_grad().reset();
  const batch b = batch_for(data_rank, step);
  auto gen = at::make_generator<at::CPUGeneratorImpl>(splitmix(rank_seed(d_.policy, d_.seed, data_rank) ^ splitmix(uint64_t(step))));
  forward_options fo;
  fo.hook = obs ? obs->gemm_hook_for(step, device) : nullptr;
  fo.dropout_gen = &gen;
  const torch::Tensor l = masked_loss(forward(m_, rep.params, b.inputs, fo), b.targets, b.mask);
  l.backward();
  if (obs) obs->grads_ready(step, device, rep);
  return l.item<double>();
}

recomputation dp_trainer::recompute(int data_rank, int device, const param_set& params, int64_t step, step_observer* obs) {
  replica rep;
  rep.params = params.clone();
  recomputation out;
  out.loss = forward_backward(data_rank, device, rep, step, obs);
  out.grads = flat_grads(rep.params);
  return out;
}

// DDP's hooks: allreduce_hook divides by the world size, then sums;
// bf16_compress_hook casts to bf16, divides in bf16, sums in bf16.
torch::Tensor dp_trainer::bucket_of(torch::Tensor& flat) const {
  return d_.bf16_buckets ? flat.to(torch::kBFloat16).div_(d_.ranks) : flat.div_(d_.ranks);
}

torch::Tensor dp_trainer::all_reduce(std::vector<torch::Tensor> local) {
  std::vector<torch::Tensor> buckets;
  for (auto& flat : local) buckets.push_back(bucket_of(flat));
  return coll_->sum(buckets);
}

step_record dp_trainer::step(step_observer* obs, record_options what) {
  const bool consistency = what.consistency, tensor_norms = what.tensor_norms;
  step_record rec;
  rec.step = step_;
  rec.lr = o_.lr_at(step_);
  const int R = d_.ranks;
  std::vector<torch::Tensor> buckets, units;
  std::vector<double> loss, norm, tnorms;
  for (size_t i = 0; i < local_.size(); ++i) {
    const int r = local_[i];
    replica& rep = ranks_[i];
    if (obs) obs->step_begins(step_, r, rep);
    loss.push_back(forward_backward(r, r, rep, step_, obs));
    torch::Tensor flat = flat_grads(rep.params);
    if (what.grad_norms || consistency) norm.push_back(flat.to(torch::kDouble).norm().item<double>());
    if (consistency) units.push_back(flat.to(torch::kDouble) / norm.back());
    if (tensor_norms)
      for (const auto& t : rep.params.tensors) tnorms.push_back(t.grad().to(torch::kDouble).norm().item<double>());
    buckets.push_back(bucket_of(flat));
  }
  const torch::Tensor sum = coll_->sum(buckets);
  std::vector<torch::Tensor> grads;  // what each local rank's optimizer steps with
  for (size_t i = 0; i < local_.size(); ++i) {
    grads.push_back(sum.to(torch::kFloat, /*non_blocking=*/false, /*copy=*/true));  // each rank's own copy
    if (obs) obs->reduced(step_, local_[i], grads.back());
  }
  if (d_.distributed_optimizer) {  // the reduce-scatter: each shard its owner's copy
    const torch::Tensor owned = gather_shards(grads);
    for (auto& g : grads) g = owned.clone();
  }
  for (size_t i = 0; i < local_.size(); ++i) {
    replica& rep = ranks_[i];
    if (obs) obs->optimizer_grads(step_, local_[i], grads[i]);
    unflatten_into_grads(rep.params, grads[i]);
    if (o_.clip > 0) clip_grads(rep.params, o_.clip);
    adamw_step(rep, o_, rec.lr);
  }
  if (d_.distributed_optimizer) gather_state();  // the all-gather of the owners' shards
  if (consistency) {  // 002: one extra all-reduce, of unit vectors, instead of gathering gradients
    std::vector<torch::Tensor> scratch;  // the collective may sum into its inputs; the units are needed below
    for (const auto& u : units) scratch.push_back(u.clone());
    const torch::Tensor S = coll_->sum(scratch);
    const double s2 = S.dot(S).item<double>();
    std::vector<double> cos;
    for (const auto& u : units) {
      const double us = u.dot(S).item<double>();
      // One rank has no rest: NaN, as consistency.cpp's reference gives.
      cos.push_back(R > 1 ? (us - 1) / std::sqrt(std::fmax(s2 - 2 * us + 1, 0.0)) : std::nan(""));
    }
    rec.cos_mean = R > 1 ? (s2 - double(R)) / (double(R) * double(R - 1)) : std::nan("");
    rec.cos_to_rest = coll_->gather(cos, 1);
  }
  rec.loss = coll_->gather(loss, 1);
  if (what.grad_norms || consistency) rec.grad_norm = coll_->gather(norm, 1);
  if (tensor_norms) {
    const size_t n = ranks_[0].params.tensors.size();
    const auto all = coll_->gather(tnorms, n);
    for (int r = 0; r < R; ++r) rec.tensor_norms.emplace_back(all.begin() + long(r * n), all.begin() + long((r + 1) * n));
  }
  if (obs) obs->step_ends(step_, ranks_);
  ++step_;
  return rec;
}

// Shard s of every local rank's flat `local` from rank s (the others' elements
// as -0, which every sum in rank order adds exactly: x + -0 = x for every x,
// -0 and NaN included, so the owner's bits arrive unchanged whichever
// collective sums them).
torch::Tensor dp_trainer::gather_shards(const std::vector<torch::Tensor>& local) {
  std::vector<torch::Tensor> masked;
  for (size_t i = 0; i < local_.size(); ++i) {
    const int64_t n = local[i].numel(), per = (n + d_.ranks - 1) / d_.ranks;
    const int64_t lo = std::min(n, per * local_[i]), hi = std::min(n, lo + per);
    torch::Tensor m = torch::full({n}, -0.0, local[i].options());
    m.slice(0, lo, hi).copy_(local[i].slice(0, lo, hi));
    masked.push_back(m);
  }
  return coll_->sum(masked).clone();
}

// The distributed optimizer's state after the step: every rank's parameters
// and Adam moments overwritten by their shards' owners' (what the all-gather
// of the updated parameters leaves, and what a rank's step from them next
// gives: only the owner's masters and moments exist).
void dp_trainer::gather_state() {
  torch::NoGradGuard ng;
  auto each = [&](auto tensors_of) {
    std::vector<torch::Tensor> flat;
    for (auto& rep : ranks_) {
      std::vector<torch::Tensor> parts;
      for (const auto& t : tensors_of(rep)) parts.push_back(t.detach().reshape({-1}));
      flat.push_back(torch::cat(parts));
    }
    const torch::Tensor all = gather_shards(flat);
    for (auto& rep : ranks_) {
      int64_t at = 0;
      for (auto& t : tensors_of(rep)) t.detach().copy_(all.slice(0, at, at + t.numel()).view(t.sizes())), at += t.numel();
    }
  };
  each([](replica& r) -> std::vector<torch::Tensor>& { return r.params.tensors; });
  each([](replica& r) -> std::vector<torch::Tensor>& { return r.exp_avg; });
  each([](replica& r) -> std::vector<torch::Tensor>& { return r.exp_avg_sq; });
}

void save_checkpoint(const replica& r, const std::string& path, const std::string& config_hash) {
  std::vector<torch::Tensor> all;
  for (const auto& t : r.params.tensors) all.push_back(t.detach());
  for (const auto& t : r.exp_avg) all.push_back(t);
  for (const auto& t : r.exp_avg_sq) all.push_back(t);
  const std::string tmp = path + ".tmp";
  torch::save(all, tmp);
  std::filesystem::rename(tmp, path);
  write_json_atomic(path + ".json", {{"schema", "sdcbench.checkpoint/1"}, {"config_hash", config_hash},
                                     {"names", r.params.names}, {"step", r.step}});
}

replica load_checkpoint(const model_config& m, const std::string& path, const std::string& config_hash) {
  const nlohmann::json meta = read_json_file(path + ".json");
  if (meta.value("schema", "") != "sdcbench.checkpoint/1")
    throw input_error(path + ".json", "schema", "\"sdcbench.checkpoint/1\"");
  if (meta.value("config_hash", "") != config_hash)
    throw input_error(path + ".json", "config_hash", "the hash of this run's model and pretraining configuration (" + config_hash + "); the checkpoint was made for another");
  replica r = fresh_replica(m, 0);
  std::vector<torch::Tensor> all;
  try {
    torch::load(all, path);
  } catch (const c10::Error& e) {
    throw input_error(path, "checkpoint", std::string("a libtorch tensor archive; ") + e.what_without_backtrace());
  }
  const size_t n = r.params.tensors.size();
  if (all.size() != 3 * n || meta.at("names").get<std::vector<std::string>>() != r.params.names)
    throw input_error(path, "tensors", fmt::format("{} tensors of this model; got {}", 3 * n, all.size()));
  torch::NoGradGuard ng;
  for (size_t i = 0; i < n; ++i) {
    if (!all[i].sizes().equals(r.params.tensors[i].sizes()))
      throw input_error(path, r.params.names[i], "the model's shape for this parameter");
    r.params.tensors[i].copy_(all[i]);
    r.exp_avg[i].copy_(all[n + i]);
    r.exp_avg_sq[i].copy_(all[2 * n + i]);
  }
  r.step = meta.at("step").get<int64_t>();
  return r;
}

}  // namespace sdc::train
