#include "foundation/axis.hpp"

#include "foundation/errors.hpp"

namespace sdc {

int64_t parse_integer_at_least(const std::string& v, int64_t min, const std::string& axis) {
  size_t used = 0;
  long long n = min - 1;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
  }
  if (n < min || used != v.size())
    throw value_error(axis + ": expected an integer >= " + std::to_string(min) + "; got '" + v + "'");
  return n;
}

axis_def integer_axis(const std::string& name, const std::string& help, std::vector<std::string> defaults, int64_t min) {
  return {name, help, std::move(defaults),
          [name, min](const std::string& v, const std::string&) { return std::to_string(parse_integer_at_least(v, min, name)); }};
}

}  // namespace sdc
