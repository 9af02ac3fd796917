// OpenBLAS on its best kernels for this CPU, as a baseline must be. Two
// things put Debian's OpenBLAS (0.3.21, DYNAMIC_ARCH) on older kernels than
// the CPU's instructions allow. It takes a CPU model newer than itself for
// an old one: an Intel Xeon family 6 model 207 (Emerald Rapids, AVX-512)
// gets Prescott (SSE3), whose sgemm took 5.6 x our kernel's time at
// n = 1024, against 0.96-1.03 x on its Cooperlake kernels (results/bench/
// vabft_overhead_xeon207.txt). And an OPENBLAS_CORETYPE in the environment
// overrides its choice: our machines set Haswell, and on an AMD EPYC family
// 26 (Zen 5, AVX-512), where OpenBLAS itself picks Cooperlake, its Haswell
// (AVX2) sgemm took 1.84-1.91 x and its dgemm 1.56-1.68 x the time of its
// Cooperlake ones at n = 512-2048. A bench that beats such a baseline is not
// measuring against the fastest GEMM the machine has. OpenBLAS reads
// OPENBLAS_CORETYPE once, when it is loaded, so use_best_openblas_core() runs
// the program again with it set to the best kernel set this OpenBLAS has for
// the CPU's instructions (Cooperlake with AVX512-BF16, SkylakeX with AVX-512
// F/CD/BW/DQ/VL, Haswell with AVX2 and FMA, Sandybridge with AVX) whenever
// the set in use ranks below it, whoever chose it. The benches print
// openblas_core_text() beside their results.
#pragma once
#include <cblas.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace sdc::bench {

// Set when this process is the second run: the core the bench set, and the
// one in use before (OpenBLAS's choice or the environment's).
inline constexpr const char* k_core_set_env = "SDCBENCH_OPENBLAS_CORE_SET";
inline constexpr const char* k_core_chosen_env = "SDCBENCH_OPENBLAS_CORE_CHOSEN";

// The rank of an x86-64 kernel set of OpenBLAS by the instructions it uses
// (-1: a set not listed here, which the bench leaves alone).
inline int openblas_core_rank(const char* core) {
  const char* const sets[][3] = {{"Prescott", "Core2", "Nehalem"},
                                 {"Sandybridge", "Bulldozer", "Piledriver"},
                                 {"Haswell", "Zen", "Excavator"},
                                 {"SkylakeX", nullptr, nullptr},
                                 {"Cooperlake", nullptr, nullptr}};
  for (int r = 0; r < 5; ++r)
    for (const char* name : sets[r])
      if (name != nullptr && strcasecmp(core, name) == 0) return r;
  return -1;
}

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
  if (std::getenv(k_core_set_env) != nullptr) return;  // the second run
  const char* chosen = openblas_get_corename();
  const char* best = best_openblas_core();
  const int rank = openblas_core_rank(chosen);
  if (best == nullptr || rank < 0 || rank >= openblas_core_rank(best)) return;
  const bool inherited = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  setenv(k_core_chosen_env, (std::string(chosen) + (inherited ? " from OPENBLAS_CORETYPE" : "")).c_str(), 1);
  setenv("OPENBLAS_CORETYPE", best, 1);
  setenv(k_core_set_env, best, 1);
  std::fflush(nullptr);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "bench: could not run again with OPENBLAS_CORETYPE=%s (%s); OpenBLAS stays on %s\n", best,
               std::strerror(errno), openblas_get_corename());
  unsetenv(k_core_set_env), unsetenv(k_core_chosen_env);  // OpenBLAS, loaded, keeps its kernels
}

// "OpenBLAS core: Cooperlake (OPENBLAS_CORETYPE=Cooperlake set by the bench,
// in place of Haswell from OPENBLAS_CORETYPE)", or the core in use.
inline std::string openblas_core_text() {
  std::string s = std::string("OpenBLAS core: ") + openblas_get_corename();
  const char* set = std::getenv(k_core_set_env);
  const char* in_use = std::getenv("OPENBLAS_CORETYPE");
  const char* before = std::getenv(k_core_chosen_env);
  if (set != nullptr && in_use != nullptr && std::strcmp(set, in_use) == 0)
    s += std::string(" (OPENBLAS_CORETYPE=") + set + " set by the bench, in place of " + (before ? before : "?") + ")";
  return s;
}

}  // namespace sdc::bench
