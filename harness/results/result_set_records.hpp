// The result-set reader's records (result_set_reader.hpp): a cell's and a
// recording's entry typed, its axes in the suite's order.
#pragma once
#include <string>
#include <vector>

#include "harness/results/json_fields.hpp"
#include "harness/results/result_set_reader.hpp"

namespace sdc {

component parse_component(const json_field& f);  // a detector or recorder entry
cell_record parse_cell(const json_field& c, const std::vector<std::string>& axis_order);
recording_record parse_recording(const json_field& r, const std::vector<std::string>& axis_order);

}  // namespace sdc
