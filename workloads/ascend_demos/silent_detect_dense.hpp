// 003_dc12117c3d941011.txt's second demo script, silent_detect.py, as written:
// 8 devices, Dense(1, 8) - ReLU - GenerateEodMaskV2 - Dense(8, 8) with fp32
// weights and biases, TrainOneStepCell (sens = 1: the gradient of the sum of
// the outputs; there is no loss), Momentum(lr 0.1, momentum 0.9), 200 steps of
// np.random.rand(8, 1) after np.random.seed(1) (every device the same rows).
// Semi-auto parallel without strategies is data parallel: each device's batch
// is its shard of a global 64 rows, and every parameter's gradient has a
// mirror AllReduce (a sum: gradients_mean is off by default), before which
// MindSpore's combined scheme takes the feature value. The parameters follow
// nn.Dense's defaults, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias
// (HeUniform(sqrt(5)) and the bias initializer), drawn from our own
// NumPy-legacy stream `init_seed`, not MindSpore's generator.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/ascend_demos/demo_hooks.hpp"

namespace sdc::demo003 {

struct silent_detect_dense_config {
  int ranks = 8, batch = 8, hidden = 8, outputs = 8;
  int steps = 200;
  float lr = 0.1f, momentum = 0.9f;
  uint32_t data_seed = 1;
  uint32_t init_seed = 1;
};

// The parameters in registration order (net.trainable_params()).
inline const std::array<std::string, 4>& dense_parameter_names() {
  static const std::array<std::string, 4> names{"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
  return names;
}

struct dense_run {
  int64_t steps_done = 0;
  bool stopped = false;
  std::vector<double> output_mean;  // per step, the mean output over the global batch (the "loss" it descends)
};

// backward_comm is called once per parameter and step with the parameter's
// name as `op` and its local gradient, in `check_order` (indices into
// dense_parameter_names()), every rank of one parameter before the next.
dense_run run_silent_detect_dense(const silent_detect_dense_config& c, const demo_hooks& h, const std::vector<int>& check_order);

}  // namespace sdc::demo003
