// foundation/simd/reductions_body.hpp compiled for the scalar level (its flags: CMakeLists.txt),
// in registers of 16 bytes.
#define SDC_KERNEL_NS simd_scalar
#define SDC_VECTOR_BYTES 16
#include "foundation/simd/reductions_body.hpp"
