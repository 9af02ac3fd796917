// The `show` table's published numbers (report.hpp's show_table): the paper's
// value beside ours for each number a suite cell carries, the closed-form
// detection probabilities a detector declares, and the totals over the axes a
// paper pools (004 Table II sums 28 shapes).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "harness/results/result_set_reader.hpp"

namespace sdc {

// The measured value a published key names: "faulty.rate", "clean.rate",
// "metrics.NAME" (the detector's, e.g. metrics.clean.tightness.mean) or
// "workload_metrics.NAME" (the workload's ground truth, e.g.
// workload_metrics.faulty.delta_crit.mean); nullopt where the cell has none.
std::optional<double> measured_value(const cell_record& cell, const std::string& key);

// The closed-form metrics each detector label declares (schema 2: the suite's
// detectors[].closed_forms).
std::map<std::string, std::vector<std::string>> closed_forms_of(const result_set& result);

// "key paper P / ours M" for each published number of the cell; "" when it has none.
std::string paper_column(const cell_record& cell);

// The mean of each closed-form detection probability the detector declares
// (e.g. 004 section IV-C: the paper's formula / exact for the trials' data),
// joined by " / ", and the column's header for a set's detectors.
std::string closed_form_column(const cell_record& cell, const std::vector<std::string>& names);
std::string closed_form_header(const std::map<std::string, std::vector<std::string>>& forms);

// One row per value of the varying axes not pooled, and detector, with the
// published number the pooled cells share.
std::string pooled_table(const result_set& result, const std::vector<std::string>& pooled);

}  // namespace sdc
