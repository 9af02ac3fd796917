// foundation/kernels/int8/int8_kernels_body.hpp compiled for the scalar level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_scalar
#include "foundation/kernels/int8/int8_kernels_body.hpp"
