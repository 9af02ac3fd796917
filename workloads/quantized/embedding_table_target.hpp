// The EmbeddingBag workload's fault target on the quantized table.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "foundation/kernels/int8/int8_kernels.hpp"
#include "injectors/fault_target.hpp"
#include "workloads/quantized/embedding_bag_cell.hpp"

namespace sdc {

// The table elements of the rows the batch reads, seen as a positions x cols
// tensor: element (p, j) is code j (cols = d), or alpha / beta (cols = 1), of
// row indices[p]. A 4-bit code is its nibble (bits 0-3 of a u8). The first
// write keeps the clean bytes so end() can restore the table.
class table_target final : public fault_target {
 public:
  table_target(quantized_table& t, const bag_batch& b, eb_target what, const format& f)
      : t_(t), b_(b), what_(what), f_(f) {}
  const format& fmt() const override { return f_; }
  int64_t rows() const override { return int64_t(b_.indices.size()); }
  int64_t cols() const override { return what_ == eb_target::code ? t_.dim : 1; }
  uint64_t bits_at(int64_t i) const override {
    const auto [p, n] = place(i);
    if (what_ != eb_target::code) return ptr_load(p, 4);
    const uint8_t byte = *p;
    return t_.bits == 8 ? byte : (n ? byte >> 4 : byte & 15);
  }
  void set_bits(int64_t i, uint64_t b) override {
    const auto [p, n] = place(i);
    if (!undo_ptr) undo_ptr = p, undo_n = what_ == eb_target::code ? 1 : 4, std::memcpy(undo, p, undo_n);
    if (what_ != eb_target::code) {
      const uint32_t v = uint32_t(b);
      std::memcpy(p, &v, 4);
    } else if (t_.bits == 8) {
      *p = uint8_t(b);
    } else {
      *p = uint8_t(n ? (*p & 0x0f) | ((b & 15) << 4) : (*p & 0xf0) | (b & 15));
    }
  }
  uint8_t* undo_ptr = nullptr;
  uint8_t undo[4] = {};
  size_t undo_n = 0;

 private:
  // The byte the element lives in, and for a 4-bit code which nibble.
  std::pair<uint8_t*, int> place(int64_t i) const {
    const int64_t p = i / cols(), j = i % cols();
    uint8_t* row = t_.row(b_.indices[size_t(p)]);
    if (what_ == eb_target::alpha) return {row + t_.code_bytes(), 0};
    if (what_ == eb_target::beta) return {row + t_.code_bytes() + 4, 0};
    return t_.bits == 8 ? std::pair{row + j, 0} : std::pair{row + j / 2, int(j & 1)};
  }
  static uint64_t ptr_load(const uint8_t* p, int n) {
    uint32_t v = 0;
    std::memcpy(&v, p, size_t(n));
    return v;
  }
  quantized_table& t_;
  const bag_batch& b_;
  eb_target what_;
  const format& f_;
};

}  // namespace sdc
