// Fuzz target: the resume journal (run --resume), with the header and shape
// of a fixed run (4 cells of 6 trials, 2 detectors, 1 recorder; the seed
// corpus uses its header line). Whatever it accepts must fit the run: cells
// and chunks inside it, chunks that tile a cell without overlap (the
// invariant complete_cell indexes by).
#include "harness/campaign/journal.hpp"
#include "tests/fuzz/fuzz_target.hpp"

namespace {
const nlohmann::json k_header = nlohmann::json::parse(
    R"({"journal":"sdcbench.journal/3","suite_sha256":"fuzz","scale":"smoke","seed":1,"axis_overrides":[],"shard":[0,1],"cells_total":4})");
const sdc::journal_shape k_shape{4, 6, 2, 1};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = sdc::fuzz::input_file(data, size, "run.json.journal");
  sdc::fuzz::refused_or_read([&] {
    const sdc::journaled j = sdc::read_journal(path, k_header, k_shape, true);
    for (const auto& [n, r] : j.done)
      if (n >= k_shape.cells || r.records.size() != k_shape.detectors || r.recordings.size() > k_shape.recorders) std::abort();
    for (const auto& [n, chunks] : j.chunks) {
      if (n >= k_shape.cells) std::abort();
      int64_t covered = 0;
      for (const auto& [first, eps] : chunks) covered += int64_t(eps.size());
      for (const auto& [first, count] : sdc::missing_ranges(k_shape.trials, chunks)) {
        if (first < 0 || count <= 0 || first + count > k_shape.trials) std::abort();
        covered += count;
      }
      if (covered != k_shape.trials) std::abort();
    }
  });
  return 0;
}
