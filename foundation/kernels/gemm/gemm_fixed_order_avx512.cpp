// foundation/kernels/gemm/gemm_fixed_order_body.hpp compiled for the avx512 level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_avx512
#include "foundation/kernels/gemm/gemm_fixed_order_body.hpp"
