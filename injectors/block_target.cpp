#include "injectors/block_target.hpp"

#include <bit>
#include <string>

#include "foundation/errors.hpp"

namespace sdc {

std::string_view block_part_name(block_part p) {
  switch (p) {
    case block_part::code: return "code";
    case block_part::block_scale: return "block_scale";
    case block_part::tensor_scale: return "tensor_scale";
  }
  return "code";
}

block_part parse_block_part(std::string_view text) {
  for (block_part p : {block_part::code, block_part::block_scale, block_part::tensor_scale})
    if (text == block_part_name(p)) return p;
  throw value_error("expected a part of a block-scaled tensor: code, block_scale or tensor_scale; got '" +
                    std::string(text) + "'");
}

const format& block_part_format(const block_tensor& t, block_part p) {
  switch (p) {
    case block_part::code: return element_format(t.fmt->elem);
    case block_part::block_scale: return scale_format(t.fmt->scale);
    case block_part::tensor_scale: return fp32();
  }
  return fp32();
}

block_part_target::block_part_target(block_tensor& t, block_part p) : t_(t), p_(p) {
  if (p == block_part::tensor_scale && !t.fmt->tensor_scale)
    throw value_error(std::string(t.fmt->name) + " has no tensor scale: expected part code or block_scale");
}

int64_t block_part_target::rows() const {
  return p_ == block_part::code ? t_.rows : p_ == block_part::block_scale ? t_.scale_rows() : 1;
}

int64_t block_part_target::cols() const {
  return p_ == block_part::code ? t_.cols : p_ == block_part::block_scale ? t_.scale_cols() : 1;
}

uint64_t block_part_target::bits_at(int64_t i) const {
  switch (p_) {
    case block_part::code: return t_.codes[size_t(i)];
    case block_part::block_scale: return t_.scales[size_t(i)];
    case block_part::tensor_scale: return std::bit_cast<uint32_t>(t_.tensor_scale);
  }
  return 0;
}

void block_part_target::set_bits(int64_t i, uint64_t bits) {
  bits &= fmt().mask();
  switch (p_) {
    case block_part::code: t_.codes[size_t(i)] = uint8_t(bits); return;
    case block_part::block_scale: t_.scales[size_t(i)] = uint8_t(bits); return;
    case block_part::tensor_scale: t_.tensor_scale = std::bit_cast<float>(uint32_t(bits)); return;
  }
}

std::vector<int64_t> block_part_reach(const block_tensor& t, block_part p, int64_t i) {
  if (p == block_part::code) return {i};
  if (p == block_part::block_scale) return t.elements_of_block(i);
  std::vector<int64_t> all(t.codes.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = int64_t(k);
  return all;
}

namespace {

// The elements the record's site reaches whose dequantized fp32 bits differ
// between `before` and `after` (the whole tensor's values).
void record_moves(const block_tensor& t, const std::vector<float>& before, const std::vector<float>& after,
                  block_injection_record& r) {
  if (!r.fault.applied) return;
  for (int64_t e : block_part_reach(t, r.part, r.fault.index)) {
    if (std::bit_cast<uint32_t>(after[size_t(e)]) == std::bit_cast<uint32_t>(before[size_t(e)])) continue;
    r.moved.push_back(e);
    r.old_values.push_back(before[size_t(e)]);
    r.new_values.push_back(after[size_t(e)]);
  }
}

// The record's values are the part's: an INT8 code's is k 2^-6, not k.
void element_values(const block_tensor& t, block_part p, injection_record& f) {
  if (p != block_part::code || !f.applied) return;
  f.old_value = decode_element(t.fmt->elem, uint8_t(f.old_bits));
  f.new_value = decode_element(t.fmt->elem, uint8_t(f.new_bits));
}

}  // namespace

block_injection_record inject_block(block_tensor& t, block_part p, const fault_spec& spec, rng& g) {
  block_part_target target(t, p);
  if (spec.site.multi()) throw value_error("inject_block takes a one-element site rule; " + spec.site.text() + " picks several");
  const std::vector<float> before = dequantize(t);
  block_injection_record r{.part = p, .fault = inject(target, spec, g)};
  element_values(t, p, r.fault);
  record_moves(t, before, dequantize(t), r);
  return r;
}

std::vector<block_injection_record> inject_block_pattern(block_tensor& t, block_part p, const fault_spec& spec, rng& g) {
  block_part_target target(t, p);
  const std::vector<float> before = dequantize(t);
  std::vector<block_injection_record> out;
  for (auto& f : inject_pattern(target, spec, g)) {
    out.push_back({.part = p, .fault = f});
    element_values(t, p, out.back().fault);
  }
  // Each record names what its own site reaches and moved, against the tensor before the pattern.
  const std::vector<float> after = dequantize(t);
  for (auto& r : out) record_moves(t, before, after, r);
  return out;
}

}  // namespace sdc
