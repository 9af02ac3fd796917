// A cell's key (`cells[i].key`): its axes' values as NAME=VALUE parts joined
// by ';', in the suite's axis order, an axis at its keyless value left out
// (harness/campaign/suite.cpp builds it). A value may hold ';' inside
// parentheses (`npy(a;b)`), and '=' anywhere after the name's.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sdc {

// The key's (name, value) parts in order; nullopt when a part has no '=' or
// an empty name (a key no run writes). An empty key has no parts.
std::optional<std::vector<std::pair<std::string, std::string>>> split_cell_key(const std::string& key);

}  // namespace sdc
