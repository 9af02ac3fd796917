// Subcommands of `sdcbench` that register their own options (CLI11) and say
// what runs them, so that main.cpp only wires them: `stat` and `delta-crit`
// (stat_subcommands.cpp), `list` (list_subcommand.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace sdc {

struct subcommand {
  CLI::App* app = nullptr;   // chosen when *app is true once the command line is parsed
  std::function<int()> run;  // does the work and prints it; the exit code (bad input throws input_error)
};

// `stat NAME FILE` (000's tests, 003's feature_value and npu_asd, 002's
// consistency) and `delta-crit` (000's Theorem 1): each test takes only its
// own options; another one is an error naming it.
subcommand add_stat_subcommand(CLI::App& app);
subcommand add_delta_crit_subcommand(CLI::App& app);
// `list [formats|faults|workloads|detectors|suites]`: what a suite can name.
subcommand add_list_subcommand(CLI::App& app);

}  // namespace sdc
