// The fault axes, declared once for every workload: a workload lists the ones
// it has (with its defaults) among its axes, and parses a cell's values of
// them once into `fault_axes`, from which protocol/workload.hpp's plan_of()
// makes the cell's fault plan. Shared:
//   fault        the fault model (fault_model.hpp)
//   bit          the bits a bit model uses (bit_choice)
//   site/element the element a fault lands on (site.hpp): kernels name it
//                `site` and take one element; training names it `element`
//                (its `site` is the tensor) and also takes max_abs
//   count        faults each time the plan fires (`fault_count` in the
//                gradient workload, whose cells' keys predate this file)
//   when         the steps it fires at (step_schedule)
//   rank         the rank it hits
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "foundation/axis.hpp"
#include "injectors/fault_model.hpp"
#include "injectors/inject.hpp"
#include "injectors/site.hpp"

namespace sdc {

axis_def fault_axis(std::vector<std::string> defaults);
// `which`: what the workload's formats take, after the generic help.
axis_def bit_axis(const std::string& which, std::vector<std::string> defaults);
// Named `name`; a single element (uniform, at, row, col) unless `data_dependent` (max_abs too).
axis_def element_axis(const std::string& name, bool data_dependent, std::vector<std::string> defaults);
axis_def count_axis(const std::string& name, const std::string& help, std::vector<std::string> defaults);
axis_def when_axis(std::vector<std::string> defaults);
axis_def rank_axis(std::vector<std::string> defaults);

// Which shared axes a workload has, and under which names (null: it has none;
// the value is then the default below).
struct fault_axis_names {
  const char* element = nullptr;  // "site" or "element"; none: uniform
  const char* count = nullptr;    // "count" or "fault_count"; none: 1
  bool when = false;              // none: every step (one-step episodes: step 0)
  bool rank = false;              // none: rank 0
};

// A cell's fault axes as typed values.
struct fault_axes {
  fault_model model;
  bit_choice bits;
  site_rule element;
  int64_t count = 1;
  step_schedule when;
  int rank = 0;
};

// Parses the cell's canonical values (value(name) returns the cell's text of
// axis `name`); value_error on a bad one.
fault_axes parse_fault_axes(const std::function<const std::string&(const std::string&)>& value, const fault_axis_names& names);

// The fault spec for a target stored in format f (the resolved bits and the
// element rule); nullopt, with why and the axis to blame, when the model and
// bits cannot run on f.
std::optional<fault_spec> fault_spec_for(const fault_axes& a, const format& f, std::string* why, std::string* axis);

}  // namespace sdc
