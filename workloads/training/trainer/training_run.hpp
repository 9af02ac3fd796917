// A training job as a configuration names it: the model, the fine-tuning data
// (generated tasks or an Alpaca file), an optional pretraining stage on a text
// corpus whose checkpoint is cached by its configuration hash, the
// data-parallel setup and the optimizer. Used by `sdcbench train` and by the
// training workload's campaigns.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/training/trainer/trainer.hpp"

namespace sdc::train {

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
