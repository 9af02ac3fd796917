// The GEMM workload's cells (gemm_cell.hpp).
#include "workloads/gemm/gemm_cell.hpp"

#include <string>

namespace sdc {
namespace {

constexpr fault_axis_names k_fault_axes{"site"};

}  // namespace

gemm_cell parse_gemm_cell(const cell& c) {
  gemm_cell g;
  g.dtype = &format_by_name(c.at("dtype"));
  g.out_fmt = g.dtype;
  g.dist = parse_distribution(c.at("distribution"), c.base_dir);
  g.shape = parse_gemm_shape(c.at("shape"));
  g.order = parse_accumulation(c.at("accumulation"));
  g.faults = cell_fault_axes(c, k_fault_axes);
  g.target = c.at("target");
  g.faults_per_pair = std::stoll(c.at("faults_per_pair"));
  if (c.at("weights") != "none") g.weights = load_weights(c.at("weights"), c.base_dir);
  return g;
}

}  // namespace sdc
