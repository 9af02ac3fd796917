// The EmbeddingBag workload's cells (embedding_bag_cell.hpp).
#include "workloads/quantized/embedding_bag_cell.hpp"

#include <fmt/format.h>

#include <iterator>
#include <regex>
#include <tuple>

#include "foundation/errors.hpp"
#include "injectors/inject.hpp"

namespace sdc {

std::pair<int64_t, int64_t> parse_axb(const std::string& v, const char* what) {
  static const std::regex re(R"(([1-9]\d{0,8})x([1-9]\d{0,8}))");  // below 10^9 each: no stoll overflow
  std::smatch m;
  if (!std::regex_match(v, m, re)) throw value_error(fmt::format("expected {} (whole numbers from 1 to 999999999); got '{}'", what, v));
  return {std::stoll(m[1]), std::stoll(m[2])};
}

eb_target parse_eb_target(const std::string& v) {
  for (int t = 0; t < int(std::size(k_eb_target_names)); ++t)
    if (v == k_eb_target_names[t]) return eb_target(t);
  throw value_error("expected a target: code, alpha, beta or output; got '" + v + "'");
}

eb_cell parse_embedding_bag_cell(const cell& c) {
  eb_cell g;
  std::tie(g.rows, g.dim) = parse_axb(c.at("table"), "ROWSxDIM");
  std::tie(g.bags, g.pool) = parse_axb(c.at("batch"), "BAGSxPOOLING");
  g.bits = c.at("code_bits") == "4" ? 4 : 8;
  g.weighted = c.at("pooling") == "weighted_sum";
  g.values = parse_distribution(c.at("values"), c.base_dir);
  g.faults = cell_fault_axes(c, {});
  g.target = parse_eb_target(c.at("target"));
  return g;
}

std::optional<fault_spec> eb_fault_spec(const eb_cell& g, std::string* why, std::string* axis) {
  auto spec = fault_spec_for(g.faults, target_format(g), why, axis);
  if (spec && g.target == eb_target::code && g.bits == 4) {
    const auto k = g.faults.model.k;
    if (k == fault_model::kind::random_value || k == fault_model::kind::multiply || k == fault_model::kind::set_max) {
      *axis = "fault";
      *why = "4-bit codes take bit faults only (bits 0-3)";
      return std::nullopt;
    }
    for (int b : spec->bits)
      if (b > 3) {
        *axis = "bit";
        *why = fmt::format("a 4-bit code has bits 0-3; bit {} is outside it", b);
        return std::nullopt;
      }
  }
  return spec;
}

}  // namespace sdc
