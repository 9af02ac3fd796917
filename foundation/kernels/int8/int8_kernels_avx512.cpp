// foundation/kernels/int8/int8_kernels_body.hpp compiled for the avx512 level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_avx512
#include "foundation/kernels/int8/int8_kernels_body.hpp"
