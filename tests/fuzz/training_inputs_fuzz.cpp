// Fuzz target: the training workload's readers, chosen by the first byte:
// its configuration JSON (sdcbench train CONFIG, suites/training/*.json), an
// Alpaca JSON data file, a text corpus for pretraining.
#include "foundation/io/json_file.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "workloads/training/trainer/data.hpp"
#include "workloads/training/trainer/training_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 3;
  const std::string path = sdc::fuzz::input_file(data + 1, size - 1, which == 2 ? "corpus.txt" : "input.json");
  sdc::fuzz::refused_or_read([&] {
    if (which == 0) {
      const auto c = sdc::train::parse_train_config(sdc::read_json_file(path), path, sdc::fuzz::scratch_dir());
      (void)sdc::train::describe(c).dump();
    } else if (which == 1) {
      for (const auto& e : sdc::train::read_alpaca(path))
        if (e.instruction.size() + e.output.size() > size) std::abort();
    } else {
      if (sdc::train::read_corpus(path).size() > size) std::abort();
    }
  });
  return 0;
}
