#include "injectors/inject.hpp"

#include <algorithm>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <fmt/format.h>

namespace sdc {

tensor_list_target::tensor_list_target(std::vector<tensor_view> tensors) : t_(std::move(tensors)) {
  for (const auto& t : t_) start_.push_back(total_), total_ += t.size();
}

std::pair<size_t, int64_t> tensor_list_target::locate(int64_t i) const {
  const size_t t = size_t(std::upper_bound(start_.begin(), start_.end(), i) - start_.begin()) - 1;
  return {t, i - start_[t]};
}

uint64_t tensor_list_target::bits_at(int64_t i) const {
  const auto [t, e] = locate(i);
  return t_[t].bits_at(e);
}

void tensor_list_target::set_bits(int64_t i, uint64_t b) {
  const auto [t, e] = locate(i);
  t_[t].set_bits(e, b);
}

namespace {

// Applies the model at element idx; false when it does not apply there.
bool apply_at(fault_target& t, const fault_spec& spec, int64_t idx, rng& g, injection_record& r) {
  const uint64_t old = t.bits_at(idx);
  auto nb = apply_fault(spec.model, t.fmt(), spec.bits, old, g);
  if (!nb) return false;
  r.applied = true;
  r.index = idx, r.row = idx / t.cols(), r.col = idx % t.cols();
  r.old_bits = old, r.new_bits = *nb;
  r.old_value = decode(t.fmt(), old);
  t.set_bits(idx, *nb);
  r.new_value = t.value_at(idx);
  return true;
}

}  // namespace

injection_record inject(fault_target& t, const fault_spec& spec, rng& g) {
  injection_record r;
  const int tries = spec.model.is_directed() ? k_directed_flip_attempts : 1;
  for (int a = 0; a < tries; ++a) {
    const int64_t idx = spec.site.draw(t.rows(), t.cols(), g);
    r.attempts = a + 1;
    if (apply_at(t, spec, idx, g, r)) return r;
  }
  r.skip_reason = fmt::format("{}: no site with the bit in the source state after {} draws", spec.model.text(), tries);
  return r;
}

injection_record inject(const tensor_view& t, const fault_spec& spec, rng& g) {
  tensor_target target(t);
  return inject(target, spec, g);
}

std::vector<injection_record> inject_distinct(fault_target& t, const fault_spec& spec, int64_t k, rng& g) {
  const int64_t n = t.rows() * t.cols();
  std::vector<int64_t> idx(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) idx[size_t(i)] = i;
  std::vector<injection_record> out;
  for (int64_t i = 0; i < std::min(k, n); ++i) {
    const int64_t j = boost::random::uniform_int_distribution<int64_t>(i, n - 1)(g);
    std::swap(idx[size_t(i)], idx[size_t(j)]);
    injection_record r;
    r.attempts = 1;
    if (!apply_at(t, spec, idx[size_t(i)], g, r))
      r.skip_reason = fmt::format("{} does not apply at element {}", spec.model.text(), idx[size_t(i)]);
    out.push_back(r);
  }
  return out;
}

std::vector<injection_record> inject_max_abs(fault_target& t, const fault_spec& spec, rng& g) {
  const int64_t n = t.rows() * t.cols();
  double top = -1;
  for (int64_t i = 0; i < n; ++i)
    if (const double a = std::fabs(t.value_at(i)); !std::isnan(a) && a > top) top = a;
  std::vector<int64_t> at;
  for (int64_t i = 0; i < n; ++i)
    if (std::fabs(t.value_at(i)) == top) at.push_back(i);
  std::vector<injection_record> out;
  for (int64_t i : at) {
    injection_record r;
    r.attempts = 1;
    if (!apply_at(t, spec, i, g, r)) r.skip_reason = spec.model.text() + ": does not apply at the largest element";
    out.push_back(r);
  }
  if (out.empty()) {
    out.emplace_back();
    out.back().skip_reason = "max_abs: every element is NaN";
  }
  return out;
}

std::vector<injection_record> inject_pattern(fault_target& t, const fault_spec& spec, rng& g) {
  std::vector<injection_record> out;
  if (spec.site.k == site_rule::kind::max_abs) {
    out = inject_max_abs(t, spec, g);
  } else {
    for (int64_t i : spec.site.draw_pattern(t.rows(), t.cols(), g)) {
      injection_record r;
      r.attempts = 1;
      if (!apply_at(t, spec, i, g, r)) r.skip_reason = fmt::format("{} does not apply at element {} of {}", spec.model.text(), i, spec.site.text());
      out.push_back(r);
    }
    if (out.empty()) {
      out.emplace_back();
      out.back().skip_reason = spec.site.text() + ": the tensor is empty";
    }
  }
  for (auto& r : out) r.pattern = spec.site.text();
  return out;
}

}  // namespace sdc
