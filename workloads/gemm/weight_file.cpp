// The GEMM workload's weight files (weight_file.hpp).
#include "workloads/gemm/weight_file.hpp"

#include <filesystem>
#include <map>
#include <mutex>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/io/safetensors.hpp"

namespace sdc {

std::shared_ptr<const weight_matrix> load_weights(const std::string& spec, const std::string& base_dir) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const weight_matrix>> cache;
  if (!(spec.starts_with("file(") && spec.ends_with(")")))
    throw value_error("expected weights none, file(PATH) (.npy) or file(PATH#TENSOR) (.safetensors), optionally ending in ^T; got '" + spec + "'");
  std::string inner = spec.substr(5, spec.size() - 6);
  bool transpose = false;
  if (inner.ends_with("^T")) transpose = true, inner.resize(inner.size() - 2);
  const auto hash = inner.find('#');
  std::filesystem::path file = inner.substr(0, hash);
  if (file.is_relative() && !base_dir.empty()) file = std::filesystem::path(base_dir) / file;
  const std::string key = file.string() + (hash == std::string::npos ? "" : inner.substr(hash)) + (transpose ? "^T" : "");
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<int64_t> shape;
  std::vector<double> v;
  if (hash == std::string::npos) {
    const npy_array a = read_npy(file.string());
    shape = a.shape, v = a.values();
  } else {
    safetensor t = read_safetensor(file.string(), inner.substr(hash + 1));
    shape = t.shape, v = std::move(t.values);
  }
  if (shape.size() != 2) throw input_error(file.string(), "shape", "expected a 2-D weight matrix; got " + std::to_string(shape.size()) + " dimensions");
  auto w = std::make_shared<weight_matrix>();
  w->rows = transpose ? shape[1] : shape[0], w->cols = transpose ? shape[0] : shape[1];
  w->values.resize(v.size());
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c)
      w->values[size_t(transpose ? c * shape[0] + r : r * shape[1] + c)] = v[size_t(r * shape[1] + c)];
  cache[key] = w;
  return w;
}

}  // namespace sdc
