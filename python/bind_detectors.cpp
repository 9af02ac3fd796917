// sdcbench._sdcbench's detectors on arrays: each runs the service the
// command that checks a user's own files runs (harness/services), so a verdict
// from Python has the same fields as `sdcbench check-gemm` / `sdcbench stat`:
//   check_gemm   a GEMM check on (A, B[, C])                      gemm_check.hpp
//   stat         000's tests (folding + W1, ...) on gradient log-norms   stat_tests.hpp
//   feature_value / npu_asd   003's checks over steps             feature_value.hpp
//   consistency  002's metrics on per-rank losses and gradients   consistency_check.hpp
//   FeatureValue 003's feature value kept across calls, one step each (feature_value_tracker)
//   checksum     003's bf16 matmul CheckSum, either original's    detectors/ascend/matmul_checksum.hpp
// Each returns JSON text; sdcbench/__init__.py parses it.
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include <fmt/format.h>

#include "detectors/ascend/matmul_checksum.hpp"
#include "foundation/errors.hpp"
#include "harness/services/consistency_check.hpp"
#include "harness/services/feature_value.hpp"
#include "harness/services/gemm_check.hpp"
#include "harness/services/stat_tests.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace sdc::python {

array_values values_of(const py::array& a) {
  const auto d = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!d) throw input_error("array", "dtype", "expected an array of real numbers");
  array_values out;
  out.values.assign(d.data(), d.data() + d.size());
  for (py::ssize_t i = 0; i < d.ndim(); ++i) out.shape.push_back(int64_t(d.shape(i)));
  return out;
}

namespace {

values_input input_of(const py::array& a, const std::string& name) {
  array_values v = values_of(a);
  return {name, std::move(v.values), std::move(v.shape)};
}

matrix_input matrix_of(const py::array& a, const std::string& name) {
  array_values v = values_of(a);
  if (v.shape.size() != 2) throw input_error(name, "shape", "expected a 2-D matrix; got " + std::to_string(v.shape.size()) + " dimensions");
  return {name, std::move(v.values), v.shape[0], v.shape[1]};
}

std::string check_gemm_arrays(const py::array& a, const py::array& b, const std::optional<py::array>& c, const std::string& dtype,
                              const std::string& detector, const std::string& accumulation) {
  const matrix_input A = matrix_of(a, "A"), B = matrix_of(b, "B");
  const std::optional<matrix_input> C = c ? std::optional(matrix_of(*c, "C")) : std::nullopt;
  const gemm_check_request r = parse_gemm_check_request(dtype, detector, accumulation);
  return to_json(check_gemm(r, A, B, C ? &*C : nullptr)).dump();
}

std::string stat_array(const std::string& name, const py::array& values, std::optional<double> tau, std::optional<double> alpha,
                       std::optional<int64_t> B, std::optional<int64_t> seed) {
  const values_input in = input_of(values, "values");
  return to_json(run_stat(parse_stat_test(name), in, stat_options{tau, alpha, B, seed})).dump();
}

}  // namespace

void bind_detectors(py::module_& m) {
  m.def("check_gemm", &check_gemm_arrays, py::arg("a"), py::arg("b"), py::arg("c") = py::none(), py::arg("dtype") = "fp32",
        py::arg("detector") = "", py::arg("accumulation") = "sequential");
  m.def("stat", &stat_array, py::arg("name"), py::arg("values"), py::arg("tau") = py::none(), py::arg("alpha") = py::none(),
        py::arg("B") = py::none(), py::arg("seed") = py::none());
  m.def("stat_names", &stat_test_names);
  m.def(
      "feature_value",
      [](const py::array& values, const std::string& variant, const std::map<std::string, std::string>& params) {
        const values_input in = input_of(values, "values");
        return to_json(run_feature_value(in, parse_feature_value_options(variant, params))).dump();
      },
      py::arg("values"), py::arg("variant") = "mindspore", py::arg("params") = std::map<std::string, std::string>{});
  py::class_<feature_value_tracker>(m, "FeatureValue")
      .def(py::init([](int64_t columns, const std::string& variant, const std::map<std::string, std::string>& params) {
             return feature_value_tracker(columns, parse_feature_value_options(variant, params));
           }),
           py::arg("parameters"), py::arg("variant") = "mindspore", py::arg("params") = std::map<std::string, std::string>{})
      .def(
          "step",
          [](feature_value_tracker& t, const py::array& row) {  // the columns that alarmed at this step
            const array_values v = values_of(row);
            if (int64_t(v.values.size()) != t.columns())
              throw input_error("FeatureValue.step", "row", fmt::format("expected {} values (one per parameter); got {}", t.columns(), v.values.size()));
            const size_t before = t.alarms().size();
            t.step(v.values.data());
            py::list cols;
            for (size_t i = before; i < t.alarms().size(); ++i) cols.append(t.alarms()[i].column);
            return cols;
          },
          py::arg("row"))
      .def("result", [](const feature_value_tracker& t) { return to_json(t.result()).dump(); });
  m.def(
      "checksum",
      [](const py::array& a, const py::array& b, const py::array& c, const std::string& variant, bool bf16) {
        const matrix_input A = matrix_of(a, "A"), B = matrix_of(b, "B"), C = matrix_of(c, "C");
        if (A.cols != B.rows || C.rows != A.rows || C.cols != B.cols)
          throw input_error("checksum", "shapes", fmt::format("expected A m x k, B k x n, C m x n; got {}x{}, {}x{}, {}x{}", A.rows,
                                                              A.cols, B.rows, B.cols, C.rows, C.cols));
        if (variant != "mindspore" && variant != "torch_npu") throw input_error("checksum", "variant", "expected mindspore or torch_npu");
        const std::vector<float> fa(A.values.begin(), A.values.end()), fb(B.values.begin(), B.values.end()),
            fc(C.values.begin(), C.values.end());
        const checksum_result r = matmul_checksum({A.rows, A.cols, B.cols, fa.data(), fb.data(), fc.data(), bf16},
                                                  variant == "mindspore" ? checksum_variant::mindspore : checksum_variant::torch_npu);
        py::dict d;
        d["failed"] = r.failed, d["worst_row"] = r.worst_row >= 0 ? py::object(py::int_(r.worst_row)) : py::object(py::none());
        d["worst_ratio"] = r.worst_ratio, d["rows_flagged"] = r.rows_flagged;
        return d;
      },
      py::arg("a"), py::arg("b"), py::arg("c"), py::arg("variant") = "mindspore", py::arg("bf16") = true);
  m.def(
      "npu_asd",
      [](const py::array& values, const std::map<std::string, std::string>& params) {
        const values_input in = input_of(values, "values");
        return to_json(run_npu_asd(in, parse_npu_asd_options(params))).dump();
      },
      py::arg("values"), py::arg("params") = std::map<std::string, std::string>{});
  m.def(
      "consistency",
      [](const py::array& losses, const py::array& grads) {
        return to_json(run_consistency(input_of(losses, "losses"), input_of(grads, "grads"))).dump();
      },
      py::arg("losses"), py::arg("grads"));
}

}  // namespace sdc::python
