// Tensors a suite names by file: `file(PATH)` (a .npy array) or
// `file(PATH#NAME)` (one tensor of a .safetensors file), and where a reader
// allows them `file(PATH#*)` (every tensor of the file, in the file's order)
// and a trailing `^T` inside the parentheses (the caller transposes). A
// relative PATH is taken from the suite's folder. One parser and one
// process-wide cache for every workload that reads such files (the GEMM's
// weights, the gradient workload's sources).
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sdc {

struct tensor_values {
  std::vector<int64_t> shape;
  std::vector<double> values;  // row-major, every element as double (exact)
};

struct tensor_file_spec {
  std::filesystem::path file;
  std::string tensor;  // empty: the .npy array; "*": every tensor of the file
  bool transpose = false;
  // Names the same tensors from any suite folder (the cache's key).
  std::string key() const;
};

// What a reader accepts beyond file(PATH) and file(PATH#NAME), and the text a
// bad spec's error gives as expected (naming the axis's other values too).
struct tensor_spec_rules {
  bool every_tensor = false;  // file(PATH#*)
  bool transpose = false;     // ...^T)
  std::string expected;
};

// A value_error with rules.expected when `spec` is not of that form.
tensor_file_spec parse_tensor_file_spec(const std::string& spec, const std::string& base_dir,
                                        const tensor_spec_rules& rules);

// The spec's tensors as stored (not transposed); input errors from the .npy or
// .safetensors reader name the file and field.
std::vector<tensor_values> read_tensor_file(const tensor_file_spec& spec);

// make() once per key and process: every thread asking for the same key gets
// the one copy (a failed make() is not cached, and throws to each caller).
// One cache per T, whichever function makes it.
template <class T>
struct load_once_cache {
  static inline std::mutex mu;
  static inline std::map<std::string, std::shared_ptr<const T>> made;
};
template <class T, class Make>
std::shared_ptr<const T> load_once(const std::string& key, const Make& make) {
  using cache = load_once_cache<T>;
  std::lock_guard<std::mutex> lock(cache::mu);
  if (auto it = cache::made.find(key); it != cache::made.end()) return it->second;
  std::shared_ptr<const T> out = std::make_shared<const T>(make());
  cache::made.emplace(key, out);
  return out;
}

}  // namespace sdc
