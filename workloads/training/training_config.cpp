#include "workloads/training/training_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "foundation/errors.hpp"

namespace sdc::train {
namespace {

using json = nlohmann::json;

// Reads the fields of one JSON object, each checked, and refuses fields it was not asked for.
class fields {
 public:
  fields(const json& j, std::string file, std::string path) : j_(j), file_(std::move(file)), path_(std::move(path)) {
    if (!j.is_object()) fail("", "an object");
  }
  ~fields() noexcept(false) {
    if (std::uncaught_exceptions()) return;
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key())) fail(it.key(), "no such field (known: " + known_ + ")");
  }
  // Upper bounds keep a hostile file from asking for a huge allocation (or
  // from wrapping when the value is stored as an int).
  int64_t integer(const char* k, int64_t def, int64_t min, int64_t max) {
    const json* v = get(k);
    if (!v) return def;
    const bool ok = v->is_number_unsigned() ? v->get<uint64_t>() <= uint64_t(max)
                                            : v->is_number_integer() && v->get<int64_t>() >= min && v->get<int64_t>() <= max;
    if (!ok || v->get<int64_t>() < min) fail(k, fmt::format("an integer in [{}, {}]; got {}", min, max, v->dump()));
    return v->get<int64_t>();
  }
  double number(const char* k, double def, double lo, double hi, const char* what) {
    const json* v = get(k);
    if (!v) return def;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < lo || v->get<double>() > hi)
      fail(k, fmt::format("{}; got {}", what, v->dump()));
    return v->get<double>();
  }
  bool boolean(const char* k, bool def) {
    const json* v = get(k);
    if (!v) return def;
    if (!v->is_boolean()) fail(k, "true or false; got " + v->dump());
    return v->get<bool>();
  }
  std::string text(const char* k, const std::string& def, std::initializer_list<const char*> choices = {}) {
    const json* v = get(k);
    if (!v) return def;
    std::string list;
    for (const char* c : choices) list += (list.empty() ? "" : " | ") + std::string(c);
    if (!v->is_string()) fail(k, (choices.size() ? list : std::string("a string")) + "; got " + v->dump());
    const std::string s = v->get<std::string>();
    if (choices.size() && std::none_of(choices.begin(), choices.end(), [&](const char* c) { return s == c; }))
      fail(k, list + "; got '" + s + "'");
    return s;
  }
  const json* object(const char* k) {
    const json* v = get(k);
    return v && !v->is_null() ? v : nullptr;
  }
  [[noreturn]] void fail(const std::string& k, const std::string& expected) const {
    throw input_error(file_, path_ + (k.empty() ? "" : (path_.empty() ? "" : ".") + k), expected);
  }
  const std::string& path() const { return path_; }

 private:
  const json* get(const char* k) {
    seen_.insert(k);
    known_ += (known_.empty() ? "" : ", ") + std::string(k);
    return j_.contains(k) ? &j_[k] : nullptr;
  }
  const json& j_;
  std::string file_, path_, known_;
  std::set<std::string> seen_;
};

optim_config parse_optim(fields& f, optim_config o) {
  o.lr = f.number("lr", o.lr, 1e-12, 10, "a learning rate in (0, 10]");
  o.min_lr_ratio = f.number("min_lr_ratio", o.min_lr_ratio, 0, 1, "a number in [0, 1]");
  o.warmup = f.integer("warmup", o.warmup, 0, 1000000000);
  o.weight_decay = f.number("weight_decay", o.weight_decay, 0, 10, "a number in [0, 10]");
  o.beta1 = f.number("beta1", o.beta1, 0, 0.999999, "a number in [0, 1)");
  o.beta2 = f.number("beta2", o.beta2, 0, 0.999999, "a number in [0, 1)");
  o.eps = f.number("eps", o.eps, 1e-30, 1, "a number in (0, 1]");
  o.clip = f.number("clip", o.clip, 0, 1e30, "a gradient-norm bound >= 0 (0: no clipping)");
  return o;
}

std::string resolve(const std::string& p, const std::string& base) {
  if (p.empty() || std::filesystem::path(p).is_absolute()) return p;
  return (std::filesystem::path(base) / p).string();
}

}  // namespace

