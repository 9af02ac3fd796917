#include "harness/cli/file_commands.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "harness/services/consistency_check.hpp"
#include "harness/services/feature_value.hpp"

namespace sdc {

std::vector<double> read_values(const std::string& path) {
  if (path.ends_with(".npy")) return read_npy(path).values();
  std::ifstream in(path);
  if (!in) throw input_error(path, "file", "expected a readable .npy file or text file of numbers");
  std::vector<double> v;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    for (auto& ch : line)
      if (ch == ',' || ch == ';') ch = ' ';
    std::istringstream ss(line);
    std::string tok;
    while (ss >> tok) {
      size_t used = 0;
      double x = 0;
      try {
        x = std::stod(tok, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != tok.size())
        throw input_error(path, fmt::format("line {}", lineno), "expected numbers; got '" + tok + "'");
      v.push_back(x);
    }
  }
  return v;
}

values_input read_values_input(const std::string& path) {
  if (path.ends_with(".npy")) {
    npy_array a = read_npy(path);
    return {path, a.values(), std::vector<int64_t>(a.shape.begin(), a.shape.end())};
  }
  std::vector<double> v = read_values(path);
  const auto n = int64_t(v.size());
  return {path, std::move(v), {n}};
}

matrix_input read_matrix(const std::string& path, const char* what) {
  const npy_array a = read_npy(path);
  if (a.shape.size() != 2)
    throw input_error(path, "header.shape", fmt::format("expected a 2-D matrix for {}; got {} dimensions", what, a.shape.size()));
  return {path, a.values(), a.shape[0], a.shape[1]};
}

nlohmann::json check_gemm_file_record(const check_gemm_files& f) {
  const matrix_input A = read_matrix(f.a_path, "A"), B = read_matrix(f.b_path, "B");
  const std::optional<matrix_input> C = f.c_path.empty() ? std::nullopt : std::optional(read_matrix(f.c_path, "C"));
  const gemm_check_request r = parse_gemm_check_request(f.dtype, f.detector, f.accumulation);
  return to_json(check_gemm(r, A, B, C ? &*C : nullptr));
}

nlohmann::json stat_file_record(const std::string& name, const std::string& path, const stat_options& opt) {
  const values_input in = read_values_input(path);
  return to_json(run_stat(parse_stat_test(name), in, opt));
}

nlohmann::json feature_value_file_record(const std::string& path, const std::string& variant, const std::map<std::string, std::string>& params) {
  const values_input in = read_values_input(path);
  return to_json(run_feature_value(in, parse_feature_value_options(variant, params)));
}

nlohmann::json npu_asd_file_record(const std::string& path, const std::map<std::string, std::string>& params) {
  const values_input in = read_values_input(path);
  return to_json(run_npu_asd(in, parse_npu_asd_options(params)));
}

nlohmann::json consistency_file_record(const std::string& losses, const std::string& grads) {
  if (!grads.ends_with(".npy")) throw input_error(grads, "file", "expected a 2-D .npy array (ranks x P)");
  const values_input g = read_values_input(grads);  // the gradients first, as the command always read them
  return to_json(run_consistency(read_values_input(losses), g));
}

}  // namespace sdc
