// sdcbench._sdcbench.Monitor: the training monitor (harness/services/
// training_monitor.hpp) on a user's own PyTorch loop. sdcbench/monitor.py
// hands it, each step, every rank's loss and flat fp32 gradient before the
// all-reduce, with where it injected a fault; this file turns numpy arrays
// into spans and verdicts into dicts, and writes the result set.
#include <fmt/format.h>
#include <pybind11/stl.h>

#include <tuple>

#include <cmath>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/services/training_monitor.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace sdc::python {
namespace {

using json = nlohmann::json;

// detectors: [{name, label?, params?}] as in a suite; meta: {name, description, seed, axes}.
training_monitor make_monitor(const std::string& detectors, const std::vector<std::string>& names,
                              const std::vector<std::vector<int64_t>>& shapes, int ranks, const std::string& meta) {
  return training_monitor(monitor_setup{detectors, json::parse(meta), names, shapes, ranks});
}

// faults: [(rank, flat index, old value, new value)] injected at this step, before these views.
py::list observe(training_monitor& m, int64_t step, const py::array& losses, const py::array& grads,
                 const std::vector<std::tuple<int, int64_t, double, double>>& faults) {
  const auto l = values_of(losses);
  const auto g = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(grads);
  if (!g || g.ndim() != 2 || g.shape(0) != m.ranks() || g.shape(1) != m.numel() || int64_t(l.values.size()) != m.ranks())
    throw input_error("Monitor", "observe", fmt::format("expected {} losses and a {} x {} fp32 gradient array", m.ranks(), m.ranks(), m.numel()));
  std::vector<monitored_fault> fs;
  for (const auto& [rank, index, old_value, new_value] : faults) fs.push_back({rank, index, old_value, new_value});
  py::list out;
  for (const monitor_verdict& v : m.observe(step, l.values, {g.data(), size_t(g.size())}, fs)) {
    py::dict d;
    d["label"] = v.label, d["flagged"] = v.flagged, d["rank"] = v.rank >= 0 ? py::object(py::int_(v.rank)) : py::none();
    d["score"] = std::isnan(v.score) ? py::object(py::none()) : py::object(py::float_(v.score));
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_monitor(py::module_& m) {
  py::class_<training_monitor>(m, "Monitor")
      .def(py::init(&make_monitor), py::arg("detectors"), py::arg("names"), py::arg("shapes"), py::arg("ranks"), py::arg("meta"))
      .def("begin", &training_monitor::begin, py::arg("faulty"), py::arg("trial"), py::arg("steps"))
      .def("observe", &observe, py::arg("step"), py::arg("losses"), py::arg("grads"), py::arg("faults"))
      .def("end", &training_monitor::end)
      .def(
          "write",
          [](const training_monitor& t, const std::string& path, const std::vector<std::string>& argv, const std::string& started) {
            write_json_atomic(path, t.result_set(argv, started));
          },
          py::arg("path"), py::arg("argv"), py::arg("started"));
}

}  // namespace sdc::python
