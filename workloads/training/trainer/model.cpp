#include "workloads/training/trainer/model.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <mpfr.h>
#include <mutex>

#include "workloads/training/trainer/attention.hpp"
#include "workloads/training/trainer/fixed_gemm.hpp"
#include "workloads/training/trainer/mx_linear.hpp"

namespace sdc::train {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

void copy_rows(const Tensor& t, std::vector<float>& to) {  // converted and laid out row-major in one pass
  to.resize(size_t(t.numel()));
  if (to.empty()) return;
  torch::from_blob(to.data(), t.sizes(), torch::kFloat).copy_(t.detach());
}

// One linear GEMM: MXFP8's (mx not null), the hook's (a check fused into it)
// or mixed_mm's; then shown to the hook with the operands as it read them.
Tensor product(gemm_hook* h, const mx_recipe* mx, int linear, gemm_pass pass, const Tensor& a, const Tensor& b) {
  Tensor out;
  if (mx) {
    mx_operands read;
    out = mx_mm(a, b, *mx, linear, pass, h, h ? &read : nullptr);
    if (h) h->after_gemm(linear, pass, read.a_values, read.b_values, out);
    return out;
  }
  if (!h || !h->run_gemm(linear, pass, a, b, out)) out = mixed_mm(a, b);
  if (h) h->after_gemm(linear, pass, a, b, out);
  return out;
}

// y = x w^T + b with the GEMMs of forward and backward written out, so a
// gemm_hook sees each output (PyTorch's torch.nn.functional.linear computes the
// same three products).
struct linear_fn : torch::autograd::Function<linear_fn> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w, Tensor b, int64_t linear, int64_t hook_addr, int64_t mx_addr) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["linear"] = linear;
    ctx->saved_data["hook"] = hook_addr;
    ctx->saved_data["mx"] = mx_addr;
    ctx->saved_data["bias"] = b.numel() > 0;
    // The GEMM alone, then the bias: the hook sees C = A B exactly (a checksum
    // check of C needs no bias term), as a fault "after the matmul" lands.
    const Tensor wt = w.t();
    auto* h = reinterpret_cast<gemm_hook*>(hook_addr);
    const auto* mx = reinterpret_cast<const mx_recipe*>(mx_addr);
    Tensor y = product(h, mx, int(linear), gemm_pass::forward, x, wt);
    return b.numel() > 0 ? y + b : y;
  }
  static tensor_list backward(AutogradContext* ctx, tensor_list g) {
    const auto saved = ctx->get_saved_variables();
    const Tensor& x = saved[0];
    const Tensor& w = saved[1];
    const int linear = int(ctx->saved_data["linear"].toInt());
    auto* h = reinterpret_cast<gemm_hook*>(ctx->saved_data["hook"].toInt());
    const auto* mx = reinterpret_cast<const mx_recipe*>(ctx->saved_data["mx"].toInt());
    const Tensor go = g[0].contiguous();
    Tensor gx = product(h, mx, linear, gemm_pass::grad_input, go, w);
    const Tensor got = go.t();
    Tensor gw = product(h, mx, linear, gemm_pass::grad_weight, got, x);
    Tensor gb = ctx->saved_data["bias"].toBool() ? go.sum(0) : Tensor();
    return {gx, gw, gb, Tensor(), Tensor(), Tensor()};
  }
};

struct forward_state {
  const model_config& c;
  const param_set& p;
  const forward_options& o;
  int next_linear = 0;

  const Tensor& at(const std::string& name) const { return p.tensors[size_t(p.index_of(name))]; }
  Tensor gemm_in(const Tensor& t) const { return c.bf16 ? t.to(torch::kBFloat16) : t; }

