#include "injectors/fault_axes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace sdc {

axis_def fault_axis(std::vector<std::string> defaults) {
  return {"fault", "fault model: " + fmt::format("{}", fmt::join(fault_model_names(), ", ")) + " (sdcbench list faults)",
          std::move(defaults), canonical_by([](const std::string& v) { return parse_fault_model(v).text(); })};
}

axis_def bit_axis(const std::string& which, std::vector<std::string> defaults) {
  return {"bit", "bit(s) for bit models: index from the LSB, sign, expN, mantN, or a range LO-HI, joined by '+'; none for other models; " + which,
          std::move(defaults), canonical_by([](const std::string& v) { return parse_bit_choice(v).text(); })};
}

axis_def element_axis(const std::string& name, bool data_dependent, std::vector<std::string> defaults) {
  if (data_dependent)
    return {name, "which element(s): uniform, at(I,J), row(I), col(J), max_abs (every element tied for the largest |x|); "
            "patterns: run(L), strided(S,L), full_row, full_col",
            std::move(defaults), canonical_by([](const std::string& v) { return parse_site_rule(v).text(); })};
  return {name, "which element: uniform, at(I,J), row(I), col(J)", std::move(defaults),
          canonical_by([](const std::string& v) { return single_site(v).text(); })};
}

axis_def count_axis(const std::string& name, const std::string& help, std::vector<std::string> defaults) {
  return integer_axis(name, help, std::move(defaults), 1);
}

axis_def when_axis(std::vector<std::string> defaults) {
  return {"when", "steps the plan fires at: specific(S,...), cycle(START,EVERY), always", std::move(defaults),
          canonical_by([](const std::string& v) { return parse_step_schedule(v).text(); })};
}

axis_def rank_axis(std::vector<std::string> defaults) { return integer_axis("rank", "the faulty rank", std::move(defaults), 0); }

fault_axes parse_fault_axes(const std::function<const std::string&(const std::string&)>& value, const fault_axis_names& names) {
  fault_axes a;
  a.model = parse_fault_model(value("fault"));
  a.bits = parse_bit_choice(value("bit"));
  if (names.element) a.element = parse_site_rule(value(names.element));
  if (names.count) a.count = parse_integer_at_least(value(names.count), 1, names.count);
  if (names.when) a.when = parse_step_schedule(value("when"));
  if (names.rank) a.rank = int(parse_integer_at_least(value("rank"), 0, "rank"));
  return a;
}

std::optional<fault_spec> fault_spec_for(const fault_axes& a, const format& f, std::string* why, std::string* axis) {
  auto bits = resolve_fault_bits(a.model, a.bits, f, why, axis);
  if (!bits) return std::nullopt;
  return fault_spec{a.model, std::move(*bits), a.element};
}

}  // namespace sdc
