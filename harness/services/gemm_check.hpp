// The computation behind `sdcbench check-gemm` and sdcbench.check_gemm: one
// registered GEMM detector on a user's own matrices, so a policy can be
// applied to weights and activations from a real model and its thresholds
// compared with an independent computation. The front ends read the matrices
// (.npy files, numpy arrays) and parse the request's words once
// (parse_gemm_check_request); the service returns the verdict as a struct and
// its record (to_json), the JSON both front ends print. With int8, A holds u8
// values and B s8 values (integers in range), C (optional) int32: the int8
// GEMM of 004 through oneDNN, checked by abft_int8 (modular) or abft_int8_exact.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "protocol/detector.hpp"

namespace sdc {

// A matrix in memory: row-major values; `name` (its file, or "A") names it in errors.
struct matrix_input {
  std::string name;
  std::vector<double> values;
  int64_t rows = 0, cols = 0;
};

// NAME[:param=value,...]: a detector's name and its parameters (numbers where
// they parse as numbers, else strings); `text` as given, for errors.
struct detector_spec {
  std::string name;  // empty: the dtype's default (vabft; abft_int8 for int8)
  nlohmann::json params = nlohmann::json::object();
  std::string text;
};
detector_spec parse_detector_spec(const std::string& text);  // "" -> the default

struct gemm_check_request {
  const format* dtype = nullptr;  // bf16, fp16, fp32 or fp64 (inputs are rounded to it); null: int8
  accumulation_order accumulation;  // the order C is computed in when not given (floats)
  detector_spec detector;
};
// The words of the command line and of the Python call: dtype (bf16, fp16,
// fp32, fp64; int8, s8, u8s8s32), detector spec, accumulation order (read for
// floats only). Throws input_error naming --dtype, --detector.
gemm_check_request parse_gemm_check_request(const std::string& dtype, const std::string& detector, const std::string& accumulation);

struct gemm_check_result {
  bool int8 = false;
  std::string dtype;  // "fp32", or "int8 (A u8, B s8, C int32)"
  gemm_shape shape;
  std::string c;      // "given" or "computed (ORDER or kernel)"
  int64_t inputs_rounded_to_dtype = 0;  // floats: inputs that rounding to dtype changed
  std::string detector;
  nlohmann::json params;  // the detector's validated parameters
  verdict v;
  nlohmann::json checks;  // the detector's explain(); null when it has none
};

// `c` may be null (C computed from A and B).
gemm_check_result check_gemm(const gemm_check_request& r, const matrix_input& a, const matrix_input& b, const matrix_input* c);

// The result's record: dtype, shape, c, detector {name, params}, verdict,
// metrics, checks (floats also inputs_rounded_to_dtype and the located cell).
nlohmann::json to_json(const gemm_check_result& r);

}  // namespace sdc
