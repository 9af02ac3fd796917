// The gradient workload's cells and source files (gradient_cell.hpp).
#include "workloads/gradient/gradient_cell.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <regex>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/io/safetensors.hpp"

namespace sdc {

std::shared_ptr<const std::vector<tensor_data>> load_gradient_source(const std::string& spec, const std::string& base_dir) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const std::vector<tensor_data>>> cache;
  if (!(spec.starts_with("file(") && spec.ends_with(")")))
    throw value_error("expected synthetic, file(PATH) (.npy), file(PATH#TENSOR) or file(PATH#*) (.safetensors); got '" + spec + "'");
  const std::string inner = spec.substr(5, spec.size() - 6);
  const auto hash = inner.find('#');
  std::filesystem::path file = inner.substr(0, hash);
  if (file.is_relative() && !base_dir.empty()) file = std::filesystem::path(base_dir) / file;
  const std::string key = file.string() + (hash == std::string::npos ? "" : inner.substr(hash));
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto out = std::make_shared<std::vector<tensor_data>>();
  if (hash == std::string::npos) {
    const npy_array a = read_npy(file.string());
    out->push_back({a.shape, a.values()});
  } else {
    const std::string name = inner.substr(hash + 1);
    const auto names = name == "*" ? safetensors_names(file.string()) : std::vector<std::string>{name};
    for (const auto& n : names) {
      safetensor t = read_safetensor(file.string(), n);
      out->push_back({t.shape, std::move(t.values)});
    }
  }
  for (const auto& t : *out)
    if (t.values.empty()) throw input_error(file.string(), "shape", "expected non-empty tensors");
  cache[key] = out;
  return out;
}

std::vector<int64_t> parse_dims(const std::string& v) {
  static const std::regex re(R"(\d+(x\d+)*)");
  if (!std::regex_match(v, re)) throw value_error("expected a tensor shape D1xD2x... (or file for a file source); got '" + v + "'");
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
  if (c.at("shape") != "file") g.shape = parse_dims(c.at("shape"));
  g.tensors = parse_integer_at_least(c.at("tensors"), 1, "tensors");
  g.faults_per_pair = parse_integer_at_least(c.at("faults_per_pair"), 1, "faults_per_pair");
  g.dist = parse_distribution(c.at("distribution"), c.base_dir);
  g.split = parse_split(c.at("split"));
  g.faults = cell_fault_axes(c, {.count = "fault_count"});
  return g;
}

}  // namespace sdc
