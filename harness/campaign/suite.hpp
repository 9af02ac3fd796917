// A suite: one JSON file that says what a campaign runs (see suites/README.md
// for the format). Loading validates every field and throws input_error
// naming the file, the JSON path and what was expected.
#pragma once
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc {

inline constexpr const char* k_suite_schema = "sdcbench.suite/1";

struct suite {
  std::string file;  // as given
  std::string name, description, sha256, scale;
  const workload* wl = nullptr;
  nlohmann::json reproduces;  // null, or {paper, table, ...}
  // Canonical values per axis, in the workload's axis order.
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<detector_choice> detectors;
  std::vector<detector_choice> recorders;  // detectors that never flag (recorder: true): metrics only
  int64_t faulty_trials = 0, clean_trials = 0;
  uint64_t seed = 0;
  nlohmann::json references = nlohmann::json::array();  // [{where, published, note}]
  // Paired comparison of a recorder's episode metrics across one axis, or null:
  // {"axis": A, "recorder": LABEL, "clusters": AXIS or null} (harness/results/paired.hpp).
  nlohmann::json compare;
  std::vector<std::string> axis_overrides;                 // as given on the command line
  std::map<std::string, std::string> axis_origin;          // axis -> JSON path its values came from
  std::string base_dir;
};

// `overrides` are "NAME=V1,V2,..." (commas inside parentheses do not split;
// "A:B" is the integer range A..B).
suite load_suite(const std::string& path, const std::string& scale, const std::vector<std::string>& overrides);

struct expansion {
  std::vector<cell> cells;                       // the full Cartesian product, in order
  std::vector<std::optional<skip_info>> skipped;  // per cell
};
// Expands the product. A value skipped in every cell it appears in, for a
// reason of its own axis, is an input_error (the suite asks for nothing).
expansion expand(const suite& s);

// The published value(s) for one (cell, detector label), or null.
nlohmann::json reference_for(const suite& s, const cell& c, const std::string& detector_label);

}  // namespace sdc
