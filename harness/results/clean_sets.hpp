// Clean sets in result sets (version 4, METHODOLOGY "Clean sets"): the cells
// of a training fork share their clean episodes, so every record names the
// set its clean side reports (`clean_set`), and a pooled count counts each
// (detector, set) once, its n the episodes and steps that really ran. Every
// pooler (show --brief, the report's tables and charts, the paper columns'
// pooled totals, the Python module, scripts/) goes through the one rule here.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sdc {

// The fault axes of a set written before version 4 (no `suite.fault_axes`):
// the training workload's, as it declared them when those sets were written
// (its clean episodes did not depend on them then either; `validate` checks
// that the cells of each set agree); none for other workloads.
std::vector<std::string> fault_axes_before_v4(const nlohmann::json& suite_block);

// The id a record's clean side belongs to: NAME=VALUE of its axes but
// `fault_axes`, sorted, joined by ';' (protocol/workload.hpp clean_set_id);
// null when `fault_axes` is empty or the record was skipped.
nlohmann::json expected_clean_set(const nlohmann::json& record, const std::vector<std::string>& fault_axes);

// A version 4 set's clean sets, checked: each record names the set its axes
// give, and the records of one detector (or recorder) that name one set
// carry the same clean side.
void check_clean_sets(const nlohmann::json& result_set, std::vector<std::string>& problems);

// Pooling: first(clean_set, pool) is true the first time a record's clean
// side (its clean_set, cell_record::clean_set) enters `pool` (a detector
// label, or a label and a group of cells), and always for a record without a
// set. Its clean counts are added only then.
class clean_pool {
 public:
  bool first(const std::optional<std::string>& clean_set, const std::string& pool);

 private:
  std::set<std::pair<std::string, std::string>> seen_;
};

}  // namespace sdc
