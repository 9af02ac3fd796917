// Keep freed memory in the process instead of returning it to the kernel.
// glibc serves allocations above 128 KiB with mmap and unmaps them when
// freed, so every large tensor a training step allocates (a rank's flat
// gradient, its bucket, the per-rank copies: tens of MB at the medium
// preset) was page-faulted in afresh at every step: a perf profile of
// bench/training_step_bench showed the kernel's page-fault path beside the
// GEMMs, and the medium preset's DP step took 1.66 x four plain libtorch
// steps with glibc's defaults against 1.19 x with this (same run, same
// machine, results/bench/training_step_medium.txt). Numerics are untouched:
// only where memory comes from changes. Not glibc: nothing to do.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sdc {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 1 << 30);  // allocations up to 1 GiB from the heap (reused, not unmapped)
  mallopt(M_TRIM_THRESHOLD, 1 << 30);  // and the heap's free top kept
  mallopt(M_TOP_PAD, 64 << 20);        // grown 64 MiB at a time
#endif
}

}  // namespace sdc
