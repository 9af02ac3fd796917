// The campaign engine: expands a suite into cells, runs every cell's trials on
// a pool of threads (each thread its own runner and detector instances), scores
// every detector on the same faults, journals each finished cell so a killed
// run resumes without loss, and writes the result set atomically.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/campaign/suite.hpp"

namespace sdc {

struct run_options {
  std::string suite_path;
  std::string scale = "smoke";
  std::string out;  // result file; the journal is out + ".journal"
  int threads = 1;
  bool resume = false;
  int shard_index = 0, shard_count = 1;
  std::vector<std::string> axis_overrides;
  std::vector<std::string> argv;
  bool progress = false;
  int stop_after_cells = -1;  // testing: exit abruptly after journaling this many cells
};

// Runs the campaign and returns the result set (also written to opts.out).
nlohmann::json run_campaign(const run_options& opts);

}  // namespace sdc
