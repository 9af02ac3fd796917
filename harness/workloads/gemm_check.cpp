#include "harness/workloads/gemm_check.hpp"

#include <fmt/format.h>

#include "detectors/detector.hpp"
#include "harness/errors.hpp"
#include "harness/io/npy.hpp"
#include "harness/workloads/tensor_view.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

struct loaded {
  std::vector<double> values;
  int64_t rows = 0, cols = 0;
};

loaded load_matrix(const std::string& path, const char* what) {
  const npy_array a = read_npy(path);
  if (a.shape.size() != 2)
    throw input_error(path, "header.shape", fmt::format("expected a 2-D matrix for {}; got {} dimensions", what, a.shape.size()));
  return {a.values(), a.shape[0], a.shape[1]};
}

template <class T>
json run(const check_gemm_request& r, const format& f, const loaded& A, const loaded& B, const loaded* C) {
  const gemm_shape s{A.rows, B.cols, A.cols};
  std::vector<T> a(A.values.size()), b(B.values.size()), acc(size_t(s.m * s.n)), c(acc.size());
  int64_t rounded = 0;
  auto fill = [&](const std::vector<double>& src, std::vector<T>& dst) {
    for (size_t i = 0; i < src.size(); ++i) {
      dst[i] = round_into<T>(f, src[i]);
      rounded += double(dst[i]) != src[i] && !std::isnan(src[i]);
    }
  };
  fill(A.values, a), fill(B.values, b);
  const auto order = parse_accumulation(r.accumulation);
  if (C) {
    fill(C->values, c);
    acc = c;
  } else {
    gemm_run(a.data(), b.data(), acc.data(), s, order);
    for (size_t i = 0; i < acc.size(); ++i) c[i] = round_into<T>(f, double(acc[i]));
  }
  const auto [name, given] = parse_detector_spec(r.detector);
  const detector_info* info = find_detector("gemm", name);
  if (!info) throw input_error("--detector", name, "unknown detector; `sdcbench list detectors` shows them");
  json params;
  try {
    params = validate_params(*info, given);
  } catch (const value_error& e) {
    throw input_error("--detector", r.detector, e.what());
  }
  const json axes = {{"dtype", std::string(f.name)}, {"accumulation", order.text()}, {"shape", s.text()}};
  auto det_base = info->make(detector_params(params, &f), {&f, &f, axes});
  auto* det = dynamic_cast<gemm_detector*>(det_base.get());
  gemm_data<T> d;
  d.dtype = d.out_fmt = &f, d.shape = s, d.order = order, d.A = a.data(), d.B = b.data(), d.C = c.data(), d.acc = acc.data();
  det->encode(d);
  const verdict v = det->verify(d);
  json metrics = json::object();
  for (const auto& [k, x] : v.metrics) metrics[k] = std::isfinite(x) ? json(x) : json(nullptr);
  json out = {{"dtype", std::string(f.name)},
              {"shape", {{"m", s.m}, {"k", s.k}, {"n", s.n}}},
              {"c", C ? "given" : "computed (" + order.text() + ")"},
              {"inputs_rounded_to_dtype", rounded},
              {"detector", {{"name", name}, {"params", params}}},
              {"verdict",
               {{"flagged", v.flagged},
                {"score", std::isfinite(v.score) ? json(v.score) : json(nullptr)},
                {"located_row", v.located_row >= 0 ? json(v.located_row) : json(nullptr)},
                {"located_col", v.located_col >= 0 ? json(v.located_col) : json(nullptr)},
                {"corrected_value", std::isfinite(v.corrected_value) ? json(v.corrected_value) : json(nullptr)}}},
              {"metrics", metrics}};
  const json ex = det->explain();
  if (!ex.is_null()) out["checks"] = ex;
  return out;
}

}  // namespace

std::pair<std::string, json> parse_detector_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  json params = json::object();
  if (colon == std::string::npos) return {name, params};
  std::string rest = spec.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    const size_t comma = rest.find(',', pos);
    const std::string kv = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw input_error("--detector", spec, "expected NAME[:param=value,...]; got '" + kv + "'");
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    try {
      size_t used = 0;
      const double num = std::stod(value, &used);
      if (used == value.size()) {
        params[key] = (value.find_first_of(".eE") == std::string::npos) ? json(int64_t(num)) : json(num);
      } else {
        params[key] = value;
      }
    } catch (const std::exception&) {
      params[key] = value;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return {name, params};
}

json check_gemm(const check_gemm_request& r) {
  const format* f = nullptr;
  try {
    f = &format_by_name(r.dtype);
  } catch (const value_error& e) {
    throw input_error("--dtype", r.dtype, e.what());
  }
  if (f != &fp64() && f != &fp32() && f != &bf16() && f != &fp16())
    throw input_error("--dtype", r.dtype, "expected bf16, fp16, fp32 or fp64");
  const loaded A = load_matrix(r.a_path, "A"), B = load_matrix(r.b_path, "B");
  if (A.cols != B.rows)
    throw input_error(r.b_path, "header.shape", fmt::format("B must have {} rows (the columns of A in {}); it has {}", A.cols, r.a_path, B.rows));
  loaded C;
  if (!r.c_path.empty()) {
    C = load_matrix(r.c_path, "C");
    if (C.rows != A.rows || C.cols != B.cols)
      throw input_error(r.c_path, "header.shape", fmt::format("C must be {}x{} (A rows x B columns); it is {}x{}", A.rows, B.cols, C.rows, C.cols));
  }
  return f == &fp64() ? run<double>(r, *f, A, B, r.c_path.empty() ? nullptr : &C)
                      : run<float>(r, *f, A, B, r.c_path.empty() ? nullptr : &C);
}

}  // namespace sdc
