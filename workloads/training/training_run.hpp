// A training job as a configuration names it: the model, the fine-tuning data
// (generated tasks or an Alpaca file), an optional pretraining stage on a text
// corpus whose checkpoint is cached by its configuration hash, the
// data-parallel setup and the optimizer. Used by `sdcbench train` and by the
// training workload's campaigns.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/training/trainer.hpp"

namespace sdc::train {

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

// The fine-tuning set and the held-out set.
struct train_data {
  dataset train, eval;
};
train_data load_train_data(const train_config& c);

// The pretrained replica (fresh AdamW state), from the cache or trained now
// and cached. Random weights when no corpus is named.
replica pretrained_start(const train_config& c, std::string* cache_path = nullptr);

// Mean response loss over the held-out set, without dropout.
double eval_loss(const model_config& m, const param_set& p, const dataset& d);

}  // namespace sdc::train