std::string model_config::invalid() const {
  if (layers < 1) return fmt::format("layers: expected an integer >= 1; got {}", layers);
  if (width < 1 || heads < 1) return fmt::format("width, heads: expected integers >= 1; got {}, {}", width, heads);
  if (width % heads != 0) return fmt::format("heads: expected a divisor of width {}; got {}", width, heads);
  if (seq < 2) return fmt::format("seq: expected an integer >= 2; got {}", seq);
  if (!(dropout >= 0 && dropout < 1)) return fmt::format("dropout: expected a probability in [0, 1); got {}", dropout);
  return "";
}

std::string optim_config::invalid() const {
  if (!(lr > 0) || !std::isfinite(lr)) return fmt::format("lr: expected a finite number > 0; got {}", lr);
  if (!(min_lr_ratio >= 0 && min_lr_ratio <= 1)) return fmt::format("min_lr_ratio: expected a number in [0, 1]; got {}", min_lr_ratio);
  if (warmup < 0 || total < 1) return fmt::format("warmup, total: expected integers >= 0 and >= 1; got {}, {}", warmup, total);
  if (!(weight_decay >= 0)) return fmt::format("weight_decay: expected a number >= 0; got {}", weight_decay);
  if (!(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1)) return "beta1, beta2: expected numbers in [0, 1)";
  if (!(eps > 0)) return fmt::format("eps: expected a number > 0; got {}", eps);
  if (!(clip >= 0) || !std::isfinite(clip)) return fmt::format("clip: expected a number >= 0 (0: off); got {}", clip);
  return "";
}

double optim_config::lr_at(int64_t step) const {
  if (step < warmup) return lr * double(step + 1) / double(warmup);
  const double span = double(std::max<int64_t>(1, total - warmup));
  const double t = std::min(1.0, double(step - warmup) / span);
  const double min_lr = lr * min_lr_ratio;
  return min_lr + 0.5 * (lr - min_lr) * (1 + std::cos(M_PI * t));
}

seed_policy parse_seed_policy(const std::string& s) {
  if (s == "S1-1") return seed_policy::s1_1;
  if (s == "S1-2") return seed_policy::s1_2;
  if (s == "S1-3") return seed_policy::s1_3;
  throw value_error("expected S1-1 (every rank one seed), S1-2 (rank 0 another) or S1-3 (every rank its own); got '" + s + "'");
}
const char* seed_policy_name(seed_policy p) { return p == seed_policy::s1_1 ? "S1-1" : p == seed_policy::s1_2 ? "S1-2" : "S1-3"; }
uint64_t rank_seed(seed_policy p, uint64_t seed, int rank) {
  if (p == seed_policy::s1_2) return rank == 0 ? seed + 1 : seed;
  if (p == seed_policy::s1_3) return seed + uint64_t(rank);
  return seed;
}

