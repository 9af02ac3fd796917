// `sdcbench plan SET... --job FILE [--fleet FILE|NAME]...`: ranks the
// policies a training result set allows for a job in a fleet (harness/plan/,
// METHODOLOGY "Goodput planner") and prints the best; --out writes every
// policy as JSON (sdcbench.plan/1).
#pragma once
#include <CLI/CLI.hpp>

#include "harness/cli/subcommands.hpp"

namespace sdc {

subcommand add_plan_subcommand(CLI::App& app);

}  // namespace sdc
