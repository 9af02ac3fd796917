// Which SIMD instruction set a runtime-dispatched kernel uses, chosen when the
// program runs from the CPU's features (as BLIS does), not when it is
// compiled. Kernels come in one version per level; every version computes the
// same bits (they share one fixed order of operations, see
// foundation/simd/reductions.hpp), so the level changes speed, never results.
// SDCBENCH_SIMD=scalar|avx2|avx512 forces a level (for measurements; a level
// the CPU lacks is an error, never a silent fallback).
#pragma once
#include <string>
#include <vector>

namespace sdc {

// scalar: the x86-64 baseline (no AVX; the compiler may still use SSE2 for
// GCC vector types); avx2: AVX2 + FMA; avx512: AVX-512 F, BW, VL and DQ
// (Skylake-X, Zen 4 and later) with AVX2 + FMA.
enum class simd_level { scalar, avx2, avx512 };

const char* simd_name(simd_level l);
// Whether this CPU can execute the level (every feature listed above).
bool simd_supported(simd_level l);
// Every level this CPU supports, lowest first (what the tests run).
std::vector<simd_level> supported_simd_levels();
// The level kernels use: SDCBENCH_SIMD if set (throws input_error naming it
// when unknown or unsupported), else the highest supported. Read once.
simd_level active_simd_level();
// Parses "scalar", "avx2", "avx512"; throws value_error otherwise.
simd_level parse_simd_level(const std::string& s);

// Throws std::logic_error: `family` was asked for a level this CPU lacks (a
// caller's bug: levels come from supported_simd_levels or active_simd_level).
[[noreturn]] void throw_unsupported_level(const char* family, simd_level l);

// Declares a family's three per-level tables, `extern const Type name;` in
// namespaces simd_scalar, simd_avx2 and simd_avx512 (each defined by the
// family's <family>_<level>.cpp).
#define SDC_DECLARE_LEVEL_TABLES(Type, name)   \
  namespace simd_scalar { extern const Type name; } \
  namespace simd_avx2 { extern const Type name; }   \
  namespace simd_avx512 { extern const Type name; }

// A kernel family's table for level l, out of its three per-level tables
// (HACKING.md "Runtime-dispatched kernels"). Instantiated by dispatchers only,
// which are compiled with the global flags.
template <class Table>
const Table& table_for_level(simd_level l, const char* family, const Table& scalar, const Table& avx2,
                             const Table& avx512) {
  if (!simd_supported(l)) throw_unsupported_level(family, l);
  return l == simd_level::avx512 ? avx512 : l == simd_level::avx2 ? avx2 : scalar;
}

}  // namespace sdc
