// The training workload's cells (training_cell.hpp).
#include "workloads/training/training_cell.hpp"

#include <filesystem>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "workloads/training/trainer/training_config.hpp"

namespace sdc::train {

std::string resolve_config(const std::string& v, const std::string& dir) {
  const std::filesystem::path p(v);
  return (p.is_absolute() ? p : std::filesystem::path(dir) / p).lexically_normal().string();
}

training_cell parse_training_cell(const cell& c) {
  training_cell g;
  g.config_path = resolve_config(c.at("config"), c.base_dir);
  g.warmup = parse_integer_at_least(c.at("warmup_steps"), 0, "warmup_steps");
  g.steps = parse_integer_at_least(c.at("steps"), 1, "steps");
  g.per_twin = parse_integer_at_least(c.at("faults_per_twin"), 1, "faults_per_twin");
  g.site = parse_fault_site(c.at("site"));
  g.faults = cell_fault_axes(c, k_training_fault_axes);
  g.lifetime = parse_fault_lifetime(c.at("lifetime"));
  g.q = std::stod(c.at("gemm_q"));
  if (const std::string& p = c.at("seed_policy"); p != "config") g.policy = parse_seed_policy(p);
  g.forks = parse_integer_at_least(c.at("forks"), 1, "forks");
  g.natural_runs = parse_integer_at_least(c.at("natural_runs"), 2, "natural_runs");
  g.distributed_optimizer = parse_optimizer(c.at("optimizer"));
  g.config = std::make_shared<const train_config>(load_config(g));
  return g;
}

bool parse_optimizer(const std::string& v) {
  if (v == "replicated" || v == "distributed") return v == "distributed";
  throw value_error("optimizer: expected replicated or distributed; got '" + v + "'");
}

train_config load_config(const training_cell& g) {
  return parse_train_config(read_json_file(g.config_path), g.config_path,
                            std::filesystem::path(g.config_path).parent_path().string());
}

}  // namespace sdc::train
