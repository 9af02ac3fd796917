// The block-scaled GEMM's integer kernel (block_gemm.hpp). Every finite
// element code is an integer times 2^-f, f the element type's smallest
// subnormal exponent (E4M3 9, E5M2 16, E3M2 4, E2M3 3, E2M1 1, INT8 6), so a
// block's sum of products is an exact integer: int64 holds it for every type
// but E5M2 (products up to 2^63.6: int128).
#include "foundation/kernels/block_gemm/block_gemm.hpp"

#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

int frac_bits(elem_type t) {
  switch (t) {
    case elem_type::fp8_e4m3: return 9;
    case elem_type::fp8_e5m2: return 16;
    case elem_type::fp6_e3m2: return 4;
    case elem_type::fp6_e2m3: return 3;
    case elem_type::fp4_e2m1: return 1;
    case elem_type::int8: return 6;
  }
  return 0;
}

// A code's integer, or `special` for NaN and inf codes.
struct code_table {
  std::array<int64_t, 256> v{};
  std::array<bool, 256> special{};
  int f = 0;
};

code_table make_code_table(elem_type t) {
  code_table c;
  c.f = frac_bits(t);
  for (int code = 0; code < 256; ++code) {
    const double x = decode_element(t, uint8_t(code));
    c.special[size_t(code)] = !std::isfinite(x);
    if (std::isfinite(x)) c.v[size_t(code)] = int64_t(std::ldexp(x, c.f));  // exact by the choice of f
  }
  return c;
}

const code_table& table_of(elem_type t) {
  static const std::array<code_table, 6> tables = {make_code_table(elem_type::fp8_e4m3), make_code_table(elem_type::fp8_e5m2),
                                                   make_code_table(elem_type::fp6_e3m2), make_code_table(elem_type::fp6_e2m3),
                                                   make_code_table(elem_type::fp4_e2m1), make_code_table(elem_type::int8)};
  return tables[size_t(t)];
}

// A scale as integer * 2^exp: E8M0 1 * 2^(code - 127); E4M3 its code table's
// integer * 2^-9. NaN codes are special.
struct scale_value {
  int64_t v = 1;
  int e = 0;
  bool nan = false;
};

scale_value scale_of(scale_type t, uint8_t code) {
  if (t == scale_type::e8m0) return code == 0xff ? scale_value{1, 0, true} : scale_value{1, int(code) - 127, false};
  const code_table& e4 = table_of(elem_type::fp8_e4m3);
  return e4.special[code] ? scale_value{1, 0, true} : scale_value{e4.v[code], -e4.f, false};
}

void check_operands(const block_tensor& A, const block_tensor& B) {
  if (!A.fmt || A.fmt != B.fmt) throw value_error("block_gemm: expected A and B in one block-scaled format");
  if (A.axis != 1 || B.axis != 0)
    throw value_error("block_gemm: expected A blocked along its rows (axis 1) and B down its columns (axis 0)");
  if (A.cols != B.rows)
    throw value_error("block_gemm: A is " + std::to_string(A.rows) + "x" + std::to_string(A.cols) + ", B " +
                      std::to_string(B.rows) + "x" + std::to_string(B.cols) + ": K differs");
}

// Block b of row i of A times block b of column j of B (columns of B are
// handed transposed, contiguous), as IEEE arithmetic would where a code or
// scale is special: in double, whose NaN and inf the fp32 cast keeps.
double special_block(elem_type t, const uint8_t* a, const uint8_t* bt, int64_t len, double sa, double sb) {
  double s = 0;
  for (int64_t x = 0; x < len; ++x) s += decode_element(t, a[x]) * decode_element(t, bt[x]);
  return s * sa * sb;
}

