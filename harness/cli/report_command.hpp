// `sdcbench report RESULT.json... --out DIR` and `sdcbench compare A B
// --report DIR`: validate the result sets, then write the page (harness/report).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results/report.hpp"

namespace sdc {

// Returns the number of charts written.
size_t run_report(const std::vector<std::string>& files, const std::string& out_dir, const std::string& title);

size_t write_compare_report(const result_set& a, const std::string& a_file, const result_set& b, const std::string& b_file,
                            const compare_summary& s, double alpha, const std::string& out_dir);

}  // namespace sdc
