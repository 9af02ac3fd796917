// foundation/kernels/gemm/gemm_fixed_order_body.hpp compiled for the scalar level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_scalar
#include "foundation/kernels/gemm/gemm_fixed_order_body.hpp"
