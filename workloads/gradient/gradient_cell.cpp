// The gradient workload's cells and source files (gradient_cell.hpp).
#include "workloads/gradient/gradient_cell.hpp"

#include <regex>

#include "foundation/errors.hpp"

namespace sdc {

std::shared_ptr<const std::vector<tensor_values>> load_gradient_source(const std::string& spec, const std::string& base_dir) {
  const tensor_file_spec f = parse_tensor_file_spec(
      spec, base_dir,
      {.every_tensor = true,
       .expected = "expected synthetic, file(PATH) (.npy), file(PATH#TENSOR) or file(PATH#*) (.safetensors)"});
  return load_once<std::vector<tensor_values>>(f.key(), [&] {
    std::vector<tensor_values> out = read_tensor_file(f);
    for (const auto& t : out)
      if (t.values.empty()) throw input_error(f.file.string(), "shape", "expected non-empty tensors");
    return out;
  });
}

std::vector<int64_t> parse_dims(const std::string& v) {
  static const std::regex re(R"(\d+(x\d+)*)");
  if (!std::regex_match(v, re))
    throw value_error("expected a tensor shape D1xD2x... (or file for a file source); got '" + v + "'");
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (pos <= v.size()) {
    const size_t x = v.find('x', pos);
    dims.push_back(std::stoll(v.substr(pos, x == std::string::npos ? std::string::npos : x - pos)));
    if (dims.back() < 1) throw value_error("tensor dimensions must be >= 1; got '" + v + "'");
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return dims;
}

grad_cell parse_gradient_cell(const cell& c) {
  grad_cell g;
  g.dtype = &format_by_name(c.at("dtype"));
  if (c.at("source") != "synthetic") g.file = load_gradient_source(c.at("source"), c.base_dir);
  g.shape_from_file = c.at("shape") == "file";
  if (!g.shape_from_file) g.shape = parse_dims(c.at("shape"));
  g.tensors = parse_integer_at_least(c.at("tensors"), 1, "tensors");
  g.faults_per_pair = parse_integer_at_least(c.at("faults_per_pair"), 1, "faults_per_pair");
  g.dist = parse_distribution(c.at("distribution"), c.base_dir);
  g.split = parse_split(c.at("split"));
  g.faults = cell_fault_axes(c, {.count = "fault_count"});
  return g;
}

}  // namespace sdc
