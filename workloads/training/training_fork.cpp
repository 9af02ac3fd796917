#include "workloads/training/training_fork.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "foundation/io/json_file.hpp"
#include "workloads/training/outcome_labels.hpp"

namespace sdc::train {
namespace {

// Copies each rank's loss and gradients before the all-reduce of the warm-up steps.
class history_recorder final : public step_observer {
 public:
  history_recorder(fork_point& f, int ranks) : f_(f), ranks_(ranks) {}
  void optimizer_grads(int64_t, int rank, const torch::Tensor& g) override {
    f_.history.back()[size_t(rank)].reduced_grad_norm = norm_of(g);
  }
  void grads_ready(int64_t step, int rank, replica& rep) override {
    if (rank == 0) f_.history.emplace_back(size_t(ranks_));
    training_step& v = f_.history.back()[size_t(rank)];
    v.rank = rank, v.step = step, v.layout = &f_.layout;
    for (const auto& t : rep.params.tensors) {
      const auto g = t.grad().contiguous();
      v.grads.insert(v.grads.end(), g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
    }
  }

 private:
  fork_point& f_;
  int ranks_;
};

}  // namespace

double norm_of(const torch::Tensor& flat) {
  const torch::Tensor f = flat.contiguous();
  const float* x = f.data_ptr<float>();
  double sq = 0;
  for (int64_t i = 0; i < f.numel(); ++i) sq += double(x[i]) * double(x[i]);
  return std::sqrt(sq);
}


// Fork k warms up from the pretrained start with the configuration's seed policy
// and its seed mixed with k (fork 0: the configuration's seed), so forks are
// independent runs; a cell's seed policy applies from the fork on (begin()),
// so the policies of one fork share its checkpoint and history.
std::shared_ptr<const fork_point> fork_for(const std::string& config_path, int64_t warmup, int64_t fork) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const fork_point>> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = config_path + "#" + std::to_string(warmup) + "#" + std::to_string(fork);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto f = std::make_shared<fork_point>();
  f->config = parse_train_config(read_json_file(config_path), config_path,
                                 std::filesystem::path(config_path).parent_path().string());
  f->data = load_train_data(f->config);
  dp_config warm = f->config.dp;  // the data and the pretrained start stay the configuration's
  if (fork > 0) warm.seed ^= uint64_t(fork) * 0xd1b54a32d192ed03ull;
  dp_trainer t(f->config.model, f->config.optim, warm, &f->data.train);
  t.start_from(pretrained_start(f->config));
  history_recorder rec(*f, f->config.dp.ranks);
  for (int64_t s = 0; s < warmup; ++s) {
    const step_record r = t.step(&rec);
    for (size_t k = 0; k < r.loss.size(); ++k) f->history.back()[k].loss = r.loss[k];
  }
  f->start = t.replicas()[0].clone();
  const auto& p = f->start.params;
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    f->layout.names.push_back(p.names[i]);
    f->layout.offsets.push_back(f->layout.numel);
    f->layout.shapes.push_back(p.tensors[i].sizes().vec());
    f->layout.numel += p.tensors[i].numel();
  }
  f->layout.linears = linear_names(f->config.model);
  cache[key] = f;
  return f;
}


std::vector<double> mean_losses(dp_trainer& t, int64_t steps) {
  std::vector<double> out;
  for (int64_t s = 0; s < steps; ++s) {
    const step_record rec = t.step();
    double mean = 0;
    for (double l : rec.loss) mean += l / double(rec.loss.size());
    out.push_back(mean);
  }
  return out;
}

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b); }


std::shared_ptr<const natural_reference> natural_for(const fork_point& f, const std::string& fork_key, const dp_config& dp,
                                                     int64_t horizon, int64_t runs) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const natural_reference>> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = fork_key + "#" + seed_policy_name(dp.policy) + "#" + std::to_string(horizon) + "#" +
                          std::to_string(runs) + "#" + std::to_string(dp.seed);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<param_set> params;
  std::vector<double> losses, val;
  std::vector<std::vector<double>> curves;
  for (int64_t r = 0; r < runs; ++r) {
    dp_config d = dp;
    d.epoch_offset = int64_t(1ull << 40) + r * 1000;
    d.seed = dp.seed ^ (uint64_t(r + 1) * 0xa0761d6478bd642full);
    dp_trainer t(f.config.model, f.config.optim, d, &f.data.train);
    t.start_from(f.start);
    curves.push_back(mean_losses(t, horizon));
    params.push_back(t.replicas()[0].params.clone());
    losses.push_back(curves.back().back());
    val.push_back(eval_loss(f.config.model, params.back(), f.data.eval));
  }
  std::vector<double> dp_, dl;
  for (int64_t i = 0; i < runs; ++i)
    for (int64_t j = i + 1; j < runs; ++j) {
      dp_.push_back(distance(params[size_t(i)], params[size_t(j)]));
      dl.push_back(std::fabs(losses[size_t(i)] - losses[size_t(j)]) / std::fabs(losses[size_t(j)]));
    }
  auto ref = std::make_shared<natural_reference>();
  ref->pairs = int64_t(dp_.size());
  ref->param_p99 = nearest_rank(dp_, 0.99), ref->loss_p99 = nearest_rank(dl, 0.99);
  ref->bands = bands_of(curves, val);
  cache[key] = ref;
  return ref;
}

bool same_bits(const param_set& a, const param_set& b) {
  if (a.tensors.size() != b.tensors.size()) return false;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const torch::Tensor x = a.tensors[i].detach().contiguous(), y = b.tensors[i].detach().contiguous();
    if (x.scalar_type() != y.scalar_type() || !x.sizes().equals(y.sizes())) return false;
    if (std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) != 0) return false;
  }
  return true;
}

double worst_eval_loss(const fork_point& f, const std::vector<replica>& reps, const param_set& twin, double twin_val) {
  std::vector<std::pair<const param_set*, double>> evaluated{{&twin, twin_val}};
  double worst = 0;
  for (const auto& r : reps) {
    auto same =
        std::find_if(evaluated.begin(), evaluated.end(), [&](const auto& e) { return same_bits(r.params, *e.first); });
    if (same == evaluated.end())
      same = evaluated.insert(evaluated.end(), {&r.params, eval_loss(f.config.model, r.params, f.data.eval)});
    worst = nan_max(worst, same->second);
  }
  return worst;
}

// Relative L2 distance ||a - b|| / ||b|| over all parameters (NaN if either is not finite).
double distance(const param_set& a, const param_set& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto x = a.tensors[i].detach().to(torch::kDouble), y = b.tensors[i].detach().to(torch::kDouble);
    d += (x - y).pow(2).sum().item<double>();
    n += y.pow(2).sum().item<double>();
  }
  return std::sqrt(d) / std::sqrt(n);
}

}  // namespace sdc::train
