// Data-parallel training, ranks stepped in one process: every rank holds its
// own replica and AdamW state, computes its loss and gradients on its shard,
// the gradients are flattened into one bucket per rank and summed in rank
// order (in bf16 after dividing by the world size, as DDP's bf16 compression
// hook does, or in fp32), every rank takes its own copy of the sum, clips and
// steps. A fault on one rank's copy makes that replica silently diverge, as on
// real hardware. A step_observer sees every point where a fault can land or a
// detector can look.
//
// Under Megatron-LM's distributed optimizer (dp_config::distributed_optimizer;
// megatron/core/optimizer/distrib_optimizer.py at d98e8a64) rank s owns shard
// s of the flat parameters (contiguous, ceil(N / ranks) elements each; Megatron's
// buffer is in reverse parameter order and padded, so which parameters a rank
// owns differs, not what owning does): its fp32 master weights and Adam
// moments there, stepped with its shard of the reduced gradient (the reduce-
// scatter), then every rank's parameters all-gathered from their owners. We
// keep full replicas and emulate it exactly: the optimizer steps every rank
// with the gradient assembled from the owners' shards, then every rank's
// parameters and moments are overwritten by their owners' (gather_shards). A
// fault in a rank's own shard reaches every replica alike; one outside it
// (in memory the rank does not own) lasts until the all-gather. Without a
// fault both optimizers give the same bits.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "workloads/training/trainer/data.hpp"
#include "workloads/training/trainer/model.hpp"

namespace sdc::train {

// The samples a run trains on, tokenized.
struct dataset {
  std::vector<tokenized> samples;
};
dataset instruction_dataset(const std::vector<instruction_example>& ex, int seq);
// Non-overlapping windows of seq + 1 bytes (at most max_windows of them, evenly spread).
dataset text_dataset(const std::string& text, int seq, int64_t max_windows);

struct replica {
  param_set params;
  std::vector<torch::Tensor> exp_avg, exp_avg_sq;  // AdamW moments, per parameter
  int64_t step = 0;                                 // optimizer steps taken
  replica clone() const;
};

// What one step did on each rank.
struct step_record {
  int64_t step = 0;
  double lr = 0;
  std::vector<double> loss;        // per rank
  std::vector<double> grad_norm;   // per rank, before the all-reduce, in fp64 (when asked)
  std::vector<std::vector<double>> tensor_norms;  // per rank, per parameter (when asked)
  // 002's cosines (when asked), from one extra all-reduce of the ranks' unit
  // gradients u_r = g_r / ||g_r|| (fp64): mean pairwise cosine (||S||^2 - R) /
  // (R (R - 1)) and each rank's cosine to the sum of the others' unit vectors.
  double cos_mean = 0;
  std::vector<double> cos_to_rest;
};

class step_observer {
 public:
  virtual ~step_observer() = default;
  virtual void step_begins(int64_t /*step*/, int /*rank*/, replica&) {}
  virtual gemm_hook* gemm_hook_for(int64_t /*step*/, int /*rank*/) { return nullptr; }
  // Gradients of `rank` are in params' .grad(), before the all-reduce.
  virtual void grads_ready(int64_t /*step*/, int /*rank*/, replica&) {}
  // rank's own copy of the reduced bucket (flat fp32, parameter order).
  virtual void reduced(int64_t /*step*/, int /*rank*/, torch::Tensor& /*bucket*/) {}
  // The gradient rank's optimizer steps with, before clipping: its copy of the
  // reduced bucket, or under the distributed optimizer each shard's owner's.
  virtual void optimizer_grads(int64_t /*step*/, int /*rank*/, const torch::Tensor& /*grads*/) {}
  virtual void step_ends(int64_t /*step*/, const std::vector<replica>& /*local replicas*/) {}
};

// How the ranks' buckets meet. The in-process collective holds every rank;
// an MPI one (mpi_collective.hpp) holds its process's rank and talks to the
// others. The ordered sum is rank 0 + rank 1 + ... in the bucket's dtype, the
// same bits whichever collective computes it.
class collective {
 public:
  virtual ~collective() = default;
  virtual int world() const = 0;
  virtual std::vector<int> local_ranks() const = 0;
  // The sum over all ranks of their buckets (`local`: one per local rank, in
  // local order; the collective may reuse them, as NCCL's in-place all-reduce does).
  virtual torch::Tensor sum(std::vector<torch::Tensor>& local) = 0;
  // Every rank's `per_rank` values, in rank order (`local`: the local ranks' values, concatenated).
  virtual std::vector<double> gather(const std::vector<double>& local, size_t per_rank) = 0;
};

class inprocess_collective final : public collective {
 public:
  explicit inprocess_collective(int ranks) : ranks_(ranks) {}
  int world() const override { return ranks_; }
  std::vector<int> local_ranks() const override;
  torch::Tensor sum(std::vector<torch::Tensor>& local) override;
  std::vector<double> gather(const std::vector<double>& local, size_t) override { return local; }

