#include "injectors/inject.hpp"

#include <fmt/format.h>

namespace sdc {

injection_record inject(const tensor_view& t, const fault_spec& spec, rng& g) {
  injection_record r;
  const int tries = spec.model.is_directed() ? k_directed_flip_attempts : 1;
  for (int a = 0; a < tries; ++a) {
    const int64_t idx = spec.site.draw(t.rows, t.cols, g);
    const uint64_t old = t.bits_at(idx);
    r.attempts = a + 1;
    auto nb = apply_fault(spec.model, *t.fmt, spec.bits, old, g);
    if (!nb) continue;
    r.applied = true;
    r.index = idx, r.row = idx / t.cols, r.col = idx % t.cols;
    r.old_bits = old, r.new_bits = *nb;
    r.old_value = decode(*t.fmt, old);
    t.set_bits(idx, *nb);
    r.new_value = t.value_at(idx);
    return r;
  }
  r.skip_reason = fmt::format("{}: no site with the bit in the source state after {} draws", spec.model.text(), tries);
  return r;
}

}  // namespace sdc
