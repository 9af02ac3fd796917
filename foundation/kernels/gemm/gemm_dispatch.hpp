// The fixed-order GEMM's kernels, compiled once per SIMD level
// (gemm_fixed_order_{scalar,avx2,avx512}.cpp from gemm_fixed_order_body.hpp,
// each with its instruction-set flags) and chosen at run time from the CPU's
// features (foundation/simd/simd_level.hpp), as BLIS does. Every level runs the
// same per-element order, so every level gives gemm_reference's bits
// (tests/test_gemm_kernels.cpp runs each level the CPU supports).
// The kernels allocate nothing: the caller passes the workspace.
#pragma once
#include <cstdint>
#include <vector>

#include "foundation/simd/simd_level.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {

// What the checked kernel accumulates into (gemm_check_sums.hpp; the caller
// allocates and initialises it). Lanes: m rows x L (reduction_lanes<T>),
// lane j mod L. A column cascade (column_cascade.hpp) is its open block (n
// values) followed by `levels` levels of n values.
template <class T>
struct check_sums_io {
  const T *br1, *br2, *wn, *ca1, *ca2;
  bool columns;
  T *c_s1, *c_s2;               // rows of C
  T *col_c1, *col_r1, *col_r2;  // column cascades: C's sums, (c1 A) B_j, (c2 A) B_j
  // Whole rows, to the caller: a_row sees each row of A (all K elements) the
  // first time the kernel packs it; c_rows, where the caller asks, sees rows
  // [i0, i0 + rows) of C once they are final, in row order (the kernel then
  // keeps no lanes for C).
  void* ctx = nullptr;
  void (*a_row)(void* ctx, int64_t i, const T* row) = nullptr;
  void (*c_rows)(void* ctx, int64_t i0, int64_t rows) = nullptr;
};

template <class T>
struct fixed_order_kernels {
  // Elements of workspace `blocked` needs for a k-block size (0: sequential).
  int64_t (*blocked_workspace)(int64_t block);
  // The cache-blocked kernel: sequential order (block 0) or k-blocks.
  void (*blocked)(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work);
  // The pairwise order; work holds k_pairwise_workspace elements.
  void (*pairwise)(const T* A, const T* B, T* C, gemm_shape s, T* work);
  // `blocked`, accumulating a checksum check's sums into io as it goes.
  void (*blocked_checked)(const T* A, const T* B, T* C, gemm_shape s, int64_t block, T* work, const check_sums_io<T>& io);
  // The columns one column block of `blocked` covers: where c_rows applies.
  int64_t column_block;
  // The depth of one chunk of the sequential order (tests cover several).
  int64_t depth_chunk;
};
// The levels a column cascade over `rows` rows needs (blocks of 8 rows,
// column_cascade.hpp's k_block_rows): at least the bits of the block count.
inline int cascade_levels(int64_t rows) {
  int l = 1;
  for (int64_t b = (rows + 7) / 8; b > 1; b = (b + 1) / 2) ++l;
  return l;
}
constexpr int64_t k_pairwise_strip = 64, k_pairwise_levels = 64;
constexpr int64_t k_pairwise_workspace = k_pairwise_strip * (k_pairwise_levels + 1);

// One SIMD level's kernels in each tuning (gemm_kernel_variant): the table
// each level's file defines.
template <class T>
struct fixed_order_tables {
  fixed_order_kernels<T> generic, intel;
};

template <class T>
const fixed_order_kernels<T>& fixed_order_kernels_for(gemm_kernel_variant v);

// `need` elements of v from a cache-line boundary: the kernels' vector loads
// and stores of packed panels, lanes and cascades then never straddle two
// lines (a large vector's storage starts 16 bytes past a page). For the
// callers (not the kernels' bodies, which use no library templates).
template <class T>
T* line_aligned(std::vector<T>& v, int64_t need) {
  constexpr int64_t pad = 64 / int64_t(sizeof(T));
  if (int64_t(v.size()) < need + pad) v.resize(size_t(need + pad));
  const auto addr = reinterpret_cast<uintptr_t>(v.data());
  return v.data() + ((64 - addr % 64) % 64) / sizeof(T);
}

// The calling thread's packing workspace for T: `need` elements from a cache
// line (line_aligned), shared by the plain and the protected GEMM, so that a
// program alternating them (the training workload: checked and unchecked
// GEMMs in one step) packs into memory the last GEMM left warm in cache and
// TLB, not into a second buffer. Valid until the thread's next call.
template <class T>
T* gemm_workspace(int64_t need);

}  // namespace sdc
