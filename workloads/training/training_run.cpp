#include "workloads/training/training_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "harness/errors.hpp"
#include "harness/io/digest.hpp"

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
  int64_t integer(const char* k, int64_t def, int64_t min) {
    const json* v = get(k);
    if (!v) return def;
    if (!v->is_number_integer() || v->get<int64_t>() < min) fail(k, fmt::format("an integer >= {}; got {}", min, v->dump()));
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
  o.warmup = f.integer("warmup", o.warmup, 0);
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

std::string cache_folder(const train_config& c) {
  if (!c.cache_dir.empty()) return c.cache_dir;
  if (const char* e = std::getenv("SDCBENCH_CACHE"); e && *e) return e;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/sdcbench";
}

}  // namespace

train_config parse_train_config(const json& j, const std::string& file, const std::string& base_dir) {
  train_config c;
  fields f(j, file, "");
  if (const json* m = f.object("model")) {
    fields g(*m, file, "model");
    c.model.layers = int(g.integer("layers", c.model.layers, 1));
    c.model.width = int(g.integer("width", c.model.width, 1));
    c.model.heads = int(g.integer("heads", c.model.heads, 1));
    c.model.seq = int(g.integer("seq", c.model.seq, 8));
    c.model.tied_head = g.boolean("tied_head", c.model.tied_head);
    c.model.rmsnorm = g.text("norm", "layernorm", {"layernorm", "rmsnorm"}) == "rmsnorm";
    c.model.dropout = g.number("dropout", c.model.dropout, 0, 0.95, "a probability in [0, 0.95]");
    c.model.bf16 = g.text("precision", "fp32", {"fp32", "bf16"}) == "bf16";
    if (c.model.width % c.model.heads != 0)
      g.fail("heads", fmt::format("a divisor of width {}; got {}", c.model.width, c.model.heads));
  }
  c.steps = f.integer("steps", c.steps, 1);
  c.optim.total = c.steps;
  if (const json* o = f.object("optim")) {
    fields g(*o, file, "optim");
    c.optim = parse_optim(g, c.optim);
  }
  c.dp.ranks = int(f.integer("ranks", c.dp.ranks, 1));
  c.dp.micro_batch = int(f.integer("micro_batch", c.dp.micro_batch, 1));
  c.dp.bf16_buckets = f.text("buckets", "fp32", {"fp32", "bf16"}) == "bf16";
  try {
    c.dp.policy = parse_seed_policy(f.text("seed_policy", "S1-1"));
  } catch (const value_error& e) {
    f.fail("seed_policy", e.what());
  }
  c.dp.seed = uint64_t(f.integer("seed", 1, 0));
  c.data = f.text("data", c.data);
  if (c.data != "generated") c.data = resolve(c.data, base_dir);
  c.examples = f.integer("examples", c.examples, 1);
  c.eval_examples = f.integer("eval_examples", c.eval_examples, 1);
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
    c.pretrain.steps = g.integer("steps", c.pretrain.steps, 1);
    c.pretrain.batch = int(g.integer("batch", c.pretrain.batch, 1));
    c.pretrain.max_windows = g.integer("max_windows", c.pretrain.max_windows, 1);
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

train_data load_train_data(const train_config& c) {
  train_data d;
  if (c.data == "generated") {
    d.train = instruction_dataset(generate_instructions(c.examples, c.dp.seed ^ 0x5eedda7aull), c.model.seq);
    d.eval = instruction_dataset(generate_instructions(c.eval_examples, c.dp.seed ^ 0xe7a1ull), c.model.seq);
  } else {
    auto ex = read_alpaca(c.data);
    if (int64_t(ex.size()) < c.eval_examples + c.dp.ranks)
      throw input_error(c.data, "(top level)", fmt::format("at least {} examples ({} held out for evaluation and one per rank); got {}",
                                                           c.eval_examples + c.dp.ranks, c.eval_examples, ex.size()));
    std::vector<instruction_example> held(ex.end() - c.eval_examples, ex.end());
    ex.resize(ex.size() - size_t(c.eval_examples));
    d.train = instruction_dataset(ex, c.model.seq);
    d.eval = instruction_dataset(held, c.model.seq);
  }
  if (int64_t(d.train.samples.size()) < c.dp.ranks)
    throw input_error(c.data, "ranks", fmt::format("at most as many ranks as training examples ({}); got {}", d.train.samples.size(), c.dp.ranks));
  return d;
}

replica pretrained_start(const train_config& c, std::string* cache_path) {
  if (c.pretrain.corpus.empty()) return fresh_replica(c.model, c.dp.seed);
  const std::string text = read_corpus(c.pretrain.corpus);
  json key = describe(c);
  key = {{"model", key["model"]}, {"pretrain", key["pretrain"]}, {"corpus_sha256", sha256_hex(text)},
         {"init_seed", c.dp.seed}, {"format", 1}};
  const std::string hash = sha256_hex(key.dump()).substr(0, 16);
  const std::string folder = cache_folder(c);
  const std::string path = folder + "/pretrain-" + hash + ".pt";
  if (cache_path) *cache_path = path;
  replica r;
  if (std::filesystem::exists(path + ".json")) {
    r = load_checkpoint(c.model, path, hash);
  } else {
    const dataset windows = text_dataset(text, c.model.seq, c.pretrain.max_windows);
    dp_config one;
    one.ranks = 1, one.micro_batch = c.pretrain.batch, one.seed = c.dp.seed;
    dp_trainer t(c.model, c.pretrain.optim, one, &windows);
    t.start_from(fresh_replica(c.model, c.dp.seed));
    for (int64_t s = 0; s < c.pretrain.steps; ++s) t.step();
    r = t.replicas()[0];
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) throw input_error(folder, "cache_dir", "a folder sdcbench can create and write (" + ec.message() + ")");
    save_checkpoint(r, path, hash);
  }
  // Fine-tuning starts with fresh optimizer state and step 0.
  replica start = fresh_replica(c.model, c.dp.seed);
  torch::NoGradGuard ng;
  for (size_t i = 0; i < start.params.tensors.size(); ++i) start.params.tensors[i].copy_(r.params.tensors[i]);
  return start;
}

double eval_loss(const model_config& m, const param_set& p, const dataset& d) {
  torch::NoGradGuard ng;
  const int64_t B = int64_t(d.samples.size()), T = m.seq;
  torch::Tensor in = torch::empty({B, T}, torch::kLong), tg = torch::empty({B, T}, torch::kLong), mk = torch::empty({B, T});
  auto a = in.accessor<int64_t, 2>();
  auto b = tg.accessor<int64_t, 2>();
  auto k = mk.accessor<float, 2>();
  for (int64_t i = 0; i < B; ++i)
    for (int64_t t = 0; t < T; ++t) {
      const auto& s = d.samples[size_t(i)];
      a[i][t] = s.tokens[size_t(t)], b[i][t] = s.tokens[size_t(t) + 1], k[i][t] = float(s.loss_mask[size_t(t)]);
    }
  forward_options fo;
  fo.training = false;
  return masked_loss(forward(m, p, in, fo), tg, mk).item<double>();
}

}  // namespace sdc::train
