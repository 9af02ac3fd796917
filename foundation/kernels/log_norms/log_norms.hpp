// The first stage of 000's Algorithm 1: V = {log ||g_i||} over the vectors a
// set of gradient tensors is cut into. Elements are bf16/fp16 held exactly in
// float, or fp32; squares are summed in fp64 (an exponent flip can make an
// element ~2^127, whose square overflows fp32), so a norm is finite unless an
// element is Inf/NaN.
//
// Summation order (both twins): 32 fp64 partial sums, element e of the vector
// into lane e mod 32 by FMA, each lane in order; then a_k = (l_k + l_{8+k}) +
// (l_{16+k} + l_{24+k}) for k < 8, and the a_k added as
// ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)) -- four AVX-512
// accumulators and their reduction.
// log_norm_fast: the SIMD level chosen at run time (foundation/simd/simd_level.hpp;
// AVX-512 widens float -> double on the fly, the other levels run the order as
// a loop compiled for them), log_norm_reference: the same order one element
// at a time; the _at versions run one given level.
// Equal bit for bit (a test).
#pragma once
#include <cstdint>
#include <string>

#include "foundation/simd/simd_level.hpp"

namespace sdc {

// Sum of squares of x[0..n) (floats), in the order above.
double sum_squares_fast(const float* x, int64_t n);
double sum_squares_reference(const float* x, int64_t n);
double sum_squares_at(simd_level l, const float* x, int64_t n);

// Natural log of the Euclidean norm: 0.5 * log(sum of squares); -inf for a zero vector.
double log_norm_fast(const float* x, int64_t n);
double log_norm_reference(const float* x, int64_t n);

// bf16 storage (what a training stack holds): the same sums with the bf16
// widened to fp32 on the fly. Used by the bandwidth benchmark.
double sum_squares_bf16_fast(const uint16_t* x, int64_t n);
double sum_squares_bf16_reference(const uint16_t* x, int64_t n);
double sum_squares_bf16_at(simd_level l, const uint16_t* x, int64_t n);

// How gradient tensors are cut into vectors (000 leaves it open): per_tensor,
// per_row (the last dimension is a row), or block(N) (consecutive N elements,
// the last block of a tensor may be shorter).
struct split_rule {
  enum class kind { per_tensor, per_row, block } k = kind::per_row;
  int64_t block = 0;
  std::string text() const;
};
split_rule parse_split(const std::string& v);  // value_error naming the syntax
// The length of the vectors a tensor of `numel` elements whose last dimension is `row` is cut into.
int64_t vector_length(const split_rule& s, int64_t numel, int64_t row);

}  // namespace sdc
