// An axis of a parameter sweep, as a workload declares it: its name, help
// text, default values, and the parser that turns a value as written (JSON
// string or number, or command-line text) into its canonical text, throwing
// value_error with the expected syntax. Workloads declare their own axes
// (protocol/workload.hpp); the fault axes every workload shares are declared
// once in injectors/fault_axes.hpp.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sdc {

struct axis_def {
  std::string name;
  std::string help;
  std::vector<std::string> defaults;
  // (value text, folder of the suite file for relative paths) -> canonical text
  std::function<std::string(const std::string&, const std::string&)> canonical;
  // A value at which the axis is left out of a cell's key (non-empty: the
  // value that gives the behaviour from before the axis existed). A cell's
  // key seeds its random streams, so an axis added after result sets were
  // published keeps their cells' fault draws, and they still reproduce.
  std::string keyless_value = {};
};

// A canonicalizer that needs no folder: parse(value) -> canonical text.
template <class Parse>
auto canonical_by(Parse parse) {
  return [parse](const std::string& v, const std::string&) { return std::string(parse(v)); };
}

// An axis value that must be an integer >= `min` (counts, sizes); throws
// value_error "AXIS: expected an integer >= MIN; got 'V'".
int64_t parse_integer_at_least(const std::string& v, int64_t min, const std::string& axis);

// An integer axis: `name`, its help and defaults, values >= min.
axis_def integer_axis(const std::string& name, const std::string& help, std::vector<std::string> defaults, int64_t min);

}  // namespace sdc
