// `sdcbench train CONFIG.json|SUITE.json`: one data-parallel training job of
// the training workload (workloads/training/), so a user can look at a run
// before faulting it (a training suite: its first `config`). Writes its per-step records (loss and pre-all-reduce gradient norm of
// every rank, per-parameter norms on request) and the held-out response loss
// before and after, as `sdcbench.train/1` JSON.
#pragma once
#include <string>
#include <vector>

namespace sdc {

struct train_options {
  std::string config_path, out;
  std::vector<std::string> argv;
  bool quiet = false;
};

// Prints a short summary; returns the process exit code.
int run_train(const train_options& o);

}  // namespace sdc
