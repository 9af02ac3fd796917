// sdcbench._sdcbench.quantize / dequantize / inject_block: the block-scaled
// formats (foundation/formats/block_scaled.hpp) and faults in them
// (injectors/block_target.hpp) on numpy arrays. A quantized tensor crosses as
// its parts: codes (uint8, the input's shape), scales (uint8, one per block),
// the tensor scale (a float) and the blocked axis; sdcbench/__init__.py keeps
// them together in a dict.
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/formats/block_scaled.hpp"
#include "foundation/random/streams.hpp"
#include "injectors/block_target.hpp"
#include "python/bindings.hpp"

namespace py = pybind11;

namespace sdc::python {
namespace {

using u8_array = py::array_t<uint8_t, py::array::c_style>;

const block_format& block_format_named(const std::string& name) {
  try {
    return block_format_by_name(name);
  } catch (const value_error& e) {
    throw input_error("format", name, e.what());
  }
}

// rows x cols of a 1-D (one row) or 2-D array.
std::pair<int64_t, int64_t> matrix_shape(const py::array& a, const char* what) {
  if (a.ndim() == 1) return {1, a.shape(0)};
  if (a.ndim() == 2) return {a.shape(0), a.shape(1)};
  throw input_error(what, "shape", fmt::format("expected a 1-D or 2-D array, got {} dimensions", a.ndim()));
}

quantize_options options_of(const py::object& rounding_arg, const std::string& scale_rule) {
  quantize_options o;
  if (!rounding_arg.is_none()) {
    const std::string rounding = py::str(rounding_arg);
    if (rounding == "ties_away" || rounding == "nearest") o.rounding = block_rounding::ties_away;
    else if (rounding == "even") o.rounding = block_rounding::even;
    else throw input_error("rounding", rounding, "expected ties_away (microxcaling's \"nearest\"), even, or None (the format's default)");
  }
  if (scale_rule == "rceil") o.scale_rule = mx_scale_rule::rceil;
  else if (scale_rule != "floor") throw input_error("scale_rule", scale_rule, "expected floor (microxcaling) or rceil (TransformerEngine's MXFP8 variant)");
  return o;
}

int matrix_axis(int axis, const py::array& a) {
  if (a.ndim() == 1) {
    if (axis != 0 && axis != -1) throw input_error("axis", std::to_string(axis), "expected 0 or -1 for a 1-D array");
    return 1;
  }
  return axis;  // 2-D: quantize() checks it
}

py::dict quantize_array(py::array_t<float, py::array::c_style | py::array::forcecast> x, const std::string& name, int axis,
                        const py::object& rounding, const std::string& scale_rule) {
  const block_format& f = block_format_named(name);
  const auto [rows, cols] = matrix_shape(x, "x");
  const block_tensor t = quantize(std::span<const float>(x.data(), size_t(x.size())), rows, cols, matrix_axis(axis, x), f,
                                  options_of(rounding, scale_rule));
  u8_array codes(std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()));
  std::copy(t.codes.begin(), t.codes.end(), codes.mutable_data());
  std::vector<py::ssize_t> sshape = {py::ssize_t(t.scale_rows()), py::ssize_t(t.scale_cols())};
  if (x.ndim() == 1) sshape = {py::ssize_t(t.scale_cols())};
  u8_array scales(sshape);
  std::copy(t.scales.begin(), t.scales.end(), scales.mutable_data());
  py::dict d;
  d["format"] = name, d["codes"] = codes, d["scales"] = scales, d["tensor_scale"] = t.tensor_scale;
  d["axis"] = x.ndim() == 1 ? -1 : (t.axis == 1 ? -1 : 0);
  return d;
}

// The block_tensor the arrays hold (copied in), checked against the format.
block_tensor tensor_of(const std::string& name, const u8_array& codes, const u8_array& scales, float tensor_scale, int axis) {
  const auto [rows, cols] = matrix_shape(codes, "codes");
  block_tensor t{.fmt = &block_format_named(name), .rows = rows, .cols = cols, .axis = (codes.ndim() == 1 || axis == 1 || axis == -1) ? 1 : 0};
  t.codes.assign(codes.data(), codes.data() + codes.size());
  t.tensor_scale = tensor_scale;
  if (scales.size() != t.scale_rows() * t.scale_cols())
    throw input_error("scales", "shape", fmt::format("expected {} block scales for {} codes of {}, got {}", t.scale_rows() * t.scale_cols(),
                                                     codes.size(), name, scales.size()));
  t.scales.assign(scales.data(), scales.data() + scales.size());
  return t;
}

py::array_t<float> dequantize_arrays(const std::string& name, const u8_array& codes, const u8_array& scales, float tensor_scale, int axis) {
  const block_tensor t = tensor_of(name, codes, scales, tensor_scale, axis);
  py::array_t<float> out(std::vector<py::ssize_t>(codes.shape(), codes.shape() + codes.ndim()));
  const auto v = dequantize(t);
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

py::tuple inject_block_arrays(const std::string& name, u8_array codes, u8_array scales, float tensor_scale, int axis,
                              const std::string& part_name, const std::string& fault, const std::string& bit,
                              const std::string& site, uint64_t seed) {
  block_tensor t = tensor_of(name, codes, scales, tensor_scale, axis);
  fault_spec spec;
  block_part part;
  try {
    part = parse_block_part(part_name);
    block_part_target probe(t, part);
    spec.model = parse_fault_model(fault);
    spec.site = parse_site_rule(site);
    std::string why, blame;
    const auto bits = resolve_fault_bits(spec.model, parse_bit_choice(bit), probe.fmt(), &why, &blame);
    if (!bits) throw input_error(blame == "fault" ? "fault" : "bit", blame == "fault" ? fault : bit, why);
    spec.bits = *bits;
  } catch (const value_error& e) {
    throw input_error("inject", part_name + " / " + fault + " / " + bit + " / " + site, e.what());
  }
  rng g(seed);
  std::vector<block_injection_record> recs;
  if (spec.site.multi()) recs = inject_block_pattern(t, part, spec, g);
  else recs.push_back(inject_block(t, part, spec, g));
  std::copy(t.codes.begin(), t.codes.end(), codes.mutable_data());
  std::copy(t.scales.begin(), t.scales.end(), scales.mutable_data());
  py::list out;
  for (const auto& r : recs) {
    py::dict d;
    const auto& f = r.fault;
    d["part"] = std::string(block_part_name(r.part)), d["applied"] = f.applied, d["skip_reason"] = f.skip_reason;
    d["index"] = f.index, d["row"] = f.row, d["col"] = f.col, d["old_bits"] = f.old_bits, d["new_bits"] = f.new_bits;
    d["old_value"] = f.old_value, d["new_value"] = f.new_value, d["attempts"] = f.attempts, d["pattern"] = f.pattern;
    py::list moved, old_values, new_values;
    for (size_t k = 0; k < r.moved.size(); ++k)
      moved.append(r.moved[k]), old_values.append(r.old_values[k]), new_values.append(r.new_values[k]);
    d["moved"] = moved, d["old_values"] = old_values, d["new_values"] = new_values;
    out.append(d);
  }
  return py::make_tuple(out, t.tensor_scale);
}

}  // namespace

void bind_block_scaled(py::module_& m) {
  m.def("quantize", &quantize_array, py::arg("x"), py::arg("format"), py::arg("axis") = -1, py::arg("rounding") = py::none(),
        py::arg("scale_rule") = "floor", "Quantizes a 1-D or 2-D float32 array to a block-scaled format");
  m.def("dequantize", &dequantize_arrays, py::arg("format"), py::arg("codes"), py::arg("scales"), py::arg("tensor_scale"),
        py::arg("axis"), "The float32 values of a block-scaled tensor's codes and scales");
  m.def("inject_block", &inject_block_arrays, py::arg("format"), py::arg("codes"), py::arg("scales"), py::arg("tensor_scale"),
        py::arg("axis"), py::arg("part"), py::arg("fault"), py::arg("bit"), py::arg("site"), py::arg("seed"),
        "Injects into one part of a block-scaled tensor (codes and scales in place); returns (records, tensor_scale)");
  m.def("block_formats", [] {
    py::list out;
    for (const auto& f : all_block_formats()) out.append(std::string(f.name));
    return out;
  });
}

}  // namespace sdc::python
