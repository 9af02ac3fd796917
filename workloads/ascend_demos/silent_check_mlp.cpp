#include "workloads/ascend_demos/silent_check_mlp.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "foundation/random/numpy_legacy.hpp"
#include "workloads/ascend_demos/dense_math.hpp"

namespace sdc::demo003 {
namespace {

using vec = std::vector<float>;

// The device's block of columns [c0, c0 + w) of a rows x cols matrix.
vec column_block(const vec& x, int rows, int cols, int c0, int w) {
  vec out(size_t(rows) * size_t(w));
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < w; ++j) out[size_t(i) * size_t(w) + size_t(j)] = x[size_t(i) * size_t(cols) + size_t(c0 + j)];
  return out;
}

// AllReduce (sum) of the ranks' partial tensors, in rank order.
vec all_reduce(const std::vector<vec>& parts) {
  vec out = parts[0];
  for (size_t r = 1; r < parts.size(); ++r)
    for (size_t i = 0; i < out.size(); ++i) out[i] += parts[r][i];
  return out;
}

void relu_in_place(vec& x) {
  // NaN passes, and so does its gradient (the masks below zero where x <= 0),
  // as torch's relu and threshold_backward; the paper's first ERROR on device
  // 2 (avg 5.75e-08, the scale of relu2's gradient) says MindSpore's does too.
  for (float& v : x) v = v <= 0 ? 0.0f : v;
}

// Check the ranks' gradients entering one backward communication operator.
bool check_all(const demo_hooks& h, int64_t step, const char* op, const std::vector<vec>& grads) {
  if (!h.backward_comm) return true;
  bool go_on = true;
  for (size_t r = 0; r < grads.size(); ++r) go_on &= h.backward_comm(step, int(r), op, grads[r]);
  return go_on;
}

}  // namespace

