// Fuzz target: result sets as validate, show, compare and merge read them.
// validate_result_set never throws (it lists problems); a set it accepts
// must then show, compare with itself and merge as one shard without a
// single exception, since the commands trust what validate accepted.
#include <optional>

#include "foundation/io/json_file.hpp"
#include "harness/results/brief_summary.hpp"
#include "harness/results/recording_summary.hpp"
#include "harness/results/report.hpp"
#include "harness/results/result_set.hpp"
#include "harness/results/result_set_reader.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = sdc::fuzz::input_file(data, size, "result.json");
  nlohmann::json r;
  try {
    r = sdc::read_json_file(path);
  } catch (const sdc::input_error&) {
    return 0;
  }
  if (r.is_object() && r.value("schema", "") == "sdcbench.result/1")
    sdc::fuzz::refused_or_read([&] { r = sdc::migrate_result_set(r, path); });
  if (!sdc::validate_result_set(r).empty()) return 0;
  // A version 4 set validate accepts types; an older one types as its
  // migration (as every command reads it), which may refuse it.
  std::optional<sdc::result_set> typed;
  if (sdc::schema_of(r) == sdc::k_result_schema) typed = sdc::parse_result_set(r, path);
  else sdc::fuzz::refused_or_read([&] { typed = sdc::parse_result_set(r, path); });
  if (typed) {
    (void)sdc::show_table(*typed);
    (void)sdc::brief_table(*typed);
    (void)sdc::recording_summary_table(*typed);
    (void)sdc::compare_results(*typed, *typed, 0.05).table;
    const auto& dets = typed->suite.detectors;
    if (dets.size() >= 2)
      sdc::fuzz::refused_or_read([&] { (void)sdc::compare_detectors(*typed, dets[0].label, dets[1].label, 0.05); });
  }
  if (r["shard"]["count"] == 1) (void)sdc::merge_result_sets({r}, {path}, {"fuzz"});
  return 0;
}