  // x [..., in] -> [..., out]; weight [out, in]; bias optional (libtorch 1.13's
  // custom functions take no undefined tensors: "no bias" is an empty one).
  Tensor linear(const Tensor& x, const Tensor& w, const Tensor& b) {
    const int id = next_linear++;
    auto sizes = x.sizes().vec();
    const Tensor x2 = gemm_in(x).reshape({-1, sizes.back()});
    const Tensor y = hooked_linear(x2, gemm_in(w), b.defined() ? gemm_in(b) : torch::empty({0}, w.options().requires_grad(false)),
                                   id, o.hook, c.mxfp8 ? &mx_recipe_of(c) : nullptr);
    sizes.back() = w.size(0);
    return y.reshape(sizes);
  }
  Tensor linear(const Tensor& x, const std::string& name) {
    return linear(x, at(name + ".weight"), c.bias ? at(name + ".bias") : Tensor());
  }

  Tensor norm(const Tensor& x, const std::string& name) const {
    const Tensor xf = x.to(torch::kFloat);
    if (c.rmsnorm) return xf * torch::rsqrt(xf.pow(2).mean(-1, true) + 1e-6) * at(name + ".weight");
    return torch::layer_norm(xf, {c.width}, at(name + ".weight"), at(name + ".bias"), 1e-5);
  }

  Tensor dropout(const Tensor& x) const {
    if (!o.training || c.dropout <= 0) return x;
    const Tensor keep = at::bernoulli(torch::full(x.sizes(), 1.0 - c.dropout, x.options().dtype(torch::kFloat)),
                                      *o.dropout_gen);
    return x * keep.to(x.scalar_type()) / (1.0 - c.dropout);
  }
};

}  // namespace

int64_t param_set::index_of(const std::string& name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return int64_t(i);
  return -1;
}

