// Tensor files named by a suite (tensor_file.hpp).
#include "foundation/io/tensor_file.hpp"

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/io/safetensors.hpp"

namespace sdc {

std::string tensor_file_spec::key() const {
  return file.string() + (tensor.empty() ? "" : "#" + tensor) + (transpose ? "^T" : "");
}

tensor_file_spec parse_tensor_file_spec(const std::string& spec, const std::string& base_dir,
                                        const tensor_spec_rules& rules) {
  if (!(spec.starts_with("file(") && spec.ends_with(")") && spec.size() > 6))
    throw value_error(rules.expected + "; got '" + spec + "'");
  std::string inner = spec.substr(5, spec.size() - 6);
  tensor_file_spec out;
  if (rules.transpose && inner.ends_with("^T")) out.transpose = true, inner.resize(inner.size() - 2);
  const auto hash = inner.find('#');
  out.file = inner.substr(0, hash);
  if (hash != std::string::npos) out.tensor = inner.substr(hash + 1);
  if (out.file.empty() || (hash != std::string::npos && out.tensor.empty()) ||
      (out.tensor == "*" && !rules.every_tensor))
    throw value_error(rules.expected + "; got '" + spec + "'");
  if (out.file.is_relative() && !base_dir.empty()) out.file = std::filesystem::path(base_dir) / out.file;
  return out;
}

std::vector<tensor_values> read_tensor_file(const tensor_file_spec& spec) {
  const std::string path = spec.file.string();
  std::vector<tensor_values> out;
  if (spec.tensor.empty()) {
    const npy_array a = read_npy(path);
    out.push_back({a.shape, a.values()});
    return out;
  }
  const auto names = spec.tensor == "*" ? safetensors_names(path) : std::vector<std::string>{spec.tensor};
  for (const auto& n : names) {
    safetensor t = read_safetensor(path, n);
    out.push_back({std::move(t.shape), std::move(t.values)});
  }
  return out;
}

}  // namespace sdc
