// sdcbench._sdcbench.inject: injectors/inject.hpp on a numpy array, in place.
// The array holds the elements of one format: float64 (fp64), float32 (fp32),
// int8 (int8), or the bit patterns of a narrower float as unsigned or signed
// integers of its width (bf16 and fp16: 16 bits, torch's `t.view(torch.int16)`
// or numpy float16 viewed as uint16; fp8: 8 bits). A narrow float is held in
// float32 while the injector runs, exactly, NaN payloads included
// (injectors/tensor_view.hpp), so every bit is as the C++ campaigns leave it.
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/random/streams.hpp"
#include "injectors/fault_target.hpp"
#include "injectors/inject.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace sdc::python {
namespace {

py::dict record_dict(const injection_record& r) {
  py::dict d;
  d["applied"] = r.applied, d["skip_reason"] = r.skip_reason, d["index"] = r.index, d["row"] = r.row, d["col"] = r.col;
  d["old_bits"] = r.old_bits, d["new_bits"] = r.new_bits, d["old_value"] = r.old_value, d["new_value"] = r.new_value;
  d["attempts"] = r.attempts, d["pattern"] = r.pattern;
  return d;
}

fault_spec parse_spec(const format& f, const std::string& fault, const std::string& bit, const std::string& site) {
  fault_spec spec;
  try {
    spec.model = parse_fault_model(fault);
    spec.site = parse_site_rule(site);
    std::string why, axis;
    const auto bits = resolve_fault_bits(spec.model, parse_bit_choice(bit), f, &why, &axis);
    if (!bits) throw input_error(axis == "fault" ? "fault" : "bit", axis == "fault" ? fault : bit, why);
    spec.bits = *bits;
  } catch (const value_error& e) {
    throw input_error("inject", fault + " / " + bit + " / " + site, e.what());
  }
  return spec;
}

std::vector<injection_record> apply(fault_target& t, const fault_spec& spec, rng& g) {
  if (spec.site.k == site_rule::kind::max_abs) return inject_max_abs(t, spec, g);
  if (spec.site.multi()) return inject_pattern(t, spec, g);
  return {inject(t, spec, g)};
}

py::list inject_array(py::array a, const std::string& format_name, const std::string& fault, const std::string& bit,
                      const std::string& site, uint64_t seed) {
  const format* f = nullptr;
  try {
    f = &format_by_name(format_name);
  } catch (const value_error& e) {
    throw input_error("format", format_name, e.what());
  }
  if (!(a.flags() & py::array::c_style) || !a.writeable())
    throw input_error("array", "flags", "expected a writeable C-contiguous array (injection is in place)");
  if (a.ndim() < 1 || a.size() < 1) throw input_error("array", "shape", "expected at least one element");
  const int64_t cols = a.shape(a.ndim() - 1), rows = int64_t(a.size()) / cols;
  const fault_spec spec = parse_spec(*f, fault, bit, site);
  rng g(seed);
  const char kind = a.dtype().kind();
  const auto width = int(a.itemsize()) * 8;
  std::vector<injection_record> recs;
  const bool held = f->storage == storage_type::f32 && f->bits < 32;
  if (held) {  // bit patterns of a narrow float, held in float32 while injecting
    if (!((kind == 'u' || kind == 'i' || kind == 'f') && width == f->bits))
      throw input_error("array", "dtype", fmt::format("{}: expected its {}-bit patterns (an integer array of that width); got {}{}",
                                                      f->name, f->bits, kind, width));
    std::vector<float> hold(size_t(a.size()));
    tensor_view v{f, hold.data(), rows, cols, 0};
    auto pattern = [&](int64_t i) -> uint64_t {
      return width == 16 ? static_cast<const uint16_t*>(a.data())[i] : static_cast<const uint8_t*>(a.data())[i];
    };
    for (int64_t i = 0; i < int64_t(a.size()); ++i) v.set_bits(i, pattern(i));
    tensor_target t(v);
    recs = apply(t, spec, g);
    for (int64_t i = 0; i < int64_t(a.size()); ++i) {
      if (width == 16) static_cast<uint16_t*>(a.mutable_data())[i] = uint16_t(v.bits_at(i));
      else static_cast<uint8_t*>(a.mutable_data())[i] = uint8_t(v.bits_at(i));
    }
  } else {
    const bool ok = (f->storage == storage_type::f64 && kind == 'f' && width == 64) ||
                    (f->storage == storage_type::f32 && kind == 'f' && width == 32) ||
                    (f->storage == storage_type::s8 && kind == 'i' && width == 8) ||
                    (f->storage == storage_type::u8 && kind == 'u' && width == 8) ||
                    (f->storage == storage_type::s32 && kind == 'i' && width == 32);
    if (!ok) throw input_error("array", "dtype", fmt::format("{}: the array's dtype ({}{}) does not hold this format", f->name, kind, width));
    tensor_target t(tensor_view{f, a.mutable_data(), rows, cols, 0});
    recs = apply(t, spec, g);
  }
  py::list out;
  for (const auto& r : recs) out.append(record_dict(r));
  return out;
}

}  // namespace

void bind_injectors(py::module_& m) {
  m.def("inject", &inject_array, py::arg("array"), py::arg("format"), py::arg("fault") = "bitflip", py::arg("bit") = "none",
        py::arg("site") = "uniform", py::arg("seed") = 0,
        "Injects one fault (or a multi-element site's) into the array in place; returns the injection records");
  m.def("formats", [] {
    py::list out;
    for (const auto& f : all_formats()) out.append(std::string(f.name));
    return out;
  });
}

}  // namespace sdc::python
