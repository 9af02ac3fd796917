#include "foundation/kernels/log_norms/log_norms.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

#include "foundation/errors.hpp"
#include "foundation/kernels/log_norms/log_norms_dispatch.hpp"
#include "foundation/kernels/log_norms/log_norms_order.hpp"

namespace sdc {

double sum_squares_reference(const float* x, int64_t n) { return sum_squares_in_order(x, n); }
double sum_squares_bf16_reference(const uint16_t* x, int64_t n) { return sum_squares_in_order(x, n); }


SDC_DECLARE_LEVEL_TABLES(log_norm_kernels, log_norm_kernels_table)

const log_norm_kernels& log_norm_kernels_for(simd_level l) {
  return table_for_level(l, "log-norm kernels", simd_scalar::log_norm_kernels_table, simd_avx2::log_norm_kernels_table,
                         simd_avx512::log_norm_kernels_table);
}

namespace {
const log_norm_kernels& active_log_norms() {
  static const log_norm_kernels& k = log_norm_kernels_for(active_simd_level());
  return k;
}
}  // namespace

double sum_squares_fast(const float* x, int64_t n) { return active_log_norms().sum_squares(x, n); }
double sum_squares_bf16_fast(const uint16_t* x, int64_t n) { return active_log_norms().sum_squares_bf16(x, n); }
double sum_squares_at(simd_level l, const float* x, int64_t n) { return log_norm_kernels_for(l).sum_squares(x, n); }
double sum_squares_bf16_at(simd_level l, const uint16_t* x, int64_t n) { return log_norm_kernels_for(l).sum_squares_bf16(x, n); }

double log_norm_fast(const float* x, int64_t n) { return 0.5 * std::log(sum_squares_fast(x, n)); }
double log_norm_reference(const float* x, int64_t n) { return 0.5 * std::log(sum_squares_reference(x, n)); }

std::string split_rule::text() const {
  return k == kind::per_tensor ? "per_tensor" : k == kind::per_row ? "per_row" : fmt::format("block({})", block);
}

split_rule parse_split(const std::string& v) {
  if (v == "per_tensor") return {split_rule::kind::per_tensor, 0};
  if (v == "per_row") return {split_rule::kind::per_row, 0};
  static const std::regex re(R"(block\((\d+)\))");
  std::smatch m;
  if (std::regex_match(v, m, re) && std::stoll(m[1]) >= 1) return {split_rule::kind::block, std::stoll(m[1])};
  throw value_error("expected a split: per_tensor, per_row or block(N); got '" + v + "'");
}

int64_t vector_length(const split_rule& s, int64_t numel, int64_t row) {
  return s.k == split_rule::kind::per_tensor ? numel : s.k == split_rule::kind::per_row ? row : s.block;
}

}  // namespace sdc
