// .safetensors files (the format of Hugging Face checkpoints): an 8-byte
// little-endian header length, a JSON header {name: {dtype, shape,
// data_offsets}}, then the raw little-endian tensor data. Read without
// copying the whole file: only the named tensor's bytes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc {

struct safetensor {
  std::string name, dtype;  // F64, F32, F16, BF16, I8, U8, I32, ...
  std::vector<int64_t> shape;
  std::vector<double> values;  // every element as double (exact for these dtypes)
};

// The names of the tensors in a file, in header order.
std::vector<std::string> safetensors_names(const std::string& path);
// One tensor; input_error naming the file and field when the header or data is bad.
safetensor read_safetensor(const std::string& path, const std::string& name);
// Writes float32 tensors (tests and examples make small checkpoints with it).
void write_safetensors_f32(const std::string& path, const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes,
                           const std::vector<std::vector<float>>& data);

}  // namespace sdc