int64_t param_set::numel() const {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

param_set param_set::clone() const {
  param_set c;
  c.names = names;
  for (const auto& t : tensors) c.tensors.push_back(t.detach().clone().set_requires_grad(t.requires_grad()));
  return c;
}

torch::Tensor hooked_linear(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, int id, gemm_hook* hook,
                            const mx_recipe* mx) {
  return linear_fn::apply(x, w, b, int64_t(id), int64_t(reinterpret_cast<intptr_t>(hook)), int64_t(reinterpret_cast<intptr_t>(mx)));
}

sdc::gemm_record gemm_record_of(int linear, gemm_pass pass, const Tensor& a, const Tensor& b, const Tensor& out) {
  sdc::gemm_record g;
  g.linear = linear, g.pass = int(pass), g.bf16 = out.scalar_type() == torch::kBFloat16;
  g.m = a.size(0), g.k = a.size(1), g.n = b.size(1);
  copy_rows(a, g.a), copy_rows(b, g.b), copy_rows(out, g.c);
  return g;
}

sdc::gemm_record batched_record_of(int layer, int pass, const Tensor& a, const Tensor& b, const Tensor& out) {
  sdc::gemm_record g;
  g.linear = layer, g.pass = pass;
  g.bf16 = a.scalar_type() == torch::kBFloat16 && b.scalar_type() == torch::kBFloat16;  // asd.py: both operands bf16
  g.m = a.size(-2), g.k = a.size(-1), g.n = b.size(-1);
  g.batch = g.m * g.n == 0 ? 0 : out.numel() / (g.m * g.n);
  copy_rows(a, g.a), copy_rows(b, g.b), copy_rows(out, g.c);
  return g;
}

const char* gemm_pass_name(gemm_pass p) {
  switch (p) {
    case gemm_pass::forward: return "forward";
    case gemm_pass::grad_input: return "grad_input";
    case gemm_pass::grad_weight: return "grad_weight";
  }
  return "?";
}

std::vector<std::string> linear_names(const model_config& c) {
  std::vector<std::string> n;
  const std::vector<const char*> mlp = c.swiglu ? std::vector<const char*>{"mlp.gate", "mlp.up", "mlp.down"}
                                                : std::vector<const char*>{"mlp.fc1", "mlp.fc2"};
  for (int l = 0; l < c.layers; ++l) {
    for (const char* s : {"attn.qkv", "attn.proj"}) n.push_back(fmt::format("blocks.{}.{}", l, s));
    for (const char* s : mlp) n.push_back(fmt::format("blocks.{}.{}", l, s));
  }
  n.push_back("head");
  return n;
}

namespace {
torch::Tensor compute_rope_table(int64_t seq, int64_t head_width) {
  // cos and sin of t * 10000^(-2i/D) for t < seq, i < D/2 (LLaMA's theta),
  // each correctly rounded to fp32 by MPFR: glibc's cos and sin have
  // CPU-dependent variants, and the table must be the same on every CPU.
  const int64_t half = head_width / 2;
  torch::Tensor t = torch::empty({2, seq, half}, torch::kFloat);
  auto a = t.accessor<float, 3>();
  mpfr_t x, f, v;
  mpfr_inits2(128, x, f, v, (mpfr_ptr)nullptr);
  for (int64_t i = 0; i < half; ++i) {
    mpfr_set_si(f, -2 * i, MPFR_RNDN);
    mpfr_div_si(f, f, head_width, MPFR_RNDN);
    mpfr_ui_pow(f, 10000, f, MPFR_RNDN);  // the inverse frequency
    for (int64_t p = 0; p < seq; ++p) {
      mpfr_mul_si(x, f, p, MPFR_RNDN);
      mpfr_cos(v, x, MPFR_RNDN);
      a[0][p][i] = mpfr_get_flt(v, MPFR_RNDN);
      mpfr_sin(v, x, MPFR_RNDN);
      a[1][p][i] = mpfr_get_flt(v, MPFR_RNDN);
    }
  }
  mpfr_clears(x, f, v, (mpfr_ptr)nullptr);
  return t;
}
}  // namespace

torch::Tensor rope_table(int64_t seq, int64_t head_width) {
  // Computed once per shape: MPFR's 128-bit cos and sin in every forward pass
  // were a tenth of a smoke-scale training campaign's time. Callers only read it.
  static std::mutex m;
  static std::map<std::pair<int64_t, int64_t>, torch::Tensor> tables;
  const std::lock_guard<std::mutex> lock(m);
  torch::Tensor& t = tables[{seq, head_width}];
  if (!t.defined()) t = compute_rope_table(seq, head_width);
  return t;
}

torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& table) {
  // x [B, H, T, D], rotated in fp32 as LLaMA's rotate_half pairs element i with i + D/2.
  const int64_t T = x.size(2), half = x.size(3) / 2;
  const torch::Tensor xf = x.to(torch::kFloat);
  const torch::Tensor c = table[0].slice(0, 0, T), s = table[1].slice(0, 0, T);
  const torch::Tensor x1 = xf.slice(-1, 0, half), x2 = xf.slice(-1, half);
  return torch::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
}

param_set init_params(const model_config& c, at::Generator& gen) {
  param_set p;
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat);
  auto add = [&](const std::string& name, std::vector<int64_t> shape, double std_or_fill, bool normal) {
    Tensor t = torch::empty(shape, f32);
    if (normal) t.normal_(0.0, std_or_fill, gen);
    else t.fill_(std_or_fill);
    p.names.push_back(name);
    p.tensors.push_back(t.set_requires_grad(true));
  };
  const int64_t w = c.width, f = c.ffn_width();
  const double proj_std = 0.02 / std::sqrt(2.0 * c.layers);  // GPT-2's scaled residual projections
  add("tok_emb", {c.vocab, w}, 0.02, true);
  if (!c.rope) add("pos_emb", {c.seq, w}, 0.01, true);
  auto norm = [&](const std::string& n) {
    add(n + ".weight", {w}, 1.0, false);
    if (!c.rmsnorm) add(n + ".bias", {w}, 0.0, false);
  };
  auto linear = [&](const std::string& n, int64_t out, int64_t in, double std) {
    add(n + ".weight", {out, in}, std, true);
    if (c.bias) add(n + ".bias", {out}, 0.0, false);
  };
  for (int l = 0; l < c.layers; ++l) {
    const std::string b = fmt::format("blocks.{}.", l);
    norm(b + "norm1");
    linear(b + "attn.qkv", 3 * w, w, 0.02);
    linear(b + "attn.proj", w, w, proj_std);
    norm(b + "norm2");
    if (c.swiglu) {
      linear(b + "mlp.gate", f, w, 0.02);
      linear(b + "mlp.up", f, w, 0.02);
      linear(b + "mlp.down", w, f, proj_std);
    } else {
      linear(b + "mlp.fc1", f, w, 0.02);
      linear(b + "mlp.fc2", w, f, proj_std);
    }
  }
  norm("norm_f");
  if (!c.tied_head) add("head.weight", {c.vocab, w}, 0.02, true);
  return p;
}

