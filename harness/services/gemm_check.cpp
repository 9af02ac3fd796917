#include "harness/services/gemm_check.hpp"

#include <fmt/format.h>

#include <cmath>

#include "detectors/gemm/gemm_detector.hpp"
#include "detectors/quantized/quantized_detectors.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "injectors/tensor_view.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

using loaded = matrix_input;

loaded load_matrix(const std::string& path, const char* what) {
  const npy_array a = read_npy(path);
  if (a.shape.size() != 2)
    throw input_error(path, "header.shape", fmt::format("expected a 2-D matrix for {}; got {} dimensions", what, a.shape.size()));
  return {path, a.values(), a.shape[0], a.shape[1]};
}

const detector_info& find_checked(view_kind view, const std::string& name) {
  const detector_info* info = find_detector(view, name);
  if (!info)
    throw input_error("--detector", name, std::string("unknown detector of ") + view_kind_name(view) + " views; `sdcbench list detectors` shows them");
  return *info;
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
  const auto [name, given] = parse_detector_spec(r.detector.empty() ? "vabft" : r.detector);
  const detector_info* info = &find_checked(view_kind::gemm, name);
  json params;
  try {
    params = validate_params(*info, given);
  } catch (const value_error& e) {
    throw input_error("--detector", r.detector, e.what());
  }
  const json axes = {{"dtype", std::string(f.name)}, {"accumulation", order.text()}, {"shape", s.text()}};
  auto det = detector_cast<gemm_detector>(info->make(detector_params(params, &f), {&f, &f, axes, gemm_context{s, order}}), name, "gemm");
  gemm_data<T> d;
  d.dtype = d.out_fmt = &f, d.shape = s, d.order = order, d.A = a.data(), d.B = b.data(), d.C = c.data(), d.acc = acc.data();
  det->encode(d);
  const verdict v = det->verify(d);
  json metrics = json::object();
  for (const auto& [k, x] : v.metrics) metrics[k] = finite_or_null(x);
  json out = {{"dtype", std::string(f.name)},
              {"shape", {{"m", s.m}, {"k", s.k}, {"n", s.n}}},
              {"c", C ? "given" : "computed (" + order.text() + ")"},
              {"inputs_rounded_to_dtype", rounded},
              {"detector", {{"name", name}, {"params", params}}},
              {"verdict",
               {{"flagged", v.flagged},
                {"cannot_check", std::any_of(v.metrics.begin(), v.metrics.end(),
                                             [](const auto& m) { return m.first == "cannot_check"; })},
                {"score", finite_or_null(v.score)},
                {"located_row", v.located_row >= 0 ? json(v.located_row) : json(nullptr)},
                {"located_col", v.located_col >= 0 ? json(v.located_col) : json(nullptr)},
                {"corrected_value", finite_or_null(v.corrected_value)}}},
              {"metrics", metrics}};
  const json ex = det->explain();
  if (!ex.is_null()) out["checks"] = ex;
  return out;
}

// Integer matrix values, checked to be integers in [lo, hi].
template <class T>
std::vector<T> integers(const loaded& m, const std::string& path, double lo, double hi, const char* what) {
  std::vector<T> out(m.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = m.values[i];
    if (!(v >= lo && v <= hi && v == std::nearbyint(v)))
      throw input_error(path, fmt::format("element ({}, {})", int64_t(i) / m.cols, int64_t(i) % m.cols),
                        fmt::format("expected {} values: integers in [{}, {}]; got {}", what, lo, hi, v));
    out[i] = T(v);
  }
  return out;
}

