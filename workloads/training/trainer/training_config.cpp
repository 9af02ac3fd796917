#include "workloads/training/trainer/training_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "foundation/errors.hpp"
#include "foundation/io/input_schemas.hpp"
#include "foundation/io/json_schema.hpp"

namespace sdc::train {
namespace {

using json = nlohmann::json;

// The configuration's values, read after the schema checked them
// (suites/schema/training-config-1.schema.json): a field left out keeps its default.
template <class T>
T get(const json& obj, const char* key, T def) {
  return obj.is_object() && obj.contains(key) && !obj[key].is_null() ? obj[key].get<T>() : def;
}

optim_config parse_optim(const json& o, optim_config c) {
  c.lr = get(o, "lr", c.lr);
  c.min_lr_ratio = get(o, "min_lr_ratio", c.min_lr_ratio);
  c.warmup = get(o, "warmup", c.warmup);
  c.weight_decay = get(o, "weight_decay", c.weight_decay);
  c.beta1 = get(o, "beta1", c.beta1);
  c.beta2 = get(o, "beta2", c.beta2);
  c.eps = get(o, "eps", c.eps);
  c.clip = get(o, "clip", c.clip);
  return c;
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
  static const json_schema schema(json::parse(training_config_schema_text()));
  schema.check(j, file);
  auto fail = [&](const std::string& field, const std::string& expected) -> void { throw input_error(file, field, expected); };
  train_config c;
  const json none = json::object();
  const json& m = j.contains("model") && !j["model"].is_null() ? j["model"] : none;
  c.model.layers = get(m, "layers", c.model.layers);
  c.model.width = get(m, "width", c.model.width);
  c.model.heads = get(m, "heads", c.model.heads);
  c.model.seq = get(m, "seq", c.model.seq);
  c.model.tied_head = get(m, "tied_head", c.model.tied_head);
  c.model.rmsnorm = get<std::string>(m, "norm", "layernorm") == "rmsnorm";
  c.model.dropout = get(m, "dropout", c.model.dropout);
  const std::string precision = get<std::string>(m, "precision", "fp32");
  c.model.bf16 = precision == "bf16" || precision == "mxfp8";
  c.model.mxfp8 = precision == "mxfp8";
  c.model.mx_microxcaling = get<std::string>(m, "mxfp8_recipe", "transformer_engine") == "microxcaling";
  if (m.contains("mxfp8_recipe") && !c.model.mxfp8) fail("/model/mxfp8_recipe", "only with precision mxfp8");
  c.model.swiglu = get<std::string>(m, "mlp", "gelu") == "swiglu";
  c.model.rope = get<std::string>(m, "positions", "learned") == "rope";
  c.model.bias = get(m, "bias", c.model.bias);
  c.model.ffn = get(m, "ffn", c.model.ffn);
  if (c.model.rope && (c.model.width / c.model.heads) % 2 != 0)
    fail("/model/positions", fmt::format("rope needs an even head width; width {} / heads {} is odd", c.model.width, c.model.heads));
  if (c.model.width % c.model.heads != 0)
    fail("/model/heads", fmt::format("a divisor of width {}; got {}", c.model.width, c.model.heads));
  // Four width^2 matrices of attention and the MLP's two or three width x ffn a block, and the embeddings.
  const double w = c.model.width, mlp = (c.model.swiglu ? 3.0 : 2.0) * w * c.model.ffn_width();
  const double params = c.model.layers * (4.0 * w * w + mlp) + double(c.model.vocab + c.model.seq) * w;
  if (params > 2e9)
    fail("/model/width", fmt::format("a model of at most 2e9 parameters (this machine's memory); layers {} x width {} make {:.3g}",
                                     c.model.layers, c.model.width, params));
  c.steps = get(j, "steps", c.steps);
  c.optim.total = c.steps;
  if (j.contains("optim")) c.optim = parse_optim(j["optim"], c.optim);
  c.dp.ranks = get(j, "ranks", c.dp.ranks);
  c.dp.micro_batch = get(j, "micro_batch", c.dp.micro_batch);
  c.dp.bf16_buckets = get<std::string>(j, "buckets", "fp32") == "bf16";
  c.dp.policy = parse_seed_policy(get<std::string>(j, "seed_policy", "S1-1"));  // one of the schema's three
  c.dp.seed = get<uint64_t>(j, "seed", 1);
  c.data = get(j, "data", c.data);
  if (c.data != "generated" && c.data != "corpus") c.data = resolve(c.data, base_dir);
  c.examples = get(j, "examples", c.examples);
  c.eval_examples = get(j, "eval_examples", c.eval_examples);
  c.tensor_norms = get(j, "tensor_norms", c.tensor_norms);
  c.consistency = get(j, "consistency", c.consistency);
  c.mpi = get<std::string>(j, "backend", "inprocess") == "mpi";
  c.ordered = get<std::string>(j, "reduction", "ordered") == "ordered";
  if (!c.mpi && !c.ordered) fail("/reduction", "ordered for backend inprocess (\"mpi\" is MPI's own algorithm)");
  c.cache_dir = resolve(get<std::string>(j, "cache_dir", ""), base_dir);
  c.pretrain.optim.lr = 3e-3;
  c.pretrain.optim.warmup = 20;
  if (j.contains("pretrain") && !j["pretrain"].is_null()) {
    const json& p = j["pretrain"];
    c.pretrain.corpus = resolve(get<std::string>(p, "corpus", ""), base_dir);
    c.pretrain.steps = get(p, "steps", c.pretrain.steps);
    c.pretrain.batch = get(p, "batch", c.pretrain.batch);
    c.pretrain.max_windows = get(p, "max_windows", c.pretrain.max_windows);
    c.pretrain.optim = parse_optim(p, c.pretrain.optim);
  }
  c.pretrain.optim.total = c.pretrain.steps;
  if (c.data == "corpus" && c.pretrain.corpus.empty())
    fail("/data", "\"corpus\" (windows of the pretraining corpus) only with pretrain.corpus set");
  return c;
}

json describe(const train_config& c) {
  const auto& m = c.model;
  auto optim = [](const optim_config& o) {
    return json{{"lr", o.lr}, {"min_lr_ratio", o.min_lr_ratio}, {"warmup", o.warmup}, {"total", o.total},
                {"weight_decay", o.weight_decay}, {"beta1", o.beta1}, {"beta2", o.beta2}, {"eps", o.eps}, {"clip", o.clip}};
  };
  json model = {{"layers", m.layers}, {"width", m.width}, {"heads", m.heads}, {"seq", m.seq}, {"vocab", m.vocab},
                {"tied_head", m.tied_head}, {"norm", m.rmsnorm ? "rmsnorm" : "layernorm"}, {"dropout", m.dropout},
                {"precision", m.mxfp8 ? "mxfp8" : m.bf16 ? "bf16" : "fp32"}};
  if (m.mx_microxcaling) model["mxfp8_recipe"] = "microxcaling";
  // The LLaMA-style fields only where they differ from the GPT-style defaults:
  // a configuration written before them keeps its description (and its hash,
  // which names the cached pretrained checkpoint).
  if (m.swiglu) model["mlp"] = "swiglu";
  if (m.rope) model["positions"] = "rope";
  if (!m.bias) model["bias"] = false;
  if (m.ffn > 0) model["ffn"] = m.ffn;
  return {{"model", model},
          {"optim", optim(c.optim)},
          {"ranks", c.dp.ranks}, {"micro_batch", c.dp.micro_batch}, {"buckets", c.dp.bf16_buckets ? "bf16" : "fp32"},
          {"seed_policy", seed_policy_name(c.dp.policy)}, {"seed", c.dp.seed}, {"steps", c.steps},
          {"backend", c.mpi ? "mpi" : "inprocess"}, {"reduction", c.ordered ? "ordered" : "mpi"},
          {"data", c.data}, {"examples", c.examples}, {"eval_examples", c.eval_examples},
          {"pretrain", {{"corpus", c.pretrain.corpus}, {"steps", c.pretrain.steps}, {"batch", c.pretrain.batch},
                        {"max_windows", c.pretrain.max_windows}, {"optim", optim(c.pretrain.optim)}}}};
}

}  // namespace sdc::train
