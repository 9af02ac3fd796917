// The GEMM workload's `weights` axis: a weight matrix from a file, used as B
// (001 section 6.7: clean runs on a real model's layers).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sdc {

// `file(PATH)` (.npy, 2-D) or `file(PATH#NAME)` (.safetensors tensor); a
// trailing ^T transposes it (PyTorch Linear weights are out x in: B = W^T).
struct weight_matrix {
  int64_t rows = 0, cols = 0;  // as used: K x N
  std::vector<double> values;  // row-major K x N
};

// Loaded once per process (the same spec from any thread shares one copy);
// a relative PATH is taken from base_dir (the suite's folder). Bad specs,
// files and shapes are input errors naming them.
std::shared_ptr<const weight_matrix> load_weights(const std::string& spec, const std::string& base_dir);

}  // namespace sdc
