#include "workloads/training/fault_lifetime.hpp"

#include "foundation/errors.hpp"

namespace sdc::train {

fault_lifetime parse_fault_lifetime(const std::string& text) {
  if (text == "transient") return fault_lifetime::transient;
  if (text == "permanent") return fault_lifetime::permanent;
  throw value_error("expected transient or permanent; got '" + text + "'");
}

const char* lifetime_name(fault_lifetime l) { return l == fault_lifetime::permanent ? "permanent" : "transient"; }

bool recording_injector::apply(fault_target& t) {
  const size_t before = inner_.records().size();
  const bool ok = inner_.apply(t);
  if (into_) {
    fault_recording::event e;
    const auto& recs = inner_.records();
    for (size_t i = before; i < recs.size(); ++i) e.flips.emplace_back(recs[i].index, recs[i].old_bits ^ recs[i].new_bits);
    into_->events.push_back(std::move(e));
  }
  return ok;
}

double recording_injector::uniform01() {
  const double u = inner_.uniform01();
  if (into_) into_->events.push_back({true, u, {}});
  return u;
}

// A recomputation makes the same calls in the same order (the step's control
// flow does not depend on the data), so the n-th call gets the n-th event; a
// call past the recording, or of the other kind, injects nothing.
bool replaying_injector::apply(fault_target& t) {
  if (next_ >= r_.events.size() || r_.events[next_].draw) return true;
  const bool draws = spec_.model.k == fault_model::kind::bitflip_random || spec_.model.k == fault_model::kind::random_value;
  rng unused(0);  // the other models draw nothing
  for (const auto& [i, mask] : r_.events[next_++].flips) {
    if (i < 0 || i >= t.rows() * t.cols()) continue;
    const uint64_t b = t.bits_at(i);
    t.set_bits(i, draws ? b ^ mask : apply_fault(spec_.model, t.fmt(), spec_.bits, b, unused).value_or(b));
  }
  return true;
}

double replaying_injector::uniform01() {
  if (next_ >= r_.events.size() || !r_.events[next_].draw) return 1.0;
  return r_.events[next_++].u;
}

}  // namespace sdc::train
