// The order of the checks' sums down a column (the column sums of C, the
// column references (c A) B_j summed over the rows of B, and c A at
// encoding): blocks of rows, then a pairwise tree over the blocks, so that
// the rounding error stays as small as the row sums' lane order
// (reductions.hpp) instead of growing with the number of rows as a
// sequential sum's does. Rows are added in order into a block of
// k_block_rows (the last block may be shorter). Finished blocks are merged
// as a binary counter merges bits: block b's sum is added to the pending
// partial of level 0 if there is one, that sum to level 1's, and so on,
// until a free level takes it. At the end the pending partials are added
// from the lowest level up. An element passes through at most
// k_block_rows - 1 + 2 ceil(log2 blocks) roundings; the error bound is in
// METHODOLOGY.md "Vectorized checks".
//
// Two forms with the same bits: column_cascade runs many columns at once,
// a row at a time (the row-major sweeps of the checksum engine, whose
// per-row work is an elementwise kernel of reductions.hpp writing into
// block()); cascade_one sums one column (the engine's incremental recompute).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace sdc {

inline constexpr int64_t k_block_rows = 8;

template <class T>
class column_cascade {
 public:
  // n columns whose sums go to `total` (n values, written at the last row).
  column_cascade(int64_t n, T* total) : n_(n), total_(total), block_(size_t(n), T(0)) {
    for (int64_t j = 0; j < n; ++j) total_[j] = T(0);
  }
  // Where row r's terms are added (block()[j] += term, or by FMA).
  T* block() { return block_.data(); }
  // After the terms of row r of `rows` were added to block().
  void row_done(int64_t r, int64_t rows) {
    const bool last = r + 1 == rows;
    if ((r + 1) % k_block_rows != 0 && !last) return;
    size_t l = 0;
    for (; l < level_.size() && pending_[l]; ++l) {  // carry: block = level l + block
      for (int64_t j = 0; j < n_; ++j) block_[size_t(j)] = level_[l][size_t(j)] + block_[size_t(j)];
      pending_[l] = false;
    }
    if (l == level_.size()) level_.emplace_back(size_t(n_), T(0)), pending_.push_back(false);
    std::swap(level_[l], block_), pending_[l] = true;
    for (auto& x : block_) x = T(0);
    if (!last) return;
    bool any = false;  // the pending partials, lowest level first
    for (size_t q = 0; q < level_.size(); ++q) {
      if (!pending_[q]) continue;
      for (int64_t j = 0; j < n_; ++j) total_[j] = any ? level_[q][size_t(j)] + total_[j] : level_[q][size_t(j)];
      any = true;
    }
  }

 private:
  int64_t n_;
  T* total_;
  std::vector<T> block_;
  std::vector<std::vector<T>> level_;
  std::vector<bool> pending_;
};

// One column: `add(r, partial)` returns partial plus row r's term (an add or
// an FMA), r = 0 .. rows-1, in column_cascade's order.
template <class T, class Add>
T cascade_one(int64_t rows, Add add) {
  T level[64];
  bool pending[64] = {};
  int top = 0;  // levels in use
  T block = 0;
  for (int64_t r = 0; r < rows; ++r) {
    block = add(r, block);
    if ((r + 1) % k_block_rows != 0 && r + 1 != rows) continue;
    int l = 0;
    for (; l < top && pending[l]; ++l) block = level[l] + block, pending[l] = false;
    if (l == top) ++top;
    level[l] = block, pending[l] = true, block = T(0);
  }
  T total = 0;
  bool any = false;
  for (int q = 0; q < top; ++q)
    if (pending[q]) total = any ? level[q] + total : level[q], any = true;
  return total;
}

}  // namespace sdc
