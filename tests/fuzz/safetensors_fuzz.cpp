// Fuzz target: the .safetensors reader (gradient workload data): every tensor the header names.
#include "foundation/io/safetensors.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = sdc::fuzz::input_file(data, size, "input.safetensors");
  sdc::fuzz::refused_or_read([&] {
    for (const auto& name : sdc::safetensors_names(path)) sdc::fuzz::refused_or_read([&] { sdc::read_safetensor(path, name); });
  });
  return 0;
}
