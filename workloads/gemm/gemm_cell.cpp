// The GEMM workload's cells (gemm_cell.hpp).
#include "workloads/gemm/gemm_cell.hpp"

#include <iterator>
#include <string>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

constexpr fault_axis_names k_fault_axes{"site"};
constexpr const char* k_target_names[] = {"A", "B", "C", "acc"};  // gemm_target's order

}  // namespace

gemm_target parse_gemm_target(const std::string& v) {
  for (int t = 0; t < int(std::size(k_target_names)); ++t)
    if (v == k_target_names[t]) return gemm_target(t);
  throw value_error("expected a target: A, B, C or acc; got '" + v + "'");
}
const char* gemm_target_name(gemm_target t) { return k_target_names[int(t)]; }

gemm_cell parse_gemm_cell(const cell& c) {
  gemm_cell g;
  g.dtype = &format_by_name(c.at("dtype"));
  g.out_fmt = g.dtype;
  g.dist = parse_distribution(c.at("distribution"), c.base_dir);
  g.shape = parse_gemm_shape(c.at("shape"));
  g.order = parse_accumulation(c.at("accumulation"));
  g.faults = cell_fault_axes(c, k_fault_axes);
  g.target = parse_gemm_target(c.at("target"));
  g.faults_per_pair = std::stoll(c.at("faults_per_pair"));
  g.weights_spec = c.at("weights");
  if (g.weights_spec != "none") g.weights = load_weights(g.weights_spec, c.base_dir);
  return g;
}

}  // namespace sdc