mlp_run run_silent_check_mlp(const silent_check_mlp_config& c, const demo_hooks& h) {
  if (c.ranks < 1 || c.in % c.ranks || c.hidden % c.ranks) throw std::invalid_argument("silent_check_mlp: in and hidden must split over the ranks");
  const int R = c.ranks, n = c.batch, N = R * n, D = c.in, H = c.hidden, K = c.classes;
  const int dk = D / R, hk = H / R;

  // Parameters as the script declares them: fc1 [784, 512], fc2 [512, 512], fc3 [512, 10].
  numpy_legacy_random init(c.init_seed);
  auto draw = [&](size_t count) {
    vec w(count);
    for (float& v : w) v = float(double(c.init_sigma) * init.standard_normal());
    return w;
  };
  const vec w1_full = draw(size_t(D) * size_t(H)), w2_full = draw(size_t(H) * size_t(H));
  vec w3 = draw(size_t(H) * size_t(K));
  std::vector<vec> w1(static_cast<size_t>(R)), w2(static_cast<size_t>(R));  // each device's row block (strategy (4, 1))
  for (int r = 0; r < R; ++r) {
    w1[size_t(r)].assign(w1_full.begin() + ptrdiff_t(r) * dk * H, w1_full.begin() + ptrdiff_t(r + 1) * dk * H);
    w2[size_t(r)].assign(w2_full.begin() + ptrdiff_t(r) * hk * H, w2_full.begin() + ptrdiff_t(r + 1) * hk * H);
  }

  numpy_legacy_random data(c.data_seed);
  mlp_run run;
  for (int64_t step = 0; step < c.steps; ++step) {
    // RandomAccessDataset.__getitem__: the image batch, then its labels.
    vec x_local(size_t(n) * size_t(D));
    for (float& v : x_local) v = float(data.standard_normal()) + c.input_shift;  // .astype(np.float32) + 10
    std::vector<int> y(static_cast<size_t>(n));
    for (int& v : y) v = data.randint(0, K);
    vec x(size_t(N) * size_t(D));  // the global batch: every device drew the same rows
    for (int r = 0; r < R; ++r) std::copy(x_local.begin(), x_local.end(), x.begin() + ptrdiff_t(r) * n * D);

    // Forward.
    std::vector<vec> xc(static_cast<size_t>(R)), p1(static_cast<size_t>(R), vec(size_t(N) * size_t(H)));
    for (int r = 0; r < R; ++r) {
      xc[size_t(r)] = column_block(x, N, D, r * dk, dk);
      matmul(xc[size_t(r)], w1[size_t(r)], p1[size_t(r)], N, dk, H);
    }
    const vec h1 = all_reduce(p1);
    std::vector<vec> e(static_cast<size_t>(R)), r1(static_cast<size_t>(R));
    for (int r = 0; r < R; ++r) {
      e[size_t(r)].assign(h1.begin() + ptrdiff_t(r) * n * H, h1.begin() + ptrdiff_t(r + 1) * n * H);
      if (h.eod_mask) h.eod_mask(step, r, e[size_t(r)]);
      r1[size_t(r)] = e[size_t(r)];
      relu_in_place(r1[size_t(r)]);
    }
    vec g2(size_t(N) * size_t(H));  // AllGather of relu1's row blocks
    for (int r = 0; r < R; ++r) std::copy(r1[size_t(r)].begin(), r1[size_t(r)].end(), g2.begin() + ptrdiff_t(r) * n * H);
    std::vector<vec> g2c(static_cast<size_t>(R)), p2(static_cast<size_t>(R), vec(size_t(N) * size_t(H)));
    for (int r = 0; r < R; ++r) {
      g2c[size_t(r)] = column_block(g2, N, H, r * hk, hk);
      matmul(g2c[size_t(r)], w2[size_t(r)], p2[size_t(r)], N, hk, H);
    }
    const vec h2 = all_reduce(p2);
    std::vector<vec> r2(static_cast<size_t>(R)), logits(static_cast<size_t>(R), vec(size_t(n) * size_t(K))), dlogits(static_cast<size_t>(R), vec(size_t(n) * size_t(K)));
    double loss = 0;
    for (int r = 0; r < R; ++r) {
      r2[size_t(r)].assign(h2.begin() + ptrdiff_t(r) * n * H, h2.begin() + ptrdiff_t(r + 1) * n * H);
      relu_in_place(r2[size_t(r)]);
      matmul(r2[size_t(r)], w3, logits[size_t(r)], n, H, K);
      for (int i = 0; i < n; ++i) {  // nn.CrossEntropyLoss, mean over the global batch
        const float* l = logits[size_t(r)].data() + size_t(i) * size_t(K);
        float m = l[0];
        for (int k = 1; k < K; ++k) m = l[k] > m ? l[k] : m;
        float s = 0;
        for (int k = 0; k < K; ++k) s += std::exp(l[k] - m);
        loss += double(m + std::log(s) - l[y[size_t(i)]]);
        for (int k = 0; k < K; ++k)
          dlogits[size_t(r)][size_t(i) * size_t(K) + size_t(k)] = (std::exp(l[k] - m) / s - (k == y[size_t(i)] ? 1.0f : 0.0f)) / float(N);
      }
    }
    run.loss.push_back(loss / N);

    // Backward, stopping where a check raises.
    std::vector<vec> d2(static_cast<size_t>(R), vec(size_t(n) * size_t(H)));
    for (int r = 0; r < R; ++r) {
      matmul_nt(dlogits[size_t(r)], w3, d2[size_t(r)], n, K, H);
      for (size_t i = 0; i < d2[size_t(r)].size(); ++i)
        if (h2[size_t(r) * size_t(n) * size_t(H) + i] <= 0) d2[size_t(r)][i] = 0;  // relu2's mask (a NaN input passes its gradient)
    }
    if (!check_all(h, step, "AllReduce (matmul2 output gradient)", d2)) return run.stopped = true, run;
    std::vector<vec> dw3(static_cast<size_t>(R), vec(size_t(H) * size_t(K)));
    for (int r = 0; r < R; ++r) matmul_tn(r2[size_t(r)], dlogits[size_t(r)], dw3[size_t(r)], H, n, K);
    if (!check_all(h, step, "AllReduce (mirror of fc3_weight)", dw3)) return run.stopped = true, run;
    const vec dw3_sum = all_reduce(dw3);

    vec dh2(size_t(N) * size_t(H));  // each device's rows, summed with the others' zeros
    for (int r = 0; r < R; ++r) std::copy(d2[size_t(r)].begin(), d2[size_t(r)].end(), dh2.begin() + ptrdiff_t(r) * n * H);

    std::vector<vec> dw2(static_cast<size_t>(R), vec(size_t(hk) * size_t(H))), dg2c(static_cast<size_t>(R), vec(size_t(N) * size_t(hk)));
    for (int r = 0; r < R; ++r) {
      matmul_tn(g2c[size_t(r)], dh2, dw2[size_t(r)], hk, N, H);
      matmul_nt(dh2, w2[size_t(r)], dg2c[size_t(r)], N, H, hk);
    }
    if (!check_all(h, step, "ReduceScatter (matmul2 input gradient)", dg2c)) return run.stopped = true, run;
    std::vector<vec> de(static_cast<size_t>(R), vec(size_t(n) * size_t(H)));
    for (int r = 0; r < R; ++r)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < H; ++j) {
          const float g = dg2c[size_t(j / hk)][(size_t(r) * size_t(n) + size_t(i)) * size_t(hk) + size_t(j % hk)];
          de[size_t(r)][size_t(i) * size_t(H) + size_t(j)] = e[size_t(r)][size_t(i) * size_t(H) + size_t(j)] <= 0 ? 0.0f : g;
        }
    if (!check_all(h, step, "AllReduce (matmul1 output gradient)", de)) return run.stopped = true, run;
    vec dh1(size_t(N) * size_t(H));
    for (int r = 0; r < R; ++r) std::copy(de[size_t(r)].begin(), de[size_t(r)].end(), dh1.begin() + ptrdiff_t(r) * n * H);

    // SGD (nn.SGD: w -= lr g).
    for (int r = 0; r < R; ++r) {
      vec dw1(size_t(dk) * size_t(H));
      matmul_tn(xc[size_t(r)], dh1, dw1, dk, N, H);
      for (size_t i = 0; i < dw1.size(); ++i) w1[size_t(r)][i] -= c.lr * dw1[i];
      for (size_t i = 0; i < dw2[size_t(r)].size(); ++i) w2[size_t(r)][i] -= c.lr * dw2[size_t(r)][i];
    }
    for (size_t i = 0; i < w3.size(); ++i) w3[i] -= c.lr * dw3_sum[i];
    run.steps_done = step + 1;
  }
  return run;
}

}  // namespace sdc::demo003
