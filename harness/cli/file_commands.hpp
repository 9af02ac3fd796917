// The commands that check a user's own files: each reads them (.npy, or a
// text file of numbers), hands the values to its service (harness/services/)
// and returns the record the command prints. `check-gemm` (gemm_check.hpp),
// `stat NAME` (stat_tests.hpp), `stat feature_value`, `stat npu_asd`
// (feature_value.hpp), `stat consistency` (consistency_check.hpp).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/services/gemm_check.hpp"
#include "harness/services/stat_tests.hpp"

namespace sdc {

// The values of FILE: a .npy array (any shape, flattened) or a text file of
// numbers separated by whitespace or commas ('#' starts a comment).
std::vector<double> read_values(const std::string& path);
// FILE as above, with its shape ({n} for a text file), named by its path.
values_input read_values_input(const std::string& path);
// A 2-D .npy matrix; `what` (A, B, C) names it in errors.
matrix_input read_matrix(const std::string& path, const char* what);

// `check-gemm`: c_path empty: C computed.
struct check_gemm_files {
  std::string a_path, b_path, c_path;
  std::string dtype = "fp32";
  std::string detector;  // NAME[:param=value,...]; empty: vabft (float) or abft_int8 (int8)
  std::string accumulation = "sequential";
};
nlohmann::json check_gemm_file_record(const check_gemm_files& f);

nlohmann::json stat_file_record(const std::string& name, const std::string& path, const stat_options& opt);
nlohmann::json feature_value_file_record(const std::string& path, const std::string& variant, const std::map<std::string, std::string>& params);
nlohmann::json npu_asd_file_record(const std::string& path, const std::map<std::string, std::string>& params);
// losses: .npy or text; grads: a 2-D .npy (ranks x P).
nlohmann::json consistency_file_record(const std::string& losses, const std::string& grads);

}  // namespace sdc
