// The order of the checks' sums down a column (the column sums of C, and
// the column references (c A) B_j summed over the rows of B): a cascade, so
// that their rounding error stays as small as the row sums' lane order
// (reductions.hpp) instead of growing with the number of rows as a
// sequential sum's does. Rows are added in order into a block of
// k_block_rows; every finished block into its group's sum; every finished
// group (k_group_rows rows) into the total; the last, partial block and
// group at the end. An error bound: METHODOLOGY.md "Vectorized checks".
//
// Two forms with the same bits: column_cascade runs many columns at once,
// a row at a time (the row-major sweeps of the checksum engine, whose
// per-row work is an elementwise kernel of reductions.hpp writing into
// block()); cascade_one sums one column (the engine's incremental recompute).
#pragma once
#include <cstdint>
#include <vector>

namespace sdc {

inline constexpr int64_t k_block_rows = 16, k_group_rows = 256;

template <class T>
class column_cascade {
 public:
  // n columns whose total goes to `total` (n values, set to zero here).
  column_cascade(int64_t n, T* total) : n_(n), total_(total), block_(size_t(n), T(0)), group_(size_t(n), T(0)) {
    for (int64_t j = 0; j < n; ++j) total_[j] = T(0);
  }
  // Where row r's terms are added (block()[j] += term, or by FMA).
  T* block() { return block_.data(); }
  // After the terms of row r of `rows` were added to block().
  void row_done(int64_t r, int64_t rows) {
    const bool last = r + 1 == rows;
    if ((r + 1) % k_block_rows == 0 || last) fold(block_.data(), group_.data());
    if ((r + 1) % k_group_rows == 0 || last) fold(group_.data(), total_);
  }

 private:
  // to[j] += from[j]; from[j] = 0: elementwise, in any vector width the same bits.
  void fold(T* from, T* to) const {
    for (int64_t j = 0; j < n_; ++j) to[j] += from[j], from[j] = T(0);
  }
  int64_t n_;
  T* total_;
  std::vector<T> block_, group_;
};

// One column: `add(r, partial)` returns partial plus row r's term (an add or
// an FMA), r = 0 .. rows-1, in column_cascade's order.
template <class T, class Add>
T cascade_one(int64_t rows, Add add) {
  T total = 0, group = 0, block = 0;
  for (int64_t r = 0; r < rows; ++r) {
    block = add(r, block);
    const bool last = r + 1 == rows;
    if ((r + 1) % k_block_rows == 0 || last) group += block, block = T(0);
    if ((r + 1) % k_group_rows == 0 || last) total += group, group = T(0);
  }
  return total;
}

}  // namespace sdc
