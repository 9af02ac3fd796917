#include "harness/results/cell_key.hpp"

namespace sdc {

std::optional<std::vector<std::pair<std::string, std::string>>> split_cell_key(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> parts;
  size_t pos = 0;
  while (pos < key.size()) {
    // The part runs to the next ';' outside parentheses, or to the end.
    int depth = 0;
    size_t end = pos;
    for (; end < key.size(); ++end) {
      if (key[end] == '(') ++depth;
      if (key[end] == ')') --depth;
      if (key[end] == ';' && depth == 0) break;
    }
    const size_t eq = key.find('=', pos);
    if (eq == std::string::npos || eq >= end || eq == pos) return std::nullopt;
    parts.emplace_back(key.substr(pos, eq - pos), key.substr(eq + 1, end - eq - 1));
    pos = end + 1;
  }
  return parts;
}

}  // namespace sdc
