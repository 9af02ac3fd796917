#include "workloads/training/trainer/training_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "workloads/training/trainer/torch_numerics.hpp"

namespace sdc::train {
namespace {

using json = nlohmann::json;

std::string cache_folder(const train_config& c) {
  if (!c.cache_dir.empty()) return c.cache_dir;
  if (const char* e = std::getenv("SDCBENCH_CACHE"); e && *e) return e;
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/sdcbench";
}

}  // namespace

// data "corpus": continued pretraining on the corpus, its last 1 % held out
// (so the validation loss is on text no step trained on, pretraining included).
static std::pair<std::string, std::string> split_corpus(const std::string& text) {
  const size_t cut = text.size() - text.size() / 100;
  return {text.substr(0, cut), text.substr(cut)};
}

train_data load_train_data(const train_config& c) {
  train_data d;
  if (c.data == "corpus") {
    const auto [train, held] = split_corpus(read_corpus(c.pretrain.corpus));
    d.train = text_dataset(train, c.model.seq, c.examples);
    d.eval = text_dataset(held, c.model.seq, c.eval_examples);
  } else if (c.data == "generated") {
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
         {"init_seed", c.dp.seed}, {"aten_cpu_capability", torch_numerics()["aten_cpu_capability"]},
         {"format", 3}};  // 3: GEMMs on the fixed-order kernel, ATen at avx2, oneDNN off (torch_numerics.hpp)
  if (c.data == "corpus") key["held_out_tail"] = true;  // pretrained on split_corpus's first part only
  const std::string hash = sha256_hex(key.dump()).substr(0, 16);
  const std::string folder = cache_folder(c);
  const std::string path = folder + "/pretrain-" + hash + ".pt";
  if (cache_path) *cache_path = path;
  replica r;
  if (std::filesystem::exists(path + ".json")) {
    r = load_checkpoint(c.model, path, hash);
  } else {
    const dataset windows = text_dataset(c.data == "corpus" ? split_corpus(text).first : text, c.model.seq, c.pretrain.max_windows);
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
