#include "harness/simd/reductions.hpp"

#include <stdexcept>
#include <string>

namespace sdc {

// Defined by reductions_{scalar,avx2,avx512}.cpp.
#define SDC_DECLARE_LEVEL(ns)                             \
  namespace ns {                                          \
  extern const reduction_kernels<float> kernels_f32;       \
  extern const reduction_kernels<double> kernels_f64;      \
  }
SDC_DECLARE_LEVEL(simd_scalar)
SDC_DECLARE_LEVEL(simd_avx2)
SDC_DECLARE_LEVEL(simd_avx512)
#undef SDC_DECLARE_LEVEL

template <class T>
const reduction_kernels<T>& reduction_kernels_for(simd_level l) {
  if (!simd_supported(l)) throw std::logic_error(std::string("checksum kernels: this CPU lacks ") + simd_name(l));
  constexpr bool f = std::is_same_v<T, float>;
  switch (l) {
    case simd_level::avx512: if constexpr (f) return simd_avx512::kernels_f32; else return simd_avx512::kernels_f64;
    case simd_level::avx2: if constexpr (f) return simd_avx2::kernels_f32; else return simd_avx2::kernels_f64;
    case simd_level::scalar: break;
  }
  if constexpr (f) return simd_scalar::kernels_f32;
  else return simd_scalar::kernels_f64;
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