template <class Acc>
void run_part(const block_tensor& A, const block_tensor& B, const std::vector<uint8_t>& bt, float* C, int64_t r0, int64_t r1,
              int64_t c0, int64_t c1) {
  const block_format& f = *A.fmt;
  const code_table& tab = table_of(f.elem);
  const int64_t k = A.cols, n = B.cols, nb = A.blocks_along(), bs = f.block;
  const float alpha = f.tensor_scale ? A.tensor_scale * B.tensor_scale : 1.0f;
  for (int64_t i = r0; i < r1; ++i) {
    const uint8_t* a = &A.codes[size_t(i * k)];
    for (int64_t j = c0; j < c1; ++j) {
      const uint8_t* b = &bt[size_t(j * k)];
      float acc = 0;
      for (int64_t blk = 0; blk < nb; ++blk) {
        const int64_t k0 = blk * bs, len = std::min(bs, k - k0);
        const scale_value sa = scale_of(f.scale, A.scales[size_t(i * nb + blk)]);
        const scale_value sb = scale_of(f.scale, B.scales[size_t(blk * n + j)]);
        Acc s = 0;
        bool special = sa.nan || sb.nan;
        for (int64_t x = k0; x < k0 + len; ++x) {
          special |= tab.special[a[x]] | tab.special[b[x]];
          s += Acc(tab.v[a[x]]) * Acc(tab.v[b[x]]);
        }
        float part;
        if (special)
          part = float(special_block(f.elem, a + k0, b + k0, len, decode_scale(f.scale, A.scales[size_t(i * nb + blk)]),
                                     decode_scale(f.scale, B.scales[size_t(blk * n + j)])));
        else
          part = fp32_from_scaled_integer(__int128(s) * sa.v * sb.v, sa.e + sb.e - 2 * tab.f);
        acc += part;
      }
      C[size_t(i * n + j)] = f.tensor_scale ? acc * alpha : acc;
    }
  }
}

}  // namespace

float fp32_from_scaled_integer(__int128 v, int e) {
  if (v == 0) return 0.0f;
  const bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  const uint64_t hi = uint64_t(u >> 64), lo = uint64_t(u);
  const int nbits = hi ? 128 - std::countl_zero(hi) : 64 - std::countl_zero(lo);
  const int top = nbits - 1 + e;  // u * 2^e lies in [2^top, 2^(top+1))
  // fp32 keeps 24 significant bits down to 2^-126, then fewer (subnormals down to 2^-149).
  const int keep = top >= -126 ? 24 : 24 - (-126 - top);
  const int drop = nbits - std::max(keep, 0);
  if (drop > 0) {
    if (drop > nbits) return neg ? -0.0f : 0.0f;  // below half the smallest subnormal
    const unsigned __int128 kept = drop >= 128 ? 0 : u >> drop;
    const unsigned __int128 rest = u - (kept << drop);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (drop - 1);
    unsigned __int128 r = kept;
    if (rest > half || (rest == half && (kept & 1))) ++r;  // to nearest, ties to even
    u = r, e += drop;
  }
  const double m = std::ldexp(double(uint64_t(u)), e);  // exact: at most 25 bits
  if (m > double(FLT_MAX)) return neg ? -INFINITY : INFINITY;
  return neg ? -float(m) : float(m);
}

void block_gemm_part(const block_tensor& A, const block_tensor& B, float* C, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  check_operands(A, B);
  const int64_t k = A.cols, n = B.cols;
  std::vector<uint8_t> bt(size_t(k * n));  // B's codes column by column, for contiguous dot products
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = c0; j < c1; ++j) bt[size_t(j * k + kk)] = B.codes[size_t(kk * n + j)];
  if (A.fmt->elem == elem_type::fp8_e5m2) run_part<__int128>(A, B, bt, C, r0, r1, c0, c1);
  else run_part<int64_t>(A, B, bt, C, r0, r1, c0, c1);
}

void block_gemm(const block_tensor& A, const block_tensor& B, float* C) {
  block_gemm_part(A, B, C, 0, A.rows, 0, B.cols);
}

}  // namespace sdc
