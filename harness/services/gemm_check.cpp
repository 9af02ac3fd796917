#include "harness/services/gemm_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "detectors/gemm/gemm_detector.hpp"
#include "detectors/quantized/quantized_detectors.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "injectors/tensor_view.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

const detector_info& find_checked(view_kind view, const std::string& name) {
  const detector_info* info = find_detector(view, name);
  if (!info)
    throw input_error("--detector", name, std::string("unknown detector of ") + view_kind_name(view) + " views; `sdcbench list detectors` shows them");
  return *info;
}

template <class T>
gemm_check_result run_float(const gemm_check_request& r, const format& f, const matrix_input& A, const matrix_input& B, const matrix_input* C) {
  gemm_check_result out;
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
  const accumulation_order& order = r.accumulation;
  if (C) {
    fill(C->values, c);
    acc = c;
  } else {
    gemm_run(a.data(), b.data(), acc.data(), s, order);
    for (size_t i = 0; i < acc.size(); ++i) c[i] = round_into<T>(f, double(acc[i]));
  }
  const std::string name = r.detector.name.empty() ? "vabft" : r.detector.name;
  const detector_info* info = &find_checked(view_kind::gemm, name);
  try {
    out.params = validate_params(*info, r.detector.params);
  } catch (const value_error& e) {
    throw input_error("--detector", r.detector.text, e.what());
  }
  const json axes = {{"dtype", std::string(f.name)}, {"accumulation", order.text()}, {"shape", s.text()}};
  auto det = detector_cast<gemm_detector>(info->make(detector_params(out.params, &f), {&f, &f, axes, gemm_context{s, order}}), name, "gemm");
  gemm_data<T> d;
  d.dtype = d.out_fmt = &f, d.shape = s, d.order = order, d.A = a.data(), d.B = b.data(), d.C = c.data(), d.acc = acc.data();
  det->encode(d);
  out.v = det->verify(d);
  out.dtype = f.name, out.shape = s, out.c = C ? "given" : "computed (" + order.text() + ")";
  out.inputs_rounded_to_dtype = rounded, out.detector = name, out.checks = det->explain();
  return out;
}

// Integer matrix values, checked to be integers in [lo, hi].
template <class T>
std::vector<T> integers(const matrix_input& m, double lo, double hi, const char* what) {
  std::vector<T> out(m.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = m.values[i];
    if (!(v >= lo && v <= hi && v == std::nearbyint(v)))
      throw input_error(m.name, fmt::format("element ({}, {})", int64_t(i) / m.cols, int64_t(i) % m.cols),
                        fmt::format("expected {} values: integers in [{}, {}]; got {}", what, lo, hi, v));
    out[i] = T(v);
  }
  return out;
}

gemm_check_result run_int8(const gemm_check_request& r, const matrix_input& A, const matrix_input& B, const matrix_input* C) {
  gemm_check_result out;
  const int64_t m = A.rows, k = A.cols, n = B.cols;
  const auto a = integers<uint8_t>(A, 0, 255, "u8");
  const auto b = integers<int8_t>(B, -128, 127, "s8");
  const std::string name = r.detector.name.empty() ? "abft_int8" : r.detector.name;
  const detector_info& info = find_checked(view_kind::int8_gemm, name);
  std::unique_ptr<detector> base;
  try {
    out.params = validate_params(info, r.detector.params);
    base = info.make(detector_params(out.params, &s32()), {&s8(), &s32(), {{"shape", gemm_shape{m, n, k}.text()}}});
  } catch (const value_error& e) {
    throw input_error("--detector", r.detector.text, e.what());
  }
  auto det = detector_cast<int8_gemm_detector>(std::move(base), info.name, "int8_gemm");
  const int64_t ld = n + det->extra_columns();
  std::vector<int8_t> bp(size_t(k * ld));
  for (int64_t i = 0; i < k; ++i) std::copy_n(b.data() + i * n, n, bp.data() + i * ld);
  det->encode(b.data(), k, n, n, bp.data() + n, ld);
  std::vector<int32_t> c(size_t(m * ld));
  gemm_u8s8s32(m, ld, k, a.data(), k, bp.data(), ld, c.data(), ld);
  if (C) {  // the user's C_temp replaces the data columns; the checksum columns come from A x s
    const auto given_c = integers<int32_t>(*C, double(INT32_MIN), double(INT32_MAX), "int32");
    for (int64_t i = 0; i < m; ++i) std::copy_n(given_c.data() + i * n, n, c.data() + i * ld);
  }
  out.v = det->verify({m, n, k, a.data(), k, bp.data(), ld, c.data(), ld, det->extra_columns() ? c.data() + n : nullptr});
  out.int8 = true, out.dtype = "int8 (A u8, B s8, C int32)", out.shape = {m, n, k};
  out.c = C ? "given" : "computed (" + int8_gemm_kernel_name() + ")";
  out.detector = name, out.checks = det->explain();
  return out;
}

