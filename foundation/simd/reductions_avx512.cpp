// foundation/simd/reductions_body.hpp compiled for the avx512 level (its flags: CMakeLists.txt),
// in registers of 64 bytes.
#define SDC_KERNEL_NS simd_avx512
#define SDC_VECTOR_BYTES 64
#include "foundation/simd/reductions_body.hpp"
