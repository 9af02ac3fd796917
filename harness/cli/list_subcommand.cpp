// `sdcbench list` (subcommands.hpp): the formats, fault models, workloads
// (with their axes), detectors (with their parameters) and suites a user can
// name, from the registries themselves.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "protocol/detector.hpp"
#include "foundation/formats/format.hpp"
#include "foundation/io/data_files.hpp"
#include "harness/campaign/suite.hpp"
#include "harness/cli/subcommands.hpp"
#include "injectors/fault_model.hpp"
#include "protocol/workload.hpp"

namespace sdc {
namespace {

int list_what(const std::string& what) {
  auto want = [&](const char* k) { return what.empty() || what == k; };
  if (want("formats")) {
    fmt::print("formats (bit indices count from the LSB):\n");
    for (const auto& f : all_formats()) {
      if (f.is_float())
        fmt::print("  {:<9} {:>2} bits: sign {}, exponent {}..{} (exp1 = bit {}), mantissa 0..{}, bias {}, u = 2^-{}\n",
                   f.name, f.bits, f.sign_bit(), f.mant_bits, f.mant_bits + f.exp_bits - 1, f.mant_bits + f.exp_bits - 1,
                   f.mant_bits - 1, f.bias, f.mant_bits + 1);
      else
        fmt::print("  {:<9} {:>2} bits: {} integer\n", f.name, f.bits, f.has_sign() ? "two's-complement" : "unsigned");
    }
  }
  if (want("faults")) {
    fmt::print("fault models:\n");
    for (const auto& m : fault_model_names()) fmt::print("  {}\n", m);
  }
  if (want("workloads")) {
    fmt::print("workloads and their axes:\n");
    for (auto* w : all_workloads()) {
      fmt::print("  {}: {} (runs detectors of {} views)\n", w->name(), w->summary(), view_kind_name(w->view()));
      for (const auto& a : w->axes())
        fmt::print("    {:<13} {} (default {})\n", a.name, a.help, fmt::join(a.defaults, ","));
    }
  }
  if (want("detectors")) {
    fmt::print("detectors (view/name: summary; parameters; a workload runs the detectors of its view):\n");
    for (auto* d : all_detectors()) {
      fmt::print("  {}/{}: {}\n", view_kind_name(d->view), d->name, d->summary);
      for (const auto& p : d->params) fmt::print("      {} = {}  ({})\n", p.name, p.default_value.dump(), p.help);
    }
  }
  if (want("suites")) {
    fmt::print("suites in {}:\n", data_file("suites").string());
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(data_file("suites")))
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      try {
        auto s = load_suite(f, "smoke", {});
        fmt::print("  {:<24} {}\n", std::filesystem::path(f).filename().string(), s.description);
      } catch (const std::exception& e) {
        fmt::print("  {:<24} (invalid: {})\n", std::filesystem::path(f).filename().string(), e.what());
      }
    }
  }
  return 0;
}

}  // namespace

subcommand add_list_subcommand(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  auto* list = app.add_subcommand("list", "list formats, faults, workloads, detectors, suites");
  list->add_option("what", *what, "one of formats, faults, workloads, detectors, suites")
      ->check(CLI::IsMember({"formats", "faults", "workloads", "detectors", "suites"}));
  return {list, [what] { return list_what(*what); }};
}

}  // namespace sdc
