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

bool is_block_dtype(const std::string& v) {
  for (const auto& f : all_block_formats())
    if (f.name == v) return true;
  return false;
}

gemm_target parse_gemm_target(const std::string& v) {
  for (int t = 0; t < int(std::size(k_target_names)); ++t)
    if (v == k_target_names[t]) return gemm_target(t);
  throw value_error("expected a target: A, B, C or acc; got '" + v + "'");
}
const char* gemm_target_name(gemm_target t) { return k_target_names[int(t)]; }

encode_point parse_encode_point(const std::string& v) {
  if (v == "before_quant") return encode_point::before_quant;
  if (v == "after_quant") return encode_point::after_quant;
  throw value_error("expected an encode point: before_quant or after_quant; got '" + v + "'");
}
check_point parse_check_point(const std::string& v) {
  if (v == "before_output_quant") return check_point::before_output_quant;
  if (v == "after_output_quant") return check_point::after_output_quant;
  throw value_error("expected a check point: before_output_quant or after_output_quant; got '" + v + "'");
}
const char* encode_point_name(encode_point p) { return p == encode_point::before_quant ? "before_quant" : "after_quant"; }
const char* check_point_name(check_point p) {
  return p == check_point::before_output_quant ? "before_output_quant" : "after_output_quant";
}
const block_format* parse_out_quant(const std::string& v) { return v == "none" ? nullptr : &block_format_by_name(v); }

const format& target_format(const gemm_cell& g) {
  if (g.block && (g.target == gemm_target::A || g.target == gemm_target::B)) {
    if (g.part == block_part::code) return element_format(g.block->elem);
    if (g.part == block_part::block_scale) return scale_format(g.block->scale);
    return fp32();
  }
  return g.target == gemm_target::acc ? fp32() : *g.dtype;
}

gemm_cell parse_gemm_cell(const cell& c) {
  gemm_cell g;
  const std::string& dtype = c.at("dtype");
  if (is_block_dtype(dtype)) g.block = &block_format_by_name(dtype), g.dtype = &fp32();
  else g.dtype = &format_by_name(dtype);
  g.out_fmt = g.dtype;
  g.part = parse_block_part(c.at("part"));
  g.encode = parse_encode_point(c.at("encode"));
  g.check_at = parse_check_point(c.at("check_at"));
  g.out_quant = parse_out_quant(c.at("out_quant"));
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
