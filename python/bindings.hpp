// The parts of the Python module (python/module.cpp), one file each.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace sdc::python {

void bind_injectors(pybind11::module_& m);
void bind_detectors(pybind11::module_& m);
void bind_results(pybind11::module_& m);
void bind_monitor(pybind11::module_& m);
void bind_block_scaled(pybind11::module_& m);

// A numpy array's values as doubles (any real dtype; copied, C order) and its shape.
struct array_values {
  std::vector<double> values;
  std::vector<int64_t> shape;
};
array_values values_of(const pybind11::array& a);

}  // namespace sdc::python
