// An EmbeddingBag workload cell, typed once from the suite's axis values
// (table, batch, code_bits, pooling, values, fault, bit, target), and the
// fault a cell's target can take.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "foundation/formats/format.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/fault_axes.hpp"
#include "protocol/workload.hpp"

namespace sdc {

// "AxB" with whole numbers from 1 to 999999999; a value_error naming `what` else.
std::pair<int64_t, int64_t> parse_axb(const std::string& v, const char* what);

// Where a fault lands (the `target` axis): a table code of a row the batch
// reads, that row's fp32 scale (alpha) or bias (beta), or the pooled output.
enum class eb_target { code, alpha, beta, output };
inline constexpr const char* k_eb_target_names[] = {"code", "alpha", "beta", "output"};  // eb_target's order
// One of k_eb_target_names; a value_error naming them else.
eb_target parse_eb_target(const std::string& v);

struct eb_cell : typed_cell {
  int64_t rows = 0, dim = 0, bags = 0, pool = 0;
  int bits = 8;
  bool weighted = false;
  distribution values;
  fault_axes faults;  // fault, bit
  eb_target target = eb_target::code;
};

eb_cell parse_embedding_bag_cell(const cell& c);

// The format a fault sees: the code's byte (u8; a 4-bit code keeps to bits 0-3),
// or fp32 for alpha, beta and the output.
inline const format& target_format(const eb_cell& g) { return g.target == eb_target::code ? u8() : fp32(); }

// The cell's fault spec; nullopt with why and the axis to blame when the
// fault cannot run on the target (a 4-bit code takes bit faults on bits 0-3).
std::optional<fault_spec> eb_fault_spec(const eb_cell& g, std::string* why, std::string* axis);

}  // namespace sdc
