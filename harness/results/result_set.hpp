// The result-set format (results/schema/result-set-4.schema.json; versions 1
// to 3 are still read, through migration): building one from a finished
// campaign's plain description, validating (schema + arithmetic), merging
// shards, and migrating older files to version 3.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "foundation/io/json_file.hpp"

namespace sdc {

inline constexpr const char* k_result_schema = "sdcbench.result/4";
inline constexpr const char* k_result_schema_v3 = "sdcbench.result/3";
inline constexpr const char* k_result_schema_v2 = "sdcbench.result/2";
inline constexpr const char* k_result_schema_v1 = "sdcbench.result/1";

std::string now_iso8601();
// `int8_gemm_kernel`: which int8 GEMM this machine runs (int8_gemm_kernel_name(),
// foundation/kernels/int8), named by the caller: the result format knows no kernel.
nlohmann::json provenance(const std::vector<std::string>& argv, int threads, uint64_t seed, const std::string& started,
                          const std::string& int8_gemm_kernel);
// `prov` is the provenance taken when the run started (the source tree's git
// state then is the one that built the results); "finished" is set here.
// `suite_block`: the suite as run (name, file, sha256, scale, workload, seed,
// trials, axes, detectors, recorders, truth_metrics, reproduces, ...).
nlohmann::json make_result_set(nlohmann::json suite_block, int shard_index, int shard_count, nlohmann::json cells,
                               nlohmann::json recordings, nlohmann::json timing, nlohmann::json prov);


// Problems found (empty = valid) in a version 1 to 4 file: schema violations
// with their JSON paths, then arithmetic that does not add up (rates inside
// their intervals, outcome counts and bits, bands, localization, steps), and
// in version 4 the clean sets (clean_sets.hpp: each record names the set its
// axes give, and the records naming one set agree).
std::vector<std::string> validate_result_set(const nlohmann::json& j);
// The embedded schema texts (generated from results/schema/ at build time).
const char* result_schema_text_v1();
const char* result_schema_text_v2();
const char* result_schema_text_v3();
const char* result_schema_text_v4();

// A version 1, 2 or 3 result set as version 4 (`sdcbench migrate`). 1 -> 2: v1
// recorded no locations, so every detection becomes detected_unlocated; a
// trial is a one-step episode; fault_err_* metrics move to workload_metrics as
// err_ulps/err_rel/err_over_noise; rates and intervals are recomputed.
// 2 -> 3: per-step and per-bin scalars (NAME_sNN, NAME_rankR_sNN, bin_NN)
// become typed series (series.hpp). 3 -> 4: the suite's fault_axes
// (fault_axes_before_v4) and each record's clean_set; a set whose records of
// one set disagree is not migrated. input_error naming the file when it is
// not a valid version 1, 2 or 3 set.
nlohmann::json migrate_result_set(const nlohmann::json& old, const std::string& file);

// Reads and validates a result set of any version and returns the document as
// version 4 (what the typed reader, result_set_reader.hpp's load_result_set,
// types; the Python module hands it over as it is). input_error naming the
// file and the first problem when it is not valid.
nlohmann::json load_result_document(const std::string& file);

// Merges shards of one run into what an unsharded run writes. input_error when
// the shards do not belong together or do not cover every index once.
nlohmann::json merge_result_sets(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& files,
                                 const std::vector<std::string>& argv);

}  // namespace sdc
