// A detector written in Python: a suite names `"python": "module:function"`
// (harness/campaign/suite.cpp), and the campaign calls the function on each
// step's view and scores it on the same faults as the built-in detectors.
//   gemm views:   function(A, B, C, **kwargs), numpy arrays (C as stored, in the
//                 cell's format held in float32/float64; read-only copies)
//   sample views: function(values, **kwargs), the sample (log-norms) as float64
//   int8 GEMM, EmbeddingBag and training views: below, at their classes
// It returns a bool, or a dict with "flagged" and optionally "score",
// "located_row", "located_col". The interpreter is embedded (pybind11) and
// started at the first Python detector; its module search path has the
// working directory and the data directory's examples/. Each call holds the
// GIL, so threads interleave but every verdict depends only on its inputs: the
// same seed gives the same result set at any thread count when the function is
// deterministic. An exception in the function becomes an error naming the
// callable and the Python exception (the campaign adds the cell and trial).
// Built into the program only with SDCBENCH_ENABLE_PYTHON (python/CMakeLists.txt).
#include <pybind11/embed.h>
#include <pybind11/numpy.h>

#include <fmt/format.h>

#include <mutex>
#include <optional>

#include "detectors/gemm/gemm_detector.hpp"
#include "detectors/quantized/quantized_detectors.hpp"
#include "detectors/gradient/sample_detector.hpp"
#include "protocol/views/training_view.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/data_files.hpp"

namespace py = pybind11;

namespace sdc {
namespace {

using json = nlohmann::json;

// Starts the interpreter once (unless this process is Python itself) and
// leaves the GIL released for the campaign's threads.
void ensure_interpreter() {
  static std::once_flag once;
  std::call_once(once, [] {
    const bool embedded = !Py_IsInitialized();
    if (embedded) py::initialize_interpreter();
    {
      std::optional<py::gil_scoped_acquire> gil;
      if (!embedded) gil.emplace();
      py::module_ sys = py::module_::import("sys");
      py::list path = sys.attr("path");
      path.insert(0, std::string("."));
      path.append((data_dir() / "examples").string());
      // pybind11's numpy API is a function-local static that imports numpy:
      // made here, on one thread, not first by two campaign threads at once
      // (one would wait on the static's guard holding the GIL the other needs).
      py::array_t<double> warm(1);
      py::array_t<float> warm32(1);
    }
    if (embedded) PyEval_SaveThread();
  });
}

py::object to_py(const json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

class python_call {
 public:
  python_call(std::string callable, const json& kwargs) : name_(std::move(callable)) {
    const auto colon = name_.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == name_.size())
      throw value_error(fmt::format("python: expected \"module:function\"; got \"{}\"", name_));
    ensure_interpreter();
    py::gil_scoped_acquire gil;
    try {
      fn_ = py::module_::import(name_.substr(0, colon).c_str()).attr(name_.substr(colon + 1).c_str());
      kwargs_ = to_py(kwargs);
    } catch (const py::error_already_set& e) {
      throw value_error(fmt::format("python detector {}: cannot load it: {}", name_, e.what()));
    }
  }
  ~python_call() {
    py::gil_scoped_acquire gil;
    fn_ = py::object(), kwargs_ = py::object();
  }

  template <class... Arrays>
  verdict call(Arrays&&... arrays) {
    py::gil_scoped_acquire gil;
    try {
      return read(fn_(std::forward<Arrays>(arrays)..., **py::dict(kwargs_)));
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(fmt::format("python detector {}: {}", name_, e.what()));
    } catch (const py::cast_error& e) {
      throw std::runtime_error(fmt::format("python detector {}: {}", name_, e.what()));
    }
  }

 private:
  verdict read(const py::object& r) const {
    verdict v;
    if (py::isinstance<py::bool_>(r)) {
      v.flagged = r.cast<bool>();
      return v;
    }
    if (!py::isinstance<py::dict>(r) || !r.contains("flagged"))
      throw std::runtime_error(fmt::format("python detector {}: expected it to return a bool or a dict with \"flagged\"; got {}",
                                           name_, std::string(py::str(r.get_type().attr("__name__")))));
    const py::dict d = r;
    v.flagged = d["flagged"].cast<bool>();
    if (d.contains("score") && !d["score"].is_none()) v.score = d["score"].cast<double>();
    if (d.contains("located_row") && !d["located_row"].is_none()) v.located_row = d["located_row"].cast<int64_t>();
    if (d.contains("located_col") && !d["located_col"].is_none()) v.located_col = d["located_col"].cast<int64_t>();
    return v;
  }

  std::string name_;
  py::object fn_, kwargs_;
};

template <class T>
py::array_t<T> matrix(const T* p, int64_t rows, int64_t cols) {
  return py::array_t<T>({py::ssize_t(rows), py::ssize_t(cols)}, p);  // a copy: the function cannot write the campaign's data
}

class python_gemm final : public gemm_detector {
 public:
  explicit python_gemm(const detector_params& p) : call_(p.choice("callable"), p.json().at("kwargs")) {}
  void encode(const gemm_data<float>&) override {}
  void encode(const gemm_data<double>&) override {}
  verdict verify(const gemm_data<float>& d) override { return run(d); }
  verdict verify(const gemm_data<double>& d) override { return run(d); }

