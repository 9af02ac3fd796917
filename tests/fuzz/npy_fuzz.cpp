// Fuzz target: the .npy reader (stat FILE, check-gemm --a/--b/--c, gradient data).
#include "foundation/io/npy.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = sdc::fuzz::input_file(data, size, "input.npy");
  sdc::fuzz::refused_or_read([&] {
    const sdc::npy_array a = sdc::read_npy(path);
    const auto v = a.values();
    if (int64_t(v.size()) != a.count()) std::abort();
  });
  return 0;
}
