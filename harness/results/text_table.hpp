// An aligned text table (`show`, `compare`): a head, rows of cells, columns
// padded to their widest cell, a rule under the head, trailing blanks cut.
#pragma once
#include <fmt/format.h>

#include <optional>

#include <algorithm>
#include <string>
#include <vector>

namespace sdc {

struct text_table {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  std::string render() const {
    std::vector<size_t> w(head.size());
    for (size_t c = 0; c < head.size(); ++c) w[c] = head[c].size();
    for (const auto& r : rows)
      for (size_t c = 0; c < r.size(); ++c) w[c] = std::max(w[c], r[c].size());
    std::string out;
    auto line = [&](const std::vector<std::string>& r) {
      std::string l;
      for (size_t c = 0; c < r.size(); ++c) l += fmt::format("{:<{}}{}", r[c], w[c], c + 1 < r.size() ? "  " : "");
      while (!l.empty() && l.back() == ' ') l.pop_back();
      out += l + "\n";
    };
    line(head);
    std::vector<std::string> rule;
    for (size_t c = 0; c < head.size(); ++c) rule.push_back(std::string(w[c], '-'));
    line(rule);
    for (const auto& r : rows) line(r);
    return out;
  }
};

// A rate of a result set as a percentage, "-" where it was not computed (null).
inline std::string rate_text(const std::optional<double>& rate) { return rate ? fmt::format("{:.2f}%", 100 * *rate) : "-"; }

}  // namespace sdc