train_config parse_train_config(const json& j, const std::string& file, const std::string& base_dir) {
  train_config c;
  fields f(j, file, "");
  if (const json* m = f.object("model")) {
    fields g(*m, file, "model");
    c.model.layers = int(g.integer("layers", c.model.layers, 1, 256));
    c.model.width = int(g.integer("width", c.model.width, 1, 65536));
    c.model.heads = int(g.integer("heads", c.model.heads, 1, 4096));
    c.model.seq = int(g.integer("seq", c.model.seq, 8, 65536));
    c.model.tied_head = g.boolean("tied_head", c.model.tied_head);
    c.model.rmsnorm = g.text("norm", "layernorm", {"layernorm", "rmsnorm"}) == "rmsnorm";
    c.model.dropout = g.number("dropout", c.model.dropout, 0, 0.95, "a probability in [0, 0.95]");
    c.model.bf16 = g.text("precision", "fp32", {"fp32", "bf16"}) == "bf16";
    if (c.model.width % c.model.heads != 0)
      g.fail("heads", fmt::format("a divisor of width {}; got {}", c.model.width, c.model.heads));
    // Twelve width^2 matrices a block (attention and a 4x MLP) and the embeddings.
    const double params = 12.0 * c.model.layers * double(c.model.width) * c.model.width + double(c.model.vocab + c.model.seq) * c.model.width;
    if (params > 2e9) g.fail("width", fmt::format("a model of at most 2e9 parameters (this machine's memory); layers {} x width {} make {:.3g}",
                                                   c.model.layers, c.model.width, params));
  }
  c.steps = f.integer("steps", c.steps, 1, 1000000000);
  c.optim.total = c.steps;
  if (const json* o = f.object("optim")) {
    fields g(*o, file, "optim");
    c.optim = parse_optim(g, c.optim);
  }
  c.dp.ranks = int(f.integer("ranks", c.dp.ranks, 1, 4096));
  c.dp.micro_batch = int(f.integer("micro_batch", c.dp.micro_batch, 1, 65536));
  c.dp.bf16_buckets = f.text("buckets", "fp32", {"fp32", "bf16"}) == "bf16";
  try {
    c.dp.policy = parse_seed_policy(f.text("seed_policy", "S1-1"));
  } catch (const value_error& e) {
    f.fail("seed_policy", e.what());
  }
  c.dp.seed = uint64_t(f.integer("seed", 1, 0, INT64_MAX));
  c.data = f.text("data", c.data);
  if (c.data != "generated") c.data = resolve(c.data, base_dir);
  c.examples = f.integer("examples", c.examples, 1, 10000000);
  c.eval_examples = f.integer("eval_examples", c.eval_examples, 1, 10000000);
  c.tensor_norms = f.boolean("tensor_norms", c.tensor_norms);
  c.consistency = f.boolean("consistency", c.consistency);
  c.mpi = f.text("backend", "inprocess", {"inprocess", "mpi"}) == "mpi";
  c.ordered = f.text("reduction", "ordered", {"ordered", "mpi"}) == "ordered";
  if (!c.mpi && !c.ordered) f.fail("reduction", "ordered for backend inprocess (\"mpi\" is MPI's own algorithm)");
  c.cache_dir = resolve(f.text("cache_dir", ""), base_dir);
  c.pretrain.optim.lr = 3e-3;
  c.pretrain.optim.warmup = 20;
  if (const json* p = f.object("pretrain")) {
    fields g(*p, file, "pretrain");
    c.pretrain.corpus = resolve(g.text("corpus", ""), base_dir);
    c.pretrain.steps = g.integer("steps", c.pretrain.steps, 1, 1000000000);
    c.pretrain.batch = int(g.integer("batch", c.pretrain.batch, 1, 65536));
    c.pretrain.max_windows = g.integer("max_windows", c.pretrain.max_windows, 1, 100000000);
    c.pretrain.optim = parse_optim(g, c.pretrain.optim);
  }
  c.pretrain.optim.total = c.pretrain.steps;
  return c;
}

json describe(const train_config& c) {
  const auto& m = c.model;
  auto optim = [](const optim_config& o) {
    return json{{"lr", o.lr}, {"min_lr_ratio", o.min_lr_ratio}, {"warmup", o.warmup}, {"total", o.total},
                {"weight_decay", o.weight_decay}, {"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}, {"clip", o.clip}};
  };
  return {{"model", {{"layers", m.layers}, {"width", m.width}, {"heads", m.heads}, {"seq", m.seq}, {"vocab", m.vocab},
                     {"tied_head", m.tied_head}, {"norm", m.rmsnorm ? "rmsnorm" : "layernorm"}, {"dropout", m.dropout},
                     {"precision", m.bf16 ? "bf16" : "fp32"}}},
          {"optim", optim(c.optim)},
          {"ranks", c.dp.ranks}, {"micro_batch", c.dp.micro_batch}, {"buckets", c.dp.bf16_buckets ? "bf16" : "fp32"},
          {"seed_policy", seed_policy_name(c.dp.policy)}, {"seed", c.dp.seed}, {"steps", c.steps},
          {"backend", c.mpi ? "mpi" : "inprocess"}, {"reduction", c.ordered ? "ordered" : "mpi"},
          {"data", c.data}, {"examples", c.examples}, {"eval_examples", c.eval_examples},
          {"pretrain", {{"corpus", c.pretrain.corpus}, {"steps", c.pretrain.steps}, {"batch", c.pretrain.batch},
                        {"max_windows", c.pretrain.max_windows}, {"optim", optim(c.pretrain.optim)}}}};
}

}  // namespace sdc::train
