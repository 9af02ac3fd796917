// sdcbench._sdcbench's result-set functions (harness/results): load (any
// version, validated, as version 4: the document itself, as JSON text),
// validate (every problem), compare (McNemar on the same faults; the table
// `sdcbench compare` prints and its rows, from the typed reader).
#include <pybind11/stl.h>

#include "foundation/io/json_file.hpp"
#include "harness/results/report.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_reader.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace sdc::python {

void bind_results(py::module_& m) {
  m.def("load_result_set", [](const std::string& path) { return load_result_document(path).dump(); }, py::arg("path"));
  m.def("validate_result_set", [](const std::string& path) { return validate_result_set(read_json_file(path)); }, py::arg("path"));
  m.def(
      "compare_result_sets",
      [](const std::string& a, const std::string& b, double alpha) {
        const compare_summary s = compare_results(load_result_set(a), load_result_set(b), alpha);
        return py::make_tuple(s.table, s.rows.dump());
      },
      py::arg("a"), py::arg("b"), py::arg("alpha") = 0.05);
}

}  // namespace sdc::python
