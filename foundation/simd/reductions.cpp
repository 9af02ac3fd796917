#include "foundation/simd/reductions.hpp"


namespace sdc {

SDC_DECLARE_LEVEL_TABLES(reduction_kernels<float>, kernels_f32)
SDC_DECLARE_LEVEL_TABLES(reduction_kernels<double>, kernels_f64)

template <class T>
const reduction_kernels<T>& reduction_kernels_for(simd_level l) {
  if constexpr (std::is_same_v<T, float>)
    return table_for_level(l, "checksum kernels", simd_scalar::kernels_f32, simd_avx2::kernels_f32, simd_avx512::kernels_f32);
  else
    return table_for_level(l, "checksum kernels", simd_scalar::kernels_f64, simd_avx2::kernels_f64, simd_avx512::kernels_f64);
}

template <class T>
const reduction_kernels<T>& active_reduction_kernels() {
  static const reduction_kernels<T>& k = reduction_kernels_for<T>(active_simd_level());
  return k;
}

template const reduction_kernels<float>& reduction_kernels_for<float>(simd_level);
template const reduction_kernels<double>& reduction_kernels_for<double>(simd_level);
template const reduction_kernels<float>& active_reduction_kernels<float>();
template const reduction_kernels<double>& active_reduction_kernels<double>();

}  // namespace sdc
