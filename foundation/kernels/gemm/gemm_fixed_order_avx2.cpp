// foundation/kernels/gemm/gemm_fixed_order_body.hpp compiled for the avx2 level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_avx2
#include "foundation/kernels/gemm/gemm_fixed_order_body.hpp"
