// The Python module `sdcbench._sdcbench` (pybind11): the C++ core's injectors,
// detectors and result-set functions on arrays in memory. Values cross as
// contiguous numpy arrays and JSON text (the wrappers in sdcbench/__init__.py
// parse it), so the module needs neither libtorch's Python bindings nor a JSON
// binding library. Errors of the core (input_error, value_error) arrive in
// Python as ValueError with the core's message.
#include <pybind11/pybind11.h>

#include "foundation/errors.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_sdcbench, m) {
  m.doc() = "sdcbench's C++ core: injectors, detectors and result sets (see the package sdcbench)";
  m.attr("version") = SDCBENCH_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const sdc::input_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const sdc::value_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  sdc::python::bind_injectors(m);
  sdc::python::bind_detectors(m);
  sdc::python::bind_results(m);
  sdc::python::bind_monitor(m);
  sdc::python::bind_block_scaled(m);
}
