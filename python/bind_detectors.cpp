// sdcbench._sdcbench's detectors on arrays: each runs the code path of the
// command that checks a user's own values (harness/cli), so a verdict from
// Python has the same fields as `sdcbench check-gemm` / `sdcbench stat`:
//   check_gemm   a GEMM check on (A, B[, C])                      gemm_check.hpp
//   stat         000's tests (folding + W1, ...) on gradient log-norms   stat_command.hpp
//   feature_value / npu_asd   003's checks over steps             silent_stat_command.hpp
//   consistency  002's metrics on per-rank losses and gradients   training_stat_command.hpp
// Each returns JSON text; sdcbench/__init__.py parses it.
#include <pybind11/stl.h>

#include <map>
#include <optional>

#include "foundation/errors.hpp"
#include "harness/cli/gemm_check.hpp"
#include "harness/cli/silent_stat_command.hpp"
#include "harness/cli/stat_command.hpp"
#include "harness/cli/training_stat_command.hpp"
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
  check_gemm_request r;
  r.dtype = dtype, r.detector = detector, r.accumulation = accumulation;
  const matrix_input A = matrix_of(a, "A"), B = matrix_of(b, "B");
  if (!c) return check_gemm(r, A, B, nullptr).dump();
  const matrix_input C = matrix_of(*c, "C");
  return check_gemm(r, A, B, &C).dump();
}

std::string stat_array(const std::string& name, const py::array& values, std::optional<double> tau, std::optional<double> alpha,
                       std::optional<int64_t> B, std::optional<int64_t> seed) {
  return run_stat(name, input_of(values, "values"), stat_options{tau, alpha, B, seed}).dump();
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
        return run_feature_value_stat(input_of(values, "values"), variant, params).dump();
      },
      py::arg("values"), py::arg("variant") = "mindspore", py::arg("params") = std::map<std::string, std::string>{});
  m.def(
      "npu_asd",
      [](const py::array& values, const std::map<std::string, std::string>& params) {
        return run_npu_asd_stat(input_of(values, "values"), params).dump();
      },
      py::arg("values"), py::arg("params") = std::map<std::string, std::string>{});
  m.def(
      "consistency",
      [](const py::array& losses, const py::array& grads) {
        return run_consistency_stat(input_of(losses, "losses"), input_of(grads, "grads")).dump();
      },
      py::arg("losses"), py::arg("grads"));
}

}  // namespace sdc::python
