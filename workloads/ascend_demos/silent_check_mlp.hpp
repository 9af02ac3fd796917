// 003_dc12117c3d941011.txt's first demo script, silent_check.py, as written:
// 4 devices, the 784-512-512-10 MLP of fp32 weights without biases, matmul1
// and matmul2 sharded ((1,4),(4,1)), relu1 and relu2 (4,1), SGD at 1e-2,
// nn.CrossEntropyLoss, 20 batches of np.random.randn(32,1,28,28) + 10 with
// np.random.randint(0,10,32) labels after np.random.seed(1) (every device
// draws the same stream), one epoch, GenerateEodMaskV2 after matmul1.
//
// Our reading of MindSpore's semi-auto-parallel graph for it
// (detectors/ascend/CONFORMANCE.md, "The demo scripts", says why):
//   - a device's batch is its shard of a global batch of 4 x 32 rows
//     (dataset_strategy data_parallel, full_batch off); operators without a
//     strategy (Flatten, GenerateEodMaskV2, matmul3, the loss) run data
//     parallel, and fc3_weight is replicated, so its gradient has a mirror
//     AllReduce;
//   - matmul_k: the input is redistributed from rows to columns (AllGather of
//     the rows, then the device's column block), the device multiplies its
//     column block by its row block of the weight, and an AllReduce sums the
//     partial products; the next operator takes its row block (no
//     communication);
//   - the backward graph's communication operators, in the order they run:
//     the AllReduce that carries matmul2's output gradient (MatMul's bprop
//     computes the input gradient before the weight gradient), the mirror
//     AllReduce of fc3_weight's gradient, the ReduceScatter that carries
//     matmul2's input gradient (bprop of the AllGather), the AllReduce that
//     carries matmul1's output gradient. The AllGather of the images has no
//     backward (no gradient is asked for the inputs). The paper agrees: its
//     first ERROR on device 2 has avg 5.75e-08, the scale of the first of
//     these states in our runs, not of fc3's mirror (about 1e-3).
// The weights are drawn N(0, 0.01^2) (initializer "normal") from our own
// NumPy-legacy stream `init_seed`: MindSpore's generator is not reproduced.
// Gradients are those of the mean loss over the global batch.
#pragma once
#include <cstdint>
#include <vector>

#include "workloads/ascend_demos/demo_hooks.hpp"

namespace sdc::demo003 {

struct silent_check_mlp_config {
  int ranks = 4, batch = 32, in = 784, hidden = 512, classes = 10;
  int steps = 20;          // RandomAccessDataset.dataset_size, one epoch
  float lr = 1e-2f;        // nn.SGD(..., 1e-2)
  float init_sigma = 0.01f;
  float input_shift = 10;  // np.random.randn(...) + 10
  uint32_t data_seed = 1;  // np.random.seed(1)
  uint32_t init_seed = 1;
};

struct mlp_run {
  std::vector<double> loss;  // per completed step (the global mean)
  int64_t steps_done = 0;    // steps whose optimizer update ran
  bool stopped = false;      // a hook stopped the job
};

mlp_run run_silent_check_mlp(const silent_check_mlp_config& c, const demo_hooks& h);

}  // namespace sdc::demo003
