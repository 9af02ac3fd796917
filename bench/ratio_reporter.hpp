// A Google Benchmark reporter that also collects each run's time, so a
// program can print ratios of benchmarks measured in the same process and run
// (the machines are shared and noisy: absolute times are not comparable
// across runs, ratios within one run are).
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <string>

namespace sdc::bench {

class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs)
      if (r.run_type == Run::RT_Iteration || r.aggregate_name == "median")
        seconds_[r.run_name.function_name + (r.run_name.args.empty() ? "" : "/" + r.run_name.args)] =
            r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
    ConsoleReporter::ReportRuns(runs);
  }
  // Seconds per iteration of a benchmark by "name/args", or 0 if it did not run.
  double seconds(const std::string& name) const {
    auto it = seconds_.find(name);
    return it == seconds_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace sdc::bench
