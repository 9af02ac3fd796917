// OpenBLAS on its best kernels for this CPU, as a baseline must be. Debian's
// OpenBLAS (0.3.21, DYNAMIC_ARCH) takes a CPU model it does not know for
// Prescott and runs its SSE3 kernels: on an Intel Xeon family 6 model 207
// (Emerald Rapids, AVX-512) its sgemm took 5.6 x our kernel's time at
// n = 1024, against 0.96-1.03 x on its Cooperlake kernels (results/bench/
// vabft_overhead_xeon207.txt). A bench that beats that is not measuring
// against the fastest GEMM the machine has. OpenBLAS reads OPENBLAS_CORETYPE
// once, when it is loaded, so use_best_openblas_core() runs the program again
// with it set to the best kernel set this OpenBLAS has for the CPU's
// instructions (Cooperlake with AVX512-BF16, SkylakeX with AVX-512 F/CD/BW/
// DQ/VL, Haswell with AVX2 and FMA, Sandybridge with AVX), only when OpenBLAS
// chose Prescott and the user set no OPENBLAS_CORETYPE of their own. The
// benches print openblas_core_text() beside their results.
#pragma once
#include <cblas.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace sdc::bench {

// Set when this process is the second run (the value the first one chose).
inline constexpr const char* k_core_set_env = "SDCBENCH_OPENBLAS_CORE_SET";

// The best of OpenBLAS's x86-64 kernel sets this CPU can run (null: none
// better than Prescott).
inline const char* best_openblas_core() {
  __builtin_cpu_init();
  const bool skx = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512vl");
  if (skx) return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
  return nullptr;
}

// Call first in main(), before OpenBLAS runs anything. Returns only if no
// new run was needed (or exec failed: then OpenBLAS stays on its choice,
// which openblas_core_text() names).
inline void use_best_openblas_core(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return;  // the user's choice, or ours after the exec
  if (std::strcmp(openblas_get_corename(), "Prescott") != 0) return;
  const char* best = best_openblas_core();
  if (best == nullptr) return;
  setenv("OPENBLAS_CORETYPE", best, 1);
  setenv(k_core_set_env, best, 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "bench: could not run again with OPENBLAS_CORETYPE=%s (%s); OpenBLAS stays on Prescott\n", best,
               std::strerror(errno));
  unsetenv("OPENBLAS_CORETYPE"), unsetenv(k_core_set_env);
}

// "OpenBLAS core: Cooperlake (OPENBLAS_CORETYPE=Cooperlake set by the bench:
// OpenBLAS took this CPU for Prescott)", or the core OpenBLAS chose itself.
inline std::string openblas_core_text() {
  std::string s = std::string("OpenBLAS core: ") + openblas_get_corename();
  if (const char* set = std::getenv(k_core_set_env); set != nullptr && std::getenv("OPENBLAS_CORETYPE") != nullptr &&
                                                     std::strcmp(set, std::getenv("OPENBLAS_CORETYPE")) == 0)
    s += std::string(" (OPENBLAS_CORETYPE=") + set + " set by the bench: OpenBLAS took this CPU for Prescott)";
  return s;
}

}  // namespace sdc::bench
