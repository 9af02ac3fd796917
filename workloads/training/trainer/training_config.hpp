// The configuration of a training job, as `sdcbench train` and the training
// workload's suites name it: the model, the optimizer, the data-parallel
// setup, the data and an optional pretraining stage; and its JSON reader.
// Free of libtorch, so the readers of hostile input (fuzz targets) build
// without it.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace sdc::train {

struct model_config {
  int layers = 2;
  int width = 64;
  int heads = 4;
  int seq = 96;       // tokens per sample (context length)
  int vocab = 256;    // bytes
  bool tied_head = true;
  bool rmsnorm = false;
  double dropout = 0.0;
  bool bf16 = false;  // GEMMs in bf16 (autocast), else all fp32
  // precision mxfp8: bf16 as above, and the linear layers' GEMMs in MXFP8
  // (workloads/training/trainer/mx_linear.hpp); mx_microxcaling: the variant
  // with microxcaling's scale and rounding instead of TransformerEngine's.
  bool mxfp8 = false, mx_microxcaling = false;
  // LLaMA-style blocks: a SwiGLU MLP (down(silu(gate x) * up x)) instead of
  // GELU's fc1/fc2, rotary position embeddings on q and k instead of learned
  // ones, no biases in the linear layers.
  bool swiglu = false, rope = false, bias = true;
  int ffn = 0;  // the MLP's hidden width; 0: 4 x width (GELU), LLaMA's 8/3 x width up to a multiple of 8 (SwiGLU)
  // Not a config file field: set for a faulty episode whose site is inside
  // the softmax (attn_row_max:, attn_row_sum:), its clean twin and its
  // recomputations. Softmax as max, exp(x - max), sum, divide
  // (trainer/attention.cpp), whose bits differ from torch::softmax's.
  bool explicit_softmax = false;
  int ffn_width() const { return ffn > 0 ? ffn : swiglu ? (8 * width / 3 + 7) / 8 * 8 : 4 * width; }
  // "": valid; else what is wrong, naming the field.
  std::string invalid() const;
};

struct optim_config {
  double lr = 3e-3, min_lr_ratio = 0.1;
  int64_t warmup = 10, total = 200;  // schedule: linear warm-up, then cosine to min_lr at `total`
  double weight_decay = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double clip = 1.0;  // global gradient-norm clipping; 0 = off
  std::string invalid() const;
  double lr_at(int64_t step) const;
};

// 002's settings: S1-1 every rank the base seed, S1-2 rank 0 another, S1-3 each its own.
enum class seed_policy { s1_1, s1_2, s1_3 };
seed_policy parse_seed_policy(const std::string& s);  // "S1-1" | "S1-2" | "S1-3"; value_error otherwise
const char* seed_policy_name(seed_policy p);
uint64_t rank_seed(seed_policy p, uint64_t seed, int rank);

struct dp_config {
  int ranks = 2;
  int micro_batch = 4;
  bool bf16_buckets = false;
  seed_policy policy = seed_policy::s1_1;
  uint64_t seed = 1;
  int64_t epoch_offset = 0;  // episodes forked from one checkpoint see different shuffles
  // Megatron-LM's --use-distributed-optimizer (trainer.hpp): fp32 master
  // weights and Adam moments sharded over the ranks, the updated parameters
  // all-gathered. False: every rank keeps and steps a full replica (DDP).
  bool distributed_optimizer = false;
};

struct pretrain_config {
  std::string corpus;        // "" = start from random weights
  int64_t steps = 300;
  int batch = 8;
  int64_t max_windows = 20000;
  optim_config optim;
};

struct train_config {
  model_config model;
  optim_config optim;
  dp_config dp;
  pretrain_config pretrain;
  int64_t steps = 50;
  std::string data = "generated";  // or the path of an Alpaca JSON file
  int64_t examples = 4000;          // generated examples
  int64_t eval_examples = 64;       // held out (generated with another seed, or the file's last ones)
  bool tensor_norms = false;        // per-parameter gradient norms in the records
  bool consistency = false;         // 002's cosines in the records (one extra all-reduce per step)
  bool mpi = false;                 // backend: one MPI process per rank (else every rank in this process)
  bool ordered = true;              // reduction: in rank order (bit-identical across backends), else MPI's own
  std::string cache_dir;            // pretraining checkpoints; "" = $SDCBENCH_CACHE or ~/.cache/sdcbench
};

// From JSON (every field optional; unknown fields are errors). input_error
// naming `file` and the field on a bad value.
train_config parse_train_config(const nlohmann::json& j, const std::string& file, const std::string& base_dir);
nlohmann::json describe(const train_config& c);

}  // namespace sdc::train
