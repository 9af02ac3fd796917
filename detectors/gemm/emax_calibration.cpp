#include "detectors/gemm/emax_calibration.hpp"

#include <cmath>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "foundation/formats/block_scaled.hpp"
#include "foundation/io/data_files.hpp"
#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc {

using json = nlohmann::json;

double calibrated_emax(const std::string& file, const std::string& dtype, const std::string& accumulation,
                       const std::string& point, int64_t n) {
  static std::mutex mu;
  static std::map<std::string, json> cache;
  json cal;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!cache.count(file)) cache[file] = read_json_file(user_or_data_file(file).string());
    cal = cache[file];
  }
  if (!cal.contains("entries") || cal.value("schema", "") != "sdcbench.emax/1")
    throw input_error(file, "/schema", "expected an e_max calibration file (\"sdcbench.emax/1\") from `sdcbench calibrate`");
  // fp32, fp64 and the block-scaled formats (fp32 output) have one point.
  bool block = false;
  for (const auto& f : all_block_formats()) block |= f.name == dtype;
  const std::string want_point = (dtype == "fp32" || dtype == "fp64" || block) ? "offline" : point;
  for (const auto& e : cal["entries"]) {
    if (!(e["dtype"] == dtype && e["accumulation"] == accumulation && e["point"] == want_point)) continue;
    // A size where every row's checksum overflowed has no measurement (null,
    // or 0 in older files): never use it; fall back on the largest measured one.
    auto measured = [](const json& z) {
      return z["e_max"].is_number() && !(z["e_max"].get<double>() == 0 && z.value("checksum_overflows", 0) > 0);
    };
    double largest = 0;
    bool any_invalid = false;
    for (const auto& z : e["sizes"]) {
      if (!measured(z)) {
        any_invalid = true;
        continue;
      }
      if (z["n"].get<int64_t>() >= n) return z["e_max"].get<double>();  // sizes are ascending
      largest = z["e_max"].get<double>();
    }
    if (largest == 0)
      throw input_error(file, "/entries", fmt::format("no usable measurement for dtype {}, accumulation {}, point {} (checksums overflowed)",
                                                      dtype, accumulation, want_point));
    if (any_invalid) return largest;
    const double fitted = e["fit_sqrt_n"]["a"].get<double>() * std::sqrt(double(n)) + e["fit_sqrt_n"]["b"].get<double>();
    return std::max(largest, fitted);
  }
  throw input_error(file, "/entries", fmt::format("no calibration for dtype {}, accumulation {}, point {}; run `sdcbench calibrate` for it",
                                                  dtype, accumulation, want_point));
}

}  // namespace sdc
