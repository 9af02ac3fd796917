// The GEMM workload's weight files (weight_file.hpp).
#include "workloads/gemm/weight_file.hpp"

#include <utility>

#include "foundation/errors.hpp"
#include "foundation/io/tensor_file.hpp"

namespace sdc {

std::shared_ptr<const weight_matrix> load_weights(const std::string& spec, const std::string& base_dir) {
  const tensor_file_spec f = parse_tensor_file_spec(
      spec, base_dir,
      {.transpose = true,
       .expected =
           "expected weights none, file(PATH) (.npy) or file(PATH#TENSOR) (.safetensors), optionally ending in ^T"});
  return load_once<weight_matrix>(f.key(), [&] {
    const tensor_values t = std::move(read_tensor_file(f).front());  // a spec without #* names one tensor
    const auto& shape = t.shape;
    if (shape.size() != 2)
      throw input_error(f.file.string(), "shape",
                        "expected a 2-D weight matrix; got " + std::to_string(shape.size()) + " dimensions");
    weight_matrix w;
    w.rows = f.transpose ? shape[1] : shape[0], w.cols = f.transpose ? shape[0] : shape[1];
    w.values.resize(t.values.size());
    for (int64_t r = 0; r < shape[0]; ++r)
      for (int64_t c = 0; c < shape[1]; ++c)
        w.values[size_t(f.transpose ? c * shape[0] + r : r * shape[1] + c)] = t.values[size_t(r * shape[1] + c)];
    return w;
  });
}

}  // namespace sdc
