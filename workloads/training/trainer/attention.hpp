// A block's attention probabilities with its fault points (model.hpp,
// attention_point): the scores' own point is the caller's (it is also
// after_attention's product); here the softmax's input, its internals and
// its output, and the autograd hooks of the backward points.
#pragma once
#include <torch/torch.h>

#include "workloads/training/trainer/model.hpp"

namespace sdc::train {

// Gives `hook` the tensor at `point` of block `layer` when it asks (forward points).
void attention_point_at(gemm_hook* hook, int layer, attention_point point, torch::Tensor& t);

// Registers an autograd hook on t (when it requires grad and `hook` asks for
// `point`): the gradient arriving at t, copied contiguous, is given to
// at_attention and passed on as changed.
void attention_grad_at(gemm_hook* hook, int layer, attention_point point, torch::Tensor& t);

// softmax(mask(scores / sqrt(head_width)), -1) in fp32, with the points
// softmax_in, row_max and row_sum (explicit only), probs and probs_grad.
// explicit_softmax: max (not differentiated: the result does not depend on
// it), exp(x - max), sum, divide; else torch::softmax.
torch::Tensor attention_probs(const torch::Tensor& scores, const torch::Tensor& causal, int64_t head_width, int layer,
                              gemm_hook* hook, bool explicit_softmax);

}  // namespace sdc::train
