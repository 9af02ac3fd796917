// The result-set format (results/schema/result-set-1.schema.json): building one
// from a finished campaign, writing it atomically, reading, validating
// (schema + arithmetic), and merging shards.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

struct suite;
struct run_options;

inline constexpr const char* k_result_schema = "sdcbench.result/1";

std::string now_iso8601();
nlohmann::json provenance(const std::vector<std::string>& argv, int threads, uint64_t seed, const std::string& started);
// `prov` is the provenance taken when the run started (the source tree's git
// state then is the one that built the results); "finished" is set here.
nlohmann::json make_result_set(const suite& s, const run_options& o, nlohmann::json cells, nlohmann::json timing,
                               nlohmann::json prov);

// Writes to PATH.tmp.PID, fsyncs, renames: a reader never sees half a file.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
// Reads a JSON file; input_error naming the file on failure.
nlohmann::json read_json_file(const std::string& path);

// Problems found (empty = valid): schema violations with their JSON paths, then
// arithmetic that does not add up (rates, intervals, outcome bits, bands).
std::vector<std::string> validate_result_set(const nlohmann::json& j);
// The embedded schema text (generated from results/schema/ at build time).
const char* result_schema_text();

// Merges shards of one run into what an unsharded run writes. input_error when
// the shards do not belong together or do not cover every index once.
nlohmann::json merge_result_sets(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& files,
                                 const std::vector<std::string>& argv);

}  // namespace sdc
