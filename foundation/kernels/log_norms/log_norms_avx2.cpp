// foundation/kernels/log_norms/log_norms_body.hpp compiled for the avx2 level (its flags: CMakeLists.txt).
#define SDC_KERNEL_NS simd_avx2
#include "foundation/kernels/log_norms/log_norms_body.hpp"
