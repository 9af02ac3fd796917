#include "workloads/ascend_demos/silent_detect_dense.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "foundation/random/numpy_legacy.hpp"

namespace sdc::demo003 {

dense_run run_silent_detect_dense(const silent_detect_dense_config& c, const demo_hooks& h, const std::vector<int>& check_order) {
  if (check_order.size() != 4) throw std::invalid_argument("silent_detect_dense: check_order must name the 4 parameters");
  const int R = c.ranks, n = c.batch, J = c.hidden, O = c.outputs;
  numpy_legacy_random init(c.init_seed);
  auto uniform = [&](size_t count, double bound) {
    std::vector<float> w(count);
    for (float& v : w) v = float((2 * init.random_sample() - 1) * bound);
    return w;
  };
  // fc1: weight [8, 1], bias [8] (fan_in 1); fc2: weight [8, 8], bias [8] (fan_in 8).
  std::array<std::vector<float>, 4> p{uniform(static_cast<size_t>(J), 1.0), uniform(static_cast<size_t>(J), 1.0), uniform(size_t(O) * size_t(J), 1 / std::sqrt(double(J))),
                                      uniform(static_cast<size_t>(O), 1 / std::sqrt(double(J)))};
  std::array<std::vector<float>, 4> accum;
  for (size_t t = 0; t < 4; ++t) accum[t].assign(p[t].size(), 0.0f);

  numpy_legacy_random data(c.data_seed);
  dense_run run;
  for (int64_t step = 0; step < c.steps; ++step) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = float(data.random_sample());  // np.random.rand(8, 1).astype(np.float32)
    std::vector<std::array<std::vector<float>, 4>> grads(static_cast<size_t>(R));
    double out_sum = 0;
    for (int r = 0; r < R; ++r) {
      std::vector<float> hpre(size_t(n) * size_t(J)), act(size_t(n) * size_t(J));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < J; ++j) {
          const float v = x[size_t(i)] * p[0][size_t(j)] + p[1][size_t(j)];
          hpre[size_t(i) * size_t(J) + size_t(j)] = v;
          act[size_t(i) * size_t(J) + size_t(j)] = v <= 0 ? 0.0f : v;
        }
      const std::vector<float> relu_out = act;
      if (h.eod_mask) h.eod_mask(step, r, act);
      for (int i = 0; i < n; ++i)
        for (int o = 0; o < O; ++o) {
          float y = 0;
          for (int j = 0; j < J; ++j) y += act[size_t(i) * size_t(J) + size_t(j)] * p[2][size_t(o) * size_t(J) + size_t(j)];
          out_sum += double(y + p[3][size_t(o)]);
        }
      // Backward of sum(outputs): dy = 1 everywhere.
      auto& g = grads[size_t(r)];
      g[2].assign(size_t(O) * size_t(J), 0.0f), g[3].assign(static_cast<size_t>(O), 0.0f), g[0].assign(static_cast<size_t>(J), 0.0f), g[1].assign(static_cast<size_t>(J), 0.0f);
      for (int o = 0; o < O; ++o) {
        for (int i = 0; i < n; ++i) g[3][size_t(o)] += 1.0f;
        for (int j = 0; j < J; ++j)
          for (int i = 0; i < n; ++i) g[2][size_t(o) * size_t(J) + size_t(j)] += act[size_t(i) * size_t(J) + size_t(j)];
      }
      for (int j = 0; j < J; ++j) {
        float dact = 0;  // sum over the outputs of fc2's weight column (dy = 1); the mask's backward passes it on
        for (int o = 0; o < O; ++o) dact += p[2][size_t(o) * size_t(J) + size_t(j)];
        for (int i = 0; i < n; ++i) {
          const float dh = relu_out[size_t(i) * size_t(J) + size_t(j)] <= 0 ? 0.0f : dact;  // ReLUGrad on relu's own output
          g[0][size_t(j)] += dh * x[size_t(i)];
          g[1][size_t(j)] += dh;
        }
      }
    }
    run.output_mean.push_back(out_sum / double(R * n * O));
    for (int t : check_order) {
      bool go_on = true;
      for (int r = 0; r < R && h.backward_comm; ++r) go_on &= h.backward_comm(step, r, dense_parameter_names()[size_t(t)], grads[size_t(r)][size_t(t)]);
      if (!go_on) return run.stopped = true, run;
    }
    for (size_t t = 0; t < 4; ++t) {  // mirror AllReduce (sum, rank order), then ApplyMomentum
      for (size_t i = 0; i < p[t].size(); ++i) {
        float g = grads[0][t][i];
        for (int r = 1; r < R; ++r) g += grads[size_t(r)][t][i];
        accum[t][i] = accum[t][i] * c.momentum + g;
        p[t][i] -= c.lr * accum[t][i];
      }
    }
    run.steps_done = step + 1;
  }
  return run;
}

}  // namespace sdc::demo003
