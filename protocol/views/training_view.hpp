// What a training-level detector sees of one rank at one step: the rank's
// loss and its gradients before the all-reduce (flat fp32, parameter order,
// with each parameter's slice), and, when a detector asks for them
// (detector_needs::gemms), every GEMM of the linear layers as the hook saw it after
// any fault; all copied out of libtorch so that detectors neither include nor
// link torch. The hook for 000's and 003's detectors, which look before the
// collective, for 002's cross-rank metrics, and for GEMM checks (003's
// CheckSum, 001's V-ABFT), or, for a GEMM check that runs inside the GEMMs,
// a place to arm its gemm_guard before the step; the replicas' parameter hashes after the
// optimizer step, for checks of replica divergence; and a recomputation of
// any rank's step, for checks that rerun or replay it.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "protocol/episode.hpp"

namespace sdc {

struct training_layout {
  std::vector<std::string> names;  // parameters, in order
  std::vector<int64_t> offsets;    // start of each in the flat gradient; offsets.back() + last size = numel
  std::vector<std::vector<int64_t>> shapes;
  int64_t numel = 0;
  std::vector<std::string> linears;  // linear layers by index (gemm_record::linear)
};

// One GEMM C = A B of a linear layer on one rank: A m x k, B k x n, C m x n,
// row-major fp32 copies (bf16 values held exactly when the GEMM ran in bf16),
// C as the layer went on with it (after any fault). pass: 0 forward (A = x,
// B = W^T), 1 grad_input (A = dY, B = W), 2 grad_weight (A = dY^T, B = x).
// An attention product (training_step::attention) is `batch` products back to
// back (A batch x m x k, and so on; one per sequence and head), `linear` its
// block, pass 3 the scores (A = Q, B = K^T) or 4 the context (A = the
// probabilities, B = V).
struct gemm_record {
  int linear = 0, pass = 0;
  bool bf16 = false;
  int64_t m = 0, k = 0, n = 0;
  std::vector<float> a, b, c;
  int64_t batch = 1;
  // What computing C again on this rank's device gives, for a check that
  // recomputes there (torch_npu's CheckSum): set by the workload, which knows
  // the fault's lifetime. fault_changed: a fault changed C after the product
  // (a defective GEMM); fault_recurs: this device repeats it whenever it
  // computes C (a permanent fault; an intermittent one while on), so its
  // recomputation gives C's bits again; a transient one's gives the clean product.
  bool fault_changed = false, fault_recurs = false;
};
constexpr int k_attention_scores = 3, k_attention_context = 4;  // gemm_record::pass of an attention product

// A GEMM check that runs inside a rank's linear GEMMs (issue 34: a GEMM
// detector's protected GEMM, so the check costs what it would in
// deployment). Armed before each step through gemm_guards; for each GEMM of
// the rank the workload first offers the product (fp32 operands only), then
// shows the output the layer goes on with, saying whether a fault changed it
// after the product. The guard keeps the step's verdict.
struct gemm_call {
  int linear = 0, pass = 0;
  int64_t m = 0, k = 0, n = 0;
  const float* a = nullptr;  // m x k, row-major
  const float* b = nullptr;  // k x n
  bool bf16 = false;         // the operands hold bf16 values (the output is rounded to bf16)
};
class gemm_guard {
 public:
  virtual ~gemm_guard() = default;
  // Before product(), the check's work on the operands alone (its encoding):
  // timed as the detector's, product() as the step's.
  virtual void prepare(const gemm_call&) {}
  // C = A B (m x n, row-major fp32) with the check's sums. False: no fused
  // form here; C untouched, the workload computes it.
  virtual bool product(const gemm_call& g, float* c) = 0;
  // The output as stored (fp32 copy); changed: a fault changed it since this
  // guard's product() (false when none, or when product() declined).
  virtual void stored(const gemm_call& g, const float* c, bool changed) = 0;
};
// What the workload offers at encode time: each detector (its slot in the
// suite) may arm one guard for the coming step of this rank.
class gemm_guards {
 public:
  virtual ~gemm_guards() = default;
  virtual void arm(size_t slot, gemm_guard* g) = 0;
};

// One rank's forward and backward of this step computed again, as checks
// that rerun a step do (Megatron-LM's rerun state machine, torchtitan's SDC
// replay): its loss and its gradients before the all-reduce (flat fp32,
// parameter order).
struct recomputed_step {
  double loss = 0;
  std::vector<float> grads;
};

// Offered by the training workload on the episode's steps when a detector
// asks (detector_needs::recompute); null on the warm-up steps shown before it.
class step_recomputer {
 public:
  virtual ~step_recomputer() = default;
  // `data_rank`'s forward and backward of this step (its batch and dropout
  // stream) from `state_of`'s parameters as they were before the step, run on
  // `device`: a permanent fault of that device recurs there, a transient one
  // does not (workloads/training/fault_lifetime.hpp).
  virtual recomputed_step recompute(int data_rank, int state_of, int device) = 0;
  // The step's all-reduce of `local` (every rank's gradient before it, rank
  // order), bit for bit as the step computed its own, and rank `device`'s
  // copy of the sum (a recurring fault of that device's copy applied again):
  // what a replay of the whole data-parallel step gives that rank.
  virtual std::vector<float> all_reduce(const std::vector<std::vector<float>>& local, int device) = 0;
};

class training_step final : public step_view {
 public:
  view_kind kind() const override { return view_kind::training; }
  double loss = 0;
  std::vector<float> grads;  // before the all-reduce
  // The 2-norm of the reduced gradient this rank's optimizer steps with (its
  // own copy, after any fault in it; under the distributed optimizer each
  // shard's owner's), in fp64: what it clips and a framework logs as the
  // global grad norm.
  double reduced_grad_norm = std::numeric_limits<double>::quiet_NaN();
  // The bucket this rank hands the all-reduce holds bf16 (the configuration's
  // "buckets": "bf16"), the dtype a check on it keeps its state in.
  bool bucket_bf16 = false;
  // This rank's own copy of the reduced gradient (flat fp32, parameter order,
  // after any fault in it: the gradients torchtitan hashes after a DDP step),
  // when a detector asks (detector_needs::reduced_grads); empty on warm-up steps.
  std::vector<float> reduced_grads;
  const training_layout* layout = nullptr;
  std::vector<gemm_record> gemms;  // this step's, when a detector needs them
  // The forward pass's attention products (both per block, in call order),
  // when a detector asks (detector_needs::attention_gemms): what a PyTorch model
  // with HF's eager attention computes through torch.matmul. No fault site is
  // in them; `gemms` never holds them.
  std::vector<gemm_record> attention;
  // After the optimizer step, when a detector asks (detector_needs::
  // param_hashes: master or model): the SHA-1 of each parameter on this
  // rank, parameter order, of its fp32 master weights (param_sha1) or of the
  // model copy the forward uses (param_sha1_model: under bf16 precision the
  // master rounded to bf16, hashed upcast to fp32, what Megatron's
  // check_param_hashes_across_dp_replicas hashes as param.data.float() under
  // --bf16; under fp32 the master); empty on the warm-up steps a detector is
  // shown before the episode, and for a copy nobody asked for.
  std::vector<std::string> param_sha1;
  std::vector<std::string> param_sha1_model;
  step_recomputer* recomputer = nullptr;
  // On the views detectors encode before each step, when a detector asks
  // (detector_needs::gemm_guard): where it arms its gemm_guard. Null elsewhere.
  gemm_guards* guards = nullptr;
};

}  // namespace sdc
