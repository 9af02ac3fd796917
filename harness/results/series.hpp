// Schema 3's typed series (a curve over the episode's steps, a histogram over
// bins; result-set-3.schema.json, "series"): the arithmetic `validate` checks
// beyond the schema, and their recovery from version 2's scalar names, the
// one place such names are parsed (migrating 2 -> 3).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

// Problems of one cell's or recording's `series` (at: its JSON path): each
// series named once per (name, over, rank); per kind, arrays of one length,
// 0 <= nan <= count <= the suite's trials of that kind, statistics null where
// no episode had a number.
void check_series(const nlohmann::json& record, const nlohmann::json& suite_trials, const std::string& at,
                  std::vector<std::string>& problems);

// Moves version 2's per-step and per-bin scalars out of `metrics`
// (KIND.NAME_sNN.STAT, KIND.NAME_rankR_sNN.STAT, KIND.bin_NN.STAT) into a
// schema 3 `series` array, which it returns; the metrics keep the rest.
nlohmann::json series_from_v2_metrics(nlohmann::json& metrics);

}  // namespace sdc
