// A workload whose cells are typed once. parse() turns a cell's axis values
// into the workload's own Cell (a typed_cell: a dtype is a format, a shape
// three integers, a lifetime a variant, ...) when the suite loads; the engine
// keeps it in cell::typed, and every entry point below receives `const Cell&`,
// so an axis's text is read by its parser alone (nvbench's typed axes, the
// CUTLASS profiler's operation descriptions).
//
//   class gemm_workload final : public typed_workload<gemm_cell> {
//     gemm_cell parse_cell(const cell& c) const override;          // the one reader of c.at(...)
//     std::optional<skip_info> skip(const gemm_cell&) const override;
//     ...
//   };
#pragma once
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc {

template <class Cell>
class typed_workload : public workload {
  static_assert(std::is_base_of_v<typed_cell, Cell>, "a workload's cell derives from typed_cell");

 public:
  std::shared_ptr<const typed_cell> parse(const cell& c) const final {
    auto p = std::make_shared<Cell>(parse_cell(c));
    p->hash = c.hash;
    return p;
  }
  std::optional<skip_info> skip_reason(const cell& c) const final { return skip(typed(c)); }
  detector_context context(const cell& c) const final {
    detector_context ctx = context_of(typed(c));
    ctx.axes = c.axes_json();
    return ctx;
  }
  episode_shape shape(const cell& c) const final { return shape_of(typed(c)); }
  fault_plan plan(const cell& c) const final { return plan_for(typed(c)); }
  std::unique_ptr<episode_runner> make_runner(const cell& c, uint64_t seed,
                                              const std::vector<detector_needs>& needs) const final {
    return runner(typed(c), seed, needs);
  }
  nlohmann::json inputs(const std::vector<cell>& cells) const final {
    std::vector<const Cell*> typed_cells;
    for (const auto& c : cells) typed_cells.push_back(&typed(c));
    return inputs_of(typed_cells);
  }

  // The cell's typed axes; std::logic_error if the engine never parsed it.
  static const Cell& typed(const cell& c) {
    const auto* t = dynamic_cast<const Cell*>(c.typed.get());
    if (!t) throw std::logic_error("cell '" + c.key + "' was not parsed by its workload (workload::parse)");
    return *t;
  }

 protected:
  // Every axis value through its parser; a value_error names the axis.
  virtual Cell parse_cell(const cell& c) const = 0;
  virtual std::optional<skip_info> skip(const Cell&) const = 0;
  // The detectors' context (the engine adds the cell's axes for recording).
  virtual detector_context context_of(const Cell&) const = 0;
  virtual episode_shape shape_of(const Cell&) const { return {}; }
  virtual fault_plan plan_for(const Cell&) const = 0;
  virtual std::unique_ptr<episode_runner> runner(const Cell&, uint64_t seed, const std::vector<detector_needs>& needs) const = 0;
  virtual nlohmann::json inputs_of(const std::vector<const Cell*>&) const { return nullptr; }
};

}  // namespace sdc
