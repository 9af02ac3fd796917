// foundation/simd/reductions_body.hpp compiled for the avx2 level (its flags: CMakeLists.txt),
// in registers of 32 bytes.
#define SDC_KERNEL_NS simd_avx2
#define SDC_VECTOR_BYTES 32
#include "foundation/simd/reductions_body.hpp"
