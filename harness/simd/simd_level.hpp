// Which SIMD instruction set a runtime-dispatched kernel uses, chosen when the
// program runs from the CPU's features (as BLIS does), not when it is
// compiled. Kernels come in one version per level; every version computes the
// same bits (they share one fixed order of operations, see
// harness/simd/reductions.hpp), so the level changes speed, never results.
// SDCBENCH_SIMD=scalar|avx2|avx512 forces a level (for measurements; a level
// the CPU lacks is an error, never a silent fallback).
#pragma once
#include <string>
#include <vector>

namespace sdc {

// scalar: the x86-64 baseline (no AVX; the compiler may still use SSE2 for
// GCC vector types); avx2: AVX2 + FMA; avx512: AVX-512F.
enum class simd_level { scalar, avx2, avx512 };

const char* simd_name(simd_level l);
// Whether this CPU can execute the level (avx2 also needs FMA; avx512, AVX-512F).
bool simd_supported(simd_level l);
// Every level this CPU supports, lowest first (what the tests run).
std::vector<simd_level> supported_simd_levels();
// The level kernels use: SDCBENCH_SIMD if set (throws input_error naming it
// when unknown or unsupported), else the highest supported. Read once.
simd_level active_simd_level();
// Parses "scalar", "avx2", "avx512"; throws value_error otherwise.
simd_level parse_simd_level(const std::string& s);

}  // namespace sdc
