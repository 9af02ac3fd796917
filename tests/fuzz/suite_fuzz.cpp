// Fuzz target: suite JSON through the whole loader (every field, the axis
// canonicalizers of its workload, detector parameters), the expansion into
// cells, and what `run` builds before it writes anything: each cell's
// detector context and every detector and recorder for it. In the clang
// build (no libtorch) the training workload is unknown: its suites are
// refused at /workload (the g++ replay of the corpus covers them).
#include "harness/campaign/suite.hpp"
#include "harness/campaign/trial_driver.hpp"
#include "tests/fuzz/fuzz_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = sdc::fuzz::input_file(data, size, "suite.json");
  for (const char* scale : {"smoke", "full"})
    sdc::fuzz::refused_or_read([&] {
      const sdc::suite s = sdc::load_suite(path, scale, {});
      const sdc::expansion ex = sdc::expand(s);
      size_t built = 0;
      for (size_t n = 0; n < ex.cells.size() && built < 16; ++n) {
        if (ex.skipped[n]) continue;
        ++built;
        const sdc::detector_context ctx = s.wl->context(ex.cells[n]);
        for (const auto* list : {&s.detectors, &s.recorders})
          for (const auto& d : *list) try {
              sdc::build_episode_detector(d, ctx);
            } catch (const sdc::value_error&) {  // run rethrows it as an input_error naming /detectors/K/params
            }
      }
    });
  return 0;
}
