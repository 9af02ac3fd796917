#include "foundation/simd/simd_level.hpp"

#include <cstdlib>
#include <stdexcept>

#include "foundation/errors.hpp"

namespace sdc {

const char* simd_name(simd_level l) {
  switch (l) {
    case simd_level::scalar: return "scalar";
    case simd_level::avx2: return "avx2";
    case simd_level::avx512: return "avx512";
  }
  return "?";
}

bool simd_supported(simd_level l) {
  switch (l) {
    case simd_level::scalar: return true;
    case simd_level::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case simd_level::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  return false;
}

void throw_unsupported_level(const char* family, simd_level l) {
  throw std::logic_error(std::string(family) + ": this CPU lacks " + simd_name(l));
}

std::vector<simd_level> supported_simd_levels() {
  std::vector<simd_level> v;
  for (auto l : {simd_level::scalar, simd_level::avx2, simd_level::avx512})
    if (simd_supported(l)) v.push_back(l);
  return v;
}

simd_level parse_simd_level(const std::string& s) {
  for (auto l : {simd_level::scalar, simd_level::avx2, simd_level::avx512})
    if (s == simd_name(l)) return l;
  throw value_error("expected scalar, avx2 or avx512; got \"" + s + "\"");
}

namespace {

simd_level choose() {
  if (const char* env = std::getenv("SDCBENCH_SIMD"); env && *env) {
    simd_level l;
    try {
      l = parse_simd_level(env);
    } catch (const value_error& e) {
      throw input_error("environment", "SDCBENCH_SIMD", e.what());
    }
    if (!simd_supported(l))
      throw input_error("environment", "SDCBENCH_SIMD", std::string("a level this CPU supports; it lacks ") + env);
    return l;
  }
  return supported_simd_levels().back();
}

}  // namespace

simd_level active_simd_level() {
  static const simd_level l = choose();
  return l;
}

}  // namespace sdc