bool is_int8(const std::string& dtype) { return dtype == "int8" || dtype == "s8" || dtype == "u8s8s32"; }

}  // namespace

detector_spec parse_detector_spec(const std::string& spec) {
  detector_spec out;
  out.text = spec;
  const auto colon = spec.find(':');
  out.name = spec.substr(0, colon);
  if (colon == std::string::npos) return out;
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
        out.params[key] = integral ? json(int64_t(num)) : json(num);
      } else {
        out.params[key] = value;
      }
    } catch (const std::exception&) {
      out.params[key] = value;
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

gemm_check_request parse_gemm_check_request(const std::string& dtype, const std::string& detector, const std::string& accumulation) {
  gemm_check_request r;
  const bool int8 = is_int8(dtype);
  try {
    if (!int8) r.dtype = &format_by_name(dtype);
  } catch (const value_error& e) {
    throw input_error("--dtype", dtype, e.what());
  }
  if (!int8 && r.dtype != &fp64() && r.dtype != &fp32() && r.dtype != &bf16() && r.dtype != &fp16())
    throw input_error("--dtype", dtype, "expected bf16, fp16, fp32, fp64 or int8");
  if (!int8) r.accumulation = parse_accumulation(accumulation);
  r.detector = parse_detector_spec(detector);
  return r;
}

gemm_check_result check_gemm(const gemm_check_request& r, const matrix_input& A, const matrix_input& B, const matrix_input* C) {
  for (const matrix_input* m : {&A, &B, C})
    if (m && (m->rows < 0 || m->cols < 0 || int64_t(m->values.size()) != m->rows * m->cols))
      throw input_error(m->name, "shape", fmt::format("{} values for a {}x{} matrix", m->values.size(), m->rows, m->cols));
  if (A.cols != B.rows)
    throw input_error(B.name, "header.shape", fmt::format("B must have {} rows (the columns of A in {}); it has {}", A.cols, A.name, B.rows));
  if (C && (C->rows != A.rows || C->cols != B.cols))
    throw input_error(C->name, "header.shape", fmt::format("C must be {}x{} (A rows x B columns); it is {}x{}", A.rows, B.cols, C->rows, C->cols));
  if (!r.dtype) return run_int8(r, A, B, C);
  return r.dtype == &fp64() ? run_float<double>(r, *r.dtype, A, B, C) : run_float<float>(r, *r.dtype, A, B, C);
}

json to_json(const gemm_check_result& r) {
  const verdict& v = r.v;
  json metrics = json::object();
  for (const auto& [k, x] : v.metrics) metrics[k] = finite_or_null(x);
  json out = {{"dtype", r.dtype},
              {"shape", {{"m", r.shape.m}, {"k", r.shape.k}, {"n", r.shape.n}}},
              {"c", r.c},
              {"detector", {{"name", r.detector}, {"params", r.params}}},
              {"metrics", metrics}};
  if (r.int8) {
    out["verdict"] = {{"flagged", v.flagged}, {"score", finite_or_null(v.score)}};
  } else {
    out["inputs_rounded_to_dtype"] = r.inputs_rounded_to_dtype;
    out["verdict"] = {{"flagged", v.flagged},
                      {"cannot_check", std::any_of(v.metrics.begin(), v.metrics.end(), [](const auto& m) { return m.first == "cannot_check"; })},
                      {"score", finite_or_null(v.score)},
                      {"located_row", v.located_row >= 0 ? json(v.located_row) : json(nullptr)},
                      {"located_col", v.located_col >= 0 ? json(v.located_col) : json(nullptr)},
                      {"corrected_value", finite_or_null(v.corrected_value)}};
  }
  if (!r.checks.is_null()) out["checks"] = r.checks;
  return out;
}

}  // namespace sdc
