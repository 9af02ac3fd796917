// foundation/kernels/log_norms/log_norms_body.hpp compiled for the scalar level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_scalar
#include "foundation/kernels/log_norms/log_norms_body.hpp"
