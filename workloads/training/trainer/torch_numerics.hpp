// What libtorch computes with, pinned so that a training episode gives the
// same bits on every x86-64 CPU with AVX2 and FMA (METHODOLOGY.md, "Same bits
// on every CPU"):
//   - ATen's CPU kernels at capability avx2 (ATEN_CPU_CAPABILITY): ATen picks
//     avx512 on some AVX-512 CPUs and its reductions (sum, softmax, layer norm)
//     then add 16 lanes instead of 8, which changes their bits. A different
//     value in the environment is replaced (said on stderr and in the
//     provenance); on a CPU without AVX2 and FMA ATen runs its default
//     kernels and the provenance says the pin is not in force;
//   - oneDNN off inside libtorch (torch.backends.mkldnn.enabled = False): with
//     it, bf16 ops such as GELU go to oneDNN's JIT kernels on AVX-512 CPUs and
//     to ATen's elsewhere;
//   - the GEMMs on sdcbench's fixed-order kernel (fixed_gemm.hpp);
//   - one intra-op thread in every episode (training_episode.cpp).
// The pin is made before main() (a static initializer here), since ATen reads
// its capability once, at its first kernel call.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc::train {

// For a result set's provenance: libtorch's version, the ATen capability in
// use and whether it is the pinned one, oneDNN's state, the GEMM kernel.
nlohmann::json torch_numerics();

}  // namespace sdc::train
