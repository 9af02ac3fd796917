#include "workloads/training/trainer/attention.hpp"

#include <cmath>

namespace sdc::train {

using torch::Tensor;

const char* attention_point_name(attention_point p) {
  switch (p) {
    case attention_point::scores: return "scores";
    case attention_point::softmax_in: return "softmax_in";
    case attention_point::row_max: return "row_max";
    case attention_point::row_sum: return "row_sum";
    case attention_point::probs: return "probs";
    case attention_point::context: return "context";
    case attention_point::scores_grad: return "scores_grad";
    case attention_point::probs_grad: return "probs_grad";
    case attention_point::context_grad: return "context_grad";
  }
  return "?";
}

void attention_point_at(gemm_hook* hook, int layer, attention_point point, Tensor& t) {
  if (hook && hook->wants_attention(layer, point)) hook->at_attention(layer, point, t);
}

void attention_grad_at(gemm_hook* hook, int layer, attention_point point, Tensor& t) {
  if (!hook || !t.requires_grad() || !hook->wants_attention(layer, point)) return;
  t.register_hook([hook, layer, point](const Tensor& g) {
    Tensor changed = g.contiguous().clone();
    hook->at_attention(layer, point, changed);
    return changed;
  });
}

Tensor attention_probs(const Tensor& scores, const Tensor& causal, int64_t head_width, int layer, gemm_hook* hook,
                       bool explicit_softmax) {
  Tensor x = (scores.to(torch::kFloat) / std::sqrt(double(head_width))).masked_fill(causal, -INFINITY);
  attention_point_at(hook, layer, attention_point::softmax_in, x);
  Tensor p;
  if (explicit_softmax) {
    Tensor m = x.detach().amax(-1, true);
    attention_point_at(hook, layer, attention_point::row_max, m);
    const Tensor e = torch::exp(x - m);
    Tensor s = e.sum(-1, true);
    attention_point_at(hook, layer, attention_point::row_sum, s);
    p = e / s;
  } else {
    p = torch::softmax(x, -1);
  }
  // Written through data_ptr (the version counter untouched): torch's softmax
  // backward reads its output, so a fault in the probabilities is in what the
  // backward reads too, as in the stored tensor a faulty unit wrote.
  attention_point_at(hook, layer, attention_point::probs, p);
  attention_grad_at(hook, layer, attention_point::probs_grad, p);
  return p;
}

}  // namespace sdc::train
