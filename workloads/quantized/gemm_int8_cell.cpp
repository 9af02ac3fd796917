// The int8 GEMM workload's cells (gemm_int8_cell.hpp).
#include "workloads/quantized/gemm_int8_cell.hpp"

#include "foundation/errors.hpp"

namespace sdc {
namespace {

constexpr fault_axis_names k_int8_fault_axes{"site"};

}  // namespace

int8_target parse_int8_target(const std::string& v) {
  if (v == "B" || v == "C") return v == "B" ? int8_target::B : int8_target::C;
  throw value_error("expected a target: B or C; got '" + v + "'");
}

int8_cell parse_int8_cell(const cell& c) {
  int8_cell g;
  g.shape = parse_gemm_shape(c.at("shape"));
  g.a_dist = parse_distribution(c.at("a_distribution"), c.base_dir);
  g.b_dist = parse_distribution(c.at("b_distribution"), c.base_dir);
  g.faults = cell_fault_axes(c, k_int8_fault_axes);
  g.target = parse_int8_target(c.at("target"));
  return g;
}

}  // namespace sdc
