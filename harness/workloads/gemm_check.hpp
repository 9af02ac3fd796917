// `sdcbench check-gemm`: one detector on a user's own matrices (.npy), so a
// policy can be applied to weights and activations from a real model, and its
// thresholds compared with an independent computation.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

struct check_gemm_request {
  std::string a_path, b_path, c_path;  // c optional: computed when empty
  std::string dtype = "fp32";
  std::string detector = "vabft";      // NAME[:param=value,...]
  std::string accumulation = "sequential";
};

nlohmann::json check_gemm(const check_gemm_request& r);

// "vabft:e_max=calibrated,c_sigma=3" -> name and a JSON object of parameters
// (numbers where they parse as numbers, else strings).
std::pair<std::string, nlohmann::json> parse_detector_spec(const std::string& spec);

}  // namespace sdc