 private:
  int ranks_;
};

// One rank's forward and backward computed again (dp_trainer::recompute).
struct recomputation {
  double loss = 0;
  torch::Tensor grads;  // flat fp32, parameter order, before the all-reduce
};

// What a step records beyond the losses, each only when asked: the ranks'
// gradient norms (one fp64 pass over every rank's gradient, sequential as
// ATen's reduction is: 13 ms per rank at 10.8 M parameters), per-parameter
// norms, 002's cosines (which use the norms).
struct record_options {
  bool grad_norms = false, tensor_norms = false, consistency = false;
};

class dp_trainer {
 public:
  // `coll`: null for every rank in this process; else the collective (not owned)
  // whose world must equal d.ranks.
  dp_trainer(model_config m, optim_config o, dp_config d, const dataset* data, collective* coll = nullptr);
  // Every rank starts from the same replica.
  void start_from(const replica& r);
  step_record step(step_observer* obs = nullptr, record_options what = {});
  // This process's ranks' replicas (all of them in process), in local order.
  // `data_rank`'s forward and backward of `step` (its batch and dropout
  // stream) from a copy of `params`, run on `device`: the observer's GEMM hook
  // and gradient site for that device act on it. What a rerun of a step
  // computes (Megatron's rerun state machine, torchtitan's SDC replay); the
  // replicas are not touched.
  recomputation recompute(int data_rank, int device, const param_set& params, int64_t step, step_observer* obs);
  // The step's all-reduce of `local` (flat fp32 gradients, one per rank, rank
  // order; consumed): the buckets and their ordered sum as step() makes them,
  // returned in the bucket's dtype.
  torch::Tensor all_reduce(std::vector<torch::Tensor> local);
  const std::vector<replica>& replicas() const { return ranks_; }
  std::vector<replica>& replicas() { return ranks_; }
  const std::vector<int>& local_ranks() const { return local_; }
  const model_config& model() const { return m_; }
  int64_t global_step() const { return step_; }

 private:
  struct batch {
    torch::Tensor inputs, targets, mask;
  };
  batch batch_for(int rank, int64_t step);
  // Loss of `data_rank`'s batch at `step` on `device`; the gradients are left in rep's parameters.
  double forward_backward(int data_rank, int device, replica& rep, int64_t step, step_observer* obs);
  // The distributed optimizer (above): a flat tensor whose shard s is local
  // rank s's, and the all-gather of the owners' parameters and moments.
  torch::Tensor gather_shards(const std::vector<torch::Tensor>& local);
  torch::Tensor bucket_of(torch::Tensor& flat) const;  // divides flat in place when it stays fp32
  void gather_state();

  model_config m_;
  optim_config o_;
  dp_config d_;
  const dataset* data_;
  std::unique_ptr<collective> own_;
  collective* coll_;
  std::vector<int> local_;
  std::vector<replica> ranks_;
  int64_t step_ = 0;
};

replica fresh_replica(const model_config& m, uint64_t seed);

// Checkpoints: a replica's tensors in libtorch's serialization, the names and
// the configuration hash in a JSON file beside it (PATH.json).
void save_checkpoint(const replica& r, const std::string& path, const std::string& config_hash);
replica load_checkpoint(const model_config& m, const std::string& path, const std::string& config_hash);

}  // namespace sdc::train
