#include "workloads/training/fault_lifetime.hpp"

#include <fmt/format.h>

#include "foundation/errors.hpp"

namespace sdc::train {

fault_lifetime parse_fault_lifetime(const std::string& text) {
  fault_lifetime l;
  if (text == "transient") return l;
  if (text == "permanent") {
    l.k = fault_lifetime::kind::permanent;
    return l;
  }
  const std::string pre = "intermittent(";
  if (text.rfind(pre, 0) == 0 && text.back() == ')') {
    const std::string args = text.substr(pre.size(), text.size() - pre.size() - 1);
    const size_t comma = args.find(',');
    try {
      size_t a = 0, b = 0;
      l.p_on = std::stod(args.substr(0, comma), &a);
      l.p_off = std::stod(args.substr(comma + 1), &b);
      if (comma != std::string::npos && a == comma && b == args.size() - comma - 1 && l.p_on >= 0 && l.p_on <= 1 && l.p_off >= 0 &&
          l.p_off <= 1) {
        l.k = fault_lifetime::kind::intermittent;
        return l;
      }
    } catch (const std::exception&) {
    }
    throw value_error("intermittent(P_ON,P_OFF): expected two probabilities in [0, 1]; got '" + text + "'");
  }
  throw value_error("expected transient, permanent or intermittent(P_ON,P_OFF); got '" + text + "'");
}

std::string fault_lifetime::text() const {
  switch (k) {
    case kind::transient: return "transient";
    case kind::permanent: return "permanent";
    case kind::intermittent: return fmt::format("intermittent({},{})", p_on, p_off);
  }
  return "?";
}

bool recording_injector::apply(fault_target& t) {
  const size_t before = inner_.records().size();
  const bool ok = inner_.apply(t);
  if (into_) {
    fault_recording::event e;
    const auto& recs = inner_.records();
    for (size_t i = before; i < recs.size(); ++i) e.flips.push_back({recs[i].index, recs[i].old_bits ^ recs[i].new_bits, recs[i].new_bits});
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
  using k = fault_model::kind;
  const bool stuck = spec_.model.k == k::stuck_at_0 || spec_.model.k == k::stuck_at_1;
  rng unused(0);  // the models replayed here draw nothing
  for (const auto& f : r_.events[next_++].flips) {
    if (f.index < 0 || f.index >= t.rows() * t.cols()) continue;
    const uint64_t b = t.bits_at(f.index);
    if (stored_ && !stuck) t.set_bits(f.index, (b & ~f.mask) | (f.value & f.mask));  // the cell keeps the first firing's bits
    else if (spec_.model.draws_values()) t.set_bits(f.index, b ^ f.mask);
    else t.set_bits(f.index, apply_fault(spec_.model, t.fmt(), spec_.bits, b, unused).value_or(b));
  }
  return true;
}

double replaying_injector::uniform01() {
  if (next_ >= r_.events.size() || !r_.events[next_].draw) return 1.0;
  return r_.events[next_++].u;
}

}  // namespace sdc::train