json run_int8(const check_gemm_request& r, const loaded& A, const loaded& B, const loaded* C) {
  const int64_t m = A.rows, k = A.cols, n = B.cols;
  const auto a = integers<uint8_t>(A, A.name, 0, 255, "u8");
  const auto b = integers<int8_t>(B, B.name, -128, 127, "s8");
  const auto [name, given] = parse_detector_spec(r.detector.empty() ? "abft_int8" : r.detector);
  const detector_info& info = find_checked(view_kind::int8_gemm, name);
  json params;
  std::unique_ptr<detector> base;
  try {
    params = validate_params(info, given);
    base = info.make(detector_params(params, &s32()), {&s8(), &s32(), {{"shape", gemm_shape{m, n, k}.text()}}});
  } catch (const value_error& e) {
    throw input_error("--detector", r.detector, e.what());
  }
  auto det = detector_cast<int8_gemm_detector>(std::move(base), info.name, "int8_gemm");
  const int64_t ld = n + det->extra_columns();
  std::vector<int8_t> bp(size_t(k * ld));
  for (int64_t i = 0; i < k; ++i) std::copy_n(b.data() + i * n, n, bp.data() + i * ld);
  det->encode(b.data(), k, n, n, bp.data() + n, ld);
  std::vector<int32_t> c(size_t(m * ld));
  gemm_u8s8s32(m, ld, k, a.data(), k, bp.data(), ld, c.data(), ld);
  if (C) {  // the user's C_temp replaces the data columns; the checksum columns come from A x s
    const auto given_c = integers<int32_t>(*C, C->name, double(INT32_MIN), double(INT32_MAX), "int32");
    for (int64_t i = 0; i < m; ++i) std::copy_n(given_c.data() + i * n, n, c.data() + i * ld);
  }
  const verdict v = det->verify({m, n, k, a.data(), k, bp.data(), ld, c.data(), ld, det->extra_columns() ? c.data() + n : nullptr});
  json metrics = json::object();
  for (const auto& [key, x] : v.metrics) metrics[key] = x;
  json out = {{"dtype", "int8 (A u8, B s8, C int32)"},
              {"shape", {{"m", m}, {"k", k}, {"n", n}}},
              {"c", C ? "given" : "computed (" + int8_gemm_kernel_name() + ")"},
              {"detector", {{"name", name}, {"params", params}}},
              {"verdict", {{"flagged", v.flagged}, {"score", v.score}}},
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
        // An integer only when it is one (no NaN/Inf cast to int64: the parameter check names them).
        const bool integral = std::isfinite(num) && value.find_first_of(".eEnNiI") == std::string::npos;
        params[key] = integral ? json(int64_t(num)) : json(num);
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
  const loaded A = load_matrix(r.a_path, "A"), B = load_matrix(r.b_path, "B");
  if (r.c_path.empty()) return check_gemm(r, A, B, nullptr);
  const loaded C = load_matrix(r.c_path, "C");
  return check_gemm(r, A, B, &C);
}

json check_gemm(const check_gemm_request& r, const matrix_input& A, const matrix_input& B, const matrix_input* C) {
  const format* f = nullptr;
  const bool int8 = r.dtype == "int8" || r.dtype == "s8" || r.dtype == "u8s8s32";
  try {
    if (!int8) f = &format_by_name(r.dtype);
  } catch (const value_error& e) {
    throw input_error("--dtype", r.dtype, e.what());
  }
  if (!int8 && f != &fp64() && f != &fp32() && f != &bf16() && f != &fp16())
    throw input_error("--dtype", r.dtype, "expected bf16, fp16, fp32, fp64 or int8");
  for (const matrix_input* m : {&A, &B, C})
    if (m && (m->rows < 0 || m->cols < 0 || int64_t(m->values.size()) != m->rows * m->cols))
      throw input_error(m->name, "shape", fmt::format("{} values for a {}x{} matrix", m->values.size(), m->rows, m->cols));
  if (A.cols != B.rows)
    throw input_error(B.name, "header.shape", fmt::format("B must have {} rows (the columns of A in {}); it has {}", A.cols, A.name, B.rows));
  if (C && (C->rows != A.rows || C->cols != B.cols))
    throw input_error(C->name, "header.shape", fmt::format("C must be {}x{} (A rows x B columns); it is {}x{}", A.rows, B.cols, C->rows, C->cols));
  if (int8) return run_int8(r, A, B, C);
  return f == &fp64() ? run<double>(r, *f, A, B, C) : run<float>(r, *f, A, B, C);
}

}  // namespace sdc
