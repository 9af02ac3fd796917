// GEMM checks run inside a rank's linear GEMMs (issue 34): the training
// runner's side of protocol/views/training_view.hpp's gemm_guard. Before each
// step the detectors that ask (detector_needs::gemm_guard) arm a guard per rank
// through the step's encode view; in the step, the first armed guard computes
// each fp32 GEMM itself (its protected GEMM: the check's sums taken by our
// kernel, the product bit for bit mixed_mm's), and every armed guard is shown
// the stored output, and whether a gemm: fault changed it after the product
// (against a copy taken only when the fault plan is armed on that rank in
// that step, so clean steps pay nothing for it).
#pragma once
#include <torch/torch.h>

#include <map>
#include <vector>

#include "protocol/views/training_view.hpp"
#include "workloads/training/trainer/model.hpp"

namespace sdc::train {

class rank_guards final : public sdc::gemm_guards {
 public:
  void arm(size_t slot, sdc::gemm_guard* g) override { armed_[slot] = g; }
  void clear() { armed_.clear(), own_.clear(), shared_ = 0; }
  bool any() const { return !armed_.empty(); }
  // The seconds this step spent on the guards' work: each guard's own calls
  // (prepare, stored) and the copies made for all of them (`shared_`), added
  // to by_slot (each armed slot: its own and the shared) and total (once).
  // A protected product is the step's: the GEMM, its sums and its verdict.
  void add_work(std::vector<double>& by_slot, double& total) const;

  // gemm_hook::run_gemm's side: the first armed guard computes an fp32
  // product (bf16 operands: false, mixed_mm runs and rounds).
  bool run_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out);
  // Before the site's fault: keep a copy of out when a fault may land in it.
  void before_fault(const torch::Tensor& out, bool fault_may_land);
  // After it: every armed guard sees the output as stored.
  void stored(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& out);

 private:
  std::map<size_t, sdc::gemm_guard*> armed_;  // by the detector's slot: the lowest computes the product
  std::map<size_t, double> own_;              // seconds, by slot
  double shared_ = 0;
  sdc::gemm_guard* producer_ = nullptr;
  torch::Tensor a_, b_, before_;  // the product's operands (kept for stored()), out before a fault
};

}  // namespace sdc::train