Tensor forward(const model_config& c, const param_set& p, const Tensor& tokens, const forward_options& o) {
  forward_state s{c, p, o};
  const int64_t B = tokens.size(0), T = tokens.size(1), H = c.heads, D = c.width / c.heads;
  Tensor x = torch::embedding(s.at("tok_emb"), tokens);
  if (!c.rope) x = x + s.at("pos_emb").slice(0, 0, T);
  x = s.dropout(x);
  const Tensor rope = c.rope ? rope_table(c.seq, D) : Tensor();
  const Tensor causal = torch::ones({T, T}, torch::kBool).triu(1);
  for (int l = 0; l < c.layers; ++l) {
    const std::string b = fmt::format("blocks.{}.", l);
    const Tensor qkv = s.linear(s.norm(x, b + "norm1"), b + "attn.qkv").view({B, T, 3, H, D}).permute({2, 0, 3, 1, 4});
    const Tensor q = c.rope ? s.gemm_in(apply_rope(qkv[0], rope)) : qkv[0], k = c.rope ? s.gemm_in(apply_rope(qkv[1], rope)) : qkv[1],
                 v = qkv[2];
    const Tensor kt = k.transpose(-2, -1);
    Tensor scores = mixed_matmul(q, kt);
    if (o.hook) o.hook->after_attention(l, sdc::k_attention_scores, q, kt, scores);
    attention_point_at(o.hook, l, attention_point::scores, scores);
    attention_grad_at(o.hook, l, attention_point::scores_grad, scores);
    const Tensor p = s.gemm_in(s.dropout(attention_probs(scores, causal, D, l, o.hook, c.explicit_softmax)));
    Tensor context = mixed_matmul(p, v);
    if (o.hook) o.hook->after_attention(l, sdc::k_attention_context, p, v, context);
    attention_point_at(o.hook, l, attention_point::context, context);
    attention_grad_at(o.hook, l, attention_point::context_grad, context);
    const Tensor y = context.transpose(1, 2).reshape({B, T, c.width});
    x = x + s.dropout(s.linear(y, b + "attn.proj"));
    const Tensor n2 = s.norm(x, b + "norm2");
    if (c.swiglu) {  // LLaMA's MLP: down(silu(gate x) * up x), the gate's activation in fp32
      const Tensor g = s.linear(n2, b + "mlp.gate"), u = s.linear(n2, b + "mlp.up");
      x = x + s.dropout(s.linear(torch::silu(g.to(torch::kFloat)) * u.to(torch::kFloat), b + "mlp.down"));
    } else {
      const Tensor h = torch::gelu(s.linear(n2, b + "mlp.fc1"));
      x = x + s.dropout(s.linear(h, b + "mlp.fc2"));
    }
  }
  x = s.norm(x, "norm_f");
  const Tensor& head = c.tied_head ? s.at("tok_emb") : s.at("head.weight");
  return s.linear(x, head, Tensor()).to(torch::kFloat);
}

Tensor masked_loss(const Tensor& logits, const Tensor& targets, const Tensor& mask) {
  const int64_t V = logits.size(-1);
  const Tensor per_token = torch::nn::functional::cross_entropy(
      logits.reshape({-1, V}), targets.reshape({-1}),
      torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  const Tensor m = mask.reshape({-1}).to(torch::kFloat);
  return (per_token * m).sum() / m.sum().clamp_min(1.0);
}

}  // namespace sdc::train
