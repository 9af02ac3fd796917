// `sdcbench check-gemm`: one detector on a user's own matrices (.npy), so a
// policy can be applied to weights and activations from a real model, and its
// thresholds compared with an independent computation. With --dtype int8, A
// holds u8 values and B s8 values (any integer or float .npy whose values are
// integers in range), C (optional) int32: the int8 GEMM of 004 through oneDNN,
// checked by abft_int8 (modular) or abft_int8_exact.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

struct check_gemm_request {
  std::string a_path, b_path, c_path;  // c optional: computed when empty
  std::string dtype = "fp32";
  std::string detector;                // NAME[:param=value,...]; empty: vabft (float) or abft_int8 (int8)
  std::string accumulation = "sequential";
};

nlohmann::json check_gemm(const check_gemm_request& r);

// A matrix in memory (the Python module): row-major values; `name` names it in errors.
struct matrix_input {
  std::string name;
  std::vector<double> values;
  int64_t rows = 0, cols = 0;
};
// The same check on matrices in memory (the request's paths are not read);
// `c` may be null (C computed).
nlohmann::json check_gemm(const check_gemm_request& r, const matrix_input& a, const matrix_input& b, const matrix_input* c);

// "vabft:e_max=calibrated,c_sigma=3" -> name and a JSON object of parameters
// (numbers where they parse as numbers, else strings).
std::pair<std::string, nlohmann::json> parse_detector_spec(const std::string& spec);

}  // namespace sdc
