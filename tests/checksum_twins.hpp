// The CheckSum's fast twin against its reference, bit for bit: every row's
// statistics and both variants' verdicts (tests/test_silent_check.cpp,
// tests/test_matmul_checksum.cpp).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "detectors/ascend/matmul_checksum.hpp"

namespace sdc::testing {

inline bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](float a, float b) {
           return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
         });
}

inline void expect_twins_equal(const matmul_operands& o, const ::testing::Message& at) {
  const checksum_rows f = matmul_checksum_rows(o), r = matmul_checksum_rows_reference(o);
  EXPECT_EQ(f.cmean.size(), size_t(o.batch * o.m)) << at;
  EXPECT_TRUE(same_bits(f.error, r.error) && same_bits(f.cmax, r.cmax) && same_bits(f.cmean, r.cmean)) << at;
  for (auto v : {checksum_variant::mindspore, checksum_variant::torch_npu}) {
    const auto a = matmul_checksum(o, v), b = matmul_checksum_reference(o, v);
    EXPECT_EQ(a.failed, b.failed) << at;
    EXPECT_EQ(a.rows_flagged, b.rows_flagged) << at;
    EXPECT_EQ(a.worst_row, b.worst_row) << at;
    EXPECT_EQ(std::bit_cast<uint64_t>(a.worst_ratio), std::bit_cast<uint64_t>(b.worst_ratio)) << at;
  }
}

}  // namespace sdc::testing