 private:
  template <class T>
  verdict run(const gemm_data<T>& d) {
    const auto& s = d.shape;
    py::gil_scoped_acquire gil;
    return call_.call(matrix(d.A, s.m, s.k), matrix(d.B, s.k, s.n), matrix(d.C, s.m, s.n));
  }
  python_call call_;
};

class python_sample final : public gradient_detector {
 public:
  explicit python_sample(const detector_params& p) : call_(p.choice("callable"), p.json().at("kwargs")) {}
  verdict verify(const gradient_data& d) override {
    py::gil_scoped_acquire gil;
    return call_.call(py::array_t<double>(py::ssize_t(d.m), d.log_norms));
  }

 private:
  python_call call_;
};

// int8 GEMM views (004): function(A, B, C, **kwargs), A u8 m x k, B s8 k x n,
// C int32 m x n (the data columns of C', after any fault).
class python_int8 final : public int8_gemm_detector {
 public:
  explicit python_int8(const detector_params& p) : call_(p.choice("callable"), p.json().at("kwargs")) {}
  void encode(const int8_t*, int64_t, int64_t, int64_t, int8_t*, int64_t) override {}
  verdict verify(const int8_gemm_data& d) override {
    py::gil_scoped_acquire gil;
    return call_.call(strided(d.A, d.m, d.k, d.lda), strided(d.B, d.k, d.n, d.ldb), strided(d.C, d.m, d.n, d.ldc));
  }

 private:
  template <class T>
  static py::array_t<T> strided(const T* p, int64_t rows, int64_t cols, int64_t ld) {
    py::array_t<T> out({py::ssize_t(rows), py::ssize_t(cols)});
    for (int64_t i = 0; i < rows; ++i) std::copy_n(p + i * ld, cols, out.mutable_data(i, 0));
    return out;
  }
  python_call call_;
};

// EmbeddingBag views (004): function(codes, alpha, beta, indices, offsets,
// weights, out, **kwargs): the table's codes (rows x dim, u8) and per-row
// scale and bias as the kernel read them, the batch (weights None for a
// plain sum), and the bags' output (bags x dim, fp32).
class python_embedding_bag final : public embedding_bag_detector {
 public:
  explicit python_embedding_bag(const detector_params& p) : call_(p.choice("callable"), p.json().at("kwargs")) {}
  verdict verify(const embedding_bag_data& d) override {
    const quantized_table& t = *d.table;
    const bag_batch& b = *d.batch;
    py::gil_scoped_acquire gil;
    py::array_t<uint8_t> codes({py::ssize_t(t.rows), py::ssize_t(t.dim)});
    py::array_t<float> alpha(py::ssize_t(t.rows)), beta(py::ssize_t(t.rows));
    for (int64_t i = 0; i < t.rows; ++i) {
      for (int64_t j = 0; j < t.dim; ++j) *codes.mutable_data(i, j) = uint8_t(t.code(i, j));
      *alpha.mutable_data(i) = t.alpha(i), *beta.mutable_data(i) = t.beta(i);
    }
    py::object weights = b.weights.empty() ? py::object(py::none()) : py::object(py::array_t<float>(py::ssize_t(b.weights.size()), b.weights.data()));
    return call_.call(codes, alpha, beta, py::array_t<int64_t>(py::ssize_t(b.indices.size()), b.indices.data()),
                      py::array_t<int64_t>(py::ssize_t(b.offsets.size()), b.offsets.data()), weights,
                      matrix(d.out, b.bags(), t.dim));
  }

 private:
  python_call call_;
};

// Training views, one rank at a time (per_rank blames the rank it fires on):
// function(loss, grads, **kwargs), the rank's loss and its flat fp32 gradient
// before the all-reduce (parameter order).
class python_training final : public detector {
 public:
  explicit python_training(const detector_params& p) : call_(p.choice("callable"), p.json().at("kwargs")) {}
  verdict observe(const step_view& v) override {
    const auto& t = view_cast<training_step>(v, view_kind::training);
    py::gil_scoped_acquire gil;
    return call_.call(py::float_(t.loss), py::array_t<float>(py::ssize_t(t.grads.size()), t.grads.data()));
  }

 private:
  python_call call_;
};

std::vector<param_spec> python_params() {
  return {{"callable", param_spec::type::text, "", "the function, \"module:function\" (the suite's \"python\" key)", {}},
          {"kwargs", param_spec::type::object, json::object(), "keyword arguments of every call (the suite's \"params\")", {}}};
}

// One registration per view kind: the class that calls the function on it.
template <class D>
detector_info python_info(view_kind view, std::string on) {
  return {view, "python", "a Python function on " + on + ": a suite's \"python\": \"module:function\"", python_params(),
          [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> { return std::make_unique<D>(p); }};
}

SDCBENCH_REGISTER_DETECTOR(python_info<python_gemm>(view_kind::gemm, "(A, B, C)"));
SDCBENCH_REGISTER_DETECTOR(python_info<python_int8>(view_kind::int8_gemm, "(A u8, B s8, C int32)"));
SDCBENCH_REGISTER_DETECTOR(python_info<python_embedding_bag>(view_kind::embedding_bag, "(codes, alpha, beta, indices, offsets, weights, out)"));
SDCBENCH_REGISTER_DETECTOR(python_info<python_training>(view_kind::training, "(loss, grads) of one rank"));
SDCBENCH_REGISTER_DETECTOR(python_info<python_sample>(view_kind::sample, "the sample (values)"));

}  // namespace
}  // namespace sdc
