#include "harness/services/consistency_check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "detectors/consistency/consistency.hpp"
#include "harness/services/stat_tests.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

}  // namespace

json run_consistency_stat(const std::string& losses_path, const std::string& grads_path) {
  if (!grads_path.ends_with(".npy")) throw input_error(grads_path, "file", "expected a 2-D .npy array (ranks x P)");
  return run_consistency_stat(read_values_input(losses_path), read_values_input(grads_path));
}

json run_consistency_stat(const values_input& loss_in, const values_input& g) {
  const std::string &losses_path = loss_in.name, &grads_path = g.name;
  const std::vector<double>& losses = loss_in.values;
  if (g.shape.size() != 2) throw input_error(grads_path, "shape", fmt::format("expected 2 dimensions (ranks x P); got {}", g.shape.size()));
  const int64_t R = g.shape[0], P = g.shape[1];
  if (R < 2 || P < 1) throw input_error(grads_path, "shape", fmt::format("expected at least 2 ranks and 1 element; got {} x {}", R, P));
  if (int64_t(losses.size()) != R)
    throw input_error(losses_path, "values", fmt::format("expected one loss per rank of {} ({}); got {}", grads_path, R, losses.size()));
  const std::vector<double>& all = g.values;
  auto rows = std::vector<std::vector<float>>(size_t(R));
  std::vector<std::span<const float>> spans;
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t p = 0; p < P; ++p) rows[size_t(r)].push_back(float(all[size_t(r * P + p)]));  // gradients as fp32, as training holds them
    spans.emplace_back(rows[size_t(r)]);
  }
  const consistency c = consistency_metrics(losses, spans);
  std::vector<double> log_norms;
  for (double n : c.norms) log_norms.push_back(n > 0 && std::isfinite(n) ? std::log(n) : NAN);
  const auto z_norm = robust_z_over_ranks(log_norms), z_cos = robust_z_over_ranks(c.cos_to_rest);
  json ranks = json::array();
  for (int64_t r = 0; r < R; ++r)
    ranks.push_back({{"rank", r},
                     {"loss", finite_or_spelled(losses[size_t(r)])},
                     {"grad_norm", finite_or_spelled(c.norms[size_t(r)])},
                     {"cos_to_rest", finite_or_spelled(c.cos_to_rest[size_t(r)])},
                     {"z_log_norm", finite_or_spelled(z_norm[size_t(r)])},
                     {"z_cos_to_rest", finite_or_spelled(z_cos[size_t(r)])}});
  return {{"test", "consistency"},
          {"losses", losses_path},
          {"grads", grads_path},
          {"ranks_n", R},
          {"elements", P},
          {"loss_std", finite_or_spelled(c.loss_std)},
          {"loss_range", finite_or_spelled(c.loss_range)},
          {"grad_norm_mean", finite_or_spelled(c.norm_mean)},
          {"grad_norm_std", finite_or_spelled(c.norm_std)},
          {"grad_norm_range", finite_or_spelled(c.norm_range)},
          {"cos_mean", finite_or_spelled(c.cos_mean)},
          {"ranks", ranks}};
}

}  // namespace sdc
