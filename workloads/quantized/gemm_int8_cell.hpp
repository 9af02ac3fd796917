// An int8 GEMM workload cell, typed once from the suite's axis values (shape,
// a_distribution, b_distribution, fault, bit, target, site).
#pragma once
#include <string>

#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/random/distributions.hpp"
#include "injectors/fault_axes.hpp"
#include "protocol/views/quantized_views.hpp"
#include "protocol/workload.hpp"

namespace sdc {

struct int8_cell : typed_cell {
  gemm_shape shape;
  distribution a_dist, b_dist;
  fault_axes faults;  // fault, bit, site
  int8_target target = int8_target::B;
};

// "B" or "C"; a value_error naming them else.
int8_target parse_int8_target(const std::string& v);

int8_cell parse_int8_cell(const cell& c);

// The format a fault sees: s8 in B, s32 in C.
inline const format& target_format(const int8_cell& g) { return g.target == int8_target::B ? s8() : s32(); }

}  // namespace sdc
