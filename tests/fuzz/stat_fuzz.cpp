// Fuzz target: `sdcbench stat` on a file of values, text or .npy (first byte
// 0 or 1): every 000 test, 003's feature value (both variants, 1-D or 2-D) and
// NPU_ASD check and, for a 2-D .npy, 002's consistency metrics. Empty, single, constant, NaN and Inf samples all get a
// stated answer or an input_error.
#include "harness/cli/file_commands.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool npy = data[0] & 1;
  const std::string path = sdc::fuzz::input_file(data + 1, size - 1, npy ? "values.npy" : "values.txt");
  for (const auto& name : sdc::stat_test_names())
    sdc::fuzz::refused_or_read([&] {
      sdc::stat_options o;
      if (name == "silverman") o.B = 5;  // 100 by default: the same code, slower
      (void)sdc::stat_file_record(name, path, o).dump();
    });
  for (const char* v : {"mindspore", "torch_npu"})
    sdc::fuzz::refused_or_read([&] { (void)sdc::feature_value_file_record(path, v, {{"grad_sample_interval", "1"}}).dump(); });
  sdc::fuzz::refused_or_read([&] { (void)sdc::npu_asd_file_record(path, {}).dump(); });
  if (npy) sdc::fuzz::refused_or_read([&] { (void)sdc::consistency_file_record(path, path).dump(); });
  return 0;
}
