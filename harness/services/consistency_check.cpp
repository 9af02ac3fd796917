#include "harness/services/consistency_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <span>

#include "foundation/errors.hpp"

namespace sdc {

using json = nlohmann::json;

consistency_result run_consistency(const values_input& loss_in, const values_input& g) {
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
  consistency_result out{losses_path, grads_path, R, P, losses, consistency_metrics(losses, spans), {}, {}};
  std::vector<double> log_norms;
  for (double n : out.metrics.norms) log_norms.push_back(n > 0 && std::isfinite(n) ? std::log(n) : NAN);
  out.z_log_norm = robust_z_over_ranks(log_norms), out.z_cos_to_rest = robust_z_over_ranks(out.metrics.cos_to_rest);
  return out;
}

json to_json(const consistency_result& r) {
  const consistency& c = r.metrics;
  json ranks = json::array();
  for (int64_t k = 0; k < r.ranks; ++k)
    ranks.push_back({{"rank", k},
                     {"loss", finite_or_spelled(r.losses[size_t(k)])},
                     {"grad_norm", finite_or_spelled(c.norms[size_t(k)])},
                     {"cos_to_rest", finite_or_spelled(c.cos_to_rest[size_t(k)])},
                     {"z_log_norm", finite_or_spelled(r.z_log_norm[size_t(k)])},
                     {"z_cos_to_rest", finite_or_spelled(r.z_cos_to_rest[size_t(k)])}});
  return {{"test", "consistency"},
          {"losses", r.losses_name},
          {"grads", r.grads_name},
          {"ranks_n", r.ranks},
          {"elements", r.elements},
          {"loss_std", finite_or_spelled(c.loss_std)},
          {"loss_range", finite_or_spelled(c.loss_range)},
          {"grad_norm_mean", finite_or_spelled(c.norm_mean)},
          {"grad_norm_std", finite_or_spelled(c.norm_std)},
          {"grad_norm_range", finite_or_spelled(c.norm_range)},
          {"cos_mean", finite_or_spelled(c.cos_mean)},
          {"ranks", ranks}};
}

}  // namespace sdc
