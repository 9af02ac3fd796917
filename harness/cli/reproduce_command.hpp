// `sdcbench validate --reproduce FILE...`: re-run each result set's suite with
// its recorded seed (the suite file, checked by its sha256), scale, axis
// overrides and shard, and report whether the re-run's cells and recordings
// are identical to the recorded ones, so a reviewer can check a published set
// on their own machine (METHODOLOGY.md, "Same bits on every CPU").
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

struct reproduce_options {
  std::string suite_override;  // --suite: the suite file to use instead of the recorded path
  std::string out_dir = "out/reproduce";
  int threads = 1;
  std::vector<std::string> argv;
};

// The outcome for one result set: identical or not, and what differs.
struct reproduce_report {
  bool identical = false;
  std::string out;   // the re-run's result set
  std::string text;  // lines to print
};

// Throws input_error when the set cannot be re-run as recorded (invalid,
// version 1, the suite file missing or changed since).
reproduce_report reproduce_result_set(const std::string& file, const nlohmann::json& recorded, const reproduce_options& o);

}  // namespace sdc
