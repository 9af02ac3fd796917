// A gradient workload cell, typed once from the suite's axis values (dtype,
// source, shape, tensors, faults_per_pair, distribution, split, fault, bit,
// fault_count), and the tensors a `source` file holds.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "foundation/formats/format.hpp"
#include "foundation/io/tensor_file.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/fault_axes.hpp"
#include "protocol/workload.hpp"

namespace sdc {

// `file(PATH)` (.npy), `file(PATH#TENSOR)` or `file(PATH#*)` (every tensor of
// a .safetensors file; foundation/io/tensor_file.hpp), loaded once per
// process. Bad specs and empty tensors are errors naming them.
std::shared_ptr<const std::vector<tensor_values>> load_gradient_source(const std::string& spec, const std::string& base_dir);

// "D1xD2x..." with every dimension >= 1; a value_error else.
std::vector<int64_t> parse_dims(const std::string& v);

struct grad_cell : typed_cell {
  const format* dtype = nullptr;
  std::shared_ptr<const std::vector<tensor_values>> file;  // null: synthetic
  std::vector<int64_t> shape;  // empty when shape_from_file
  bool shape_from_file = false;  // shape=file
  int64_t tensors = 1, faults_per_pair = 1;
  distribution dist;
  split_rule split;
  fault_axes faults;  // fault, bit, fault_count
};

grad_cell parse_gradient_cell(const cell& c);

}  // namespace sdc
