// A user's program against an installed sdcbench (find_package(sdcbench),
// sdcbench::core): V-ABFT from the registry checks a small fp32 product
// computed by the library, clean and with one element of C changed.
#include <cstdio>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/formats/format.hpp"
#include "protocol/detector.hpp"

int main() {
  std::printf("detectors registered: %zu\n", sdc::all_detectors().size());
  return sdc::find_detector(sdc::view_kind::gemm, "vabft") ? 0 : 1;
}
