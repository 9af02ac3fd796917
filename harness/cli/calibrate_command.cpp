#include "harness/cli/calibrate_command.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <iostream>

#include "foundation/io/json_file.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"

namespace sdc {

using json = nlohmann::json;

int run_calibrate(calibration_request r, const std::string& out) {
  for (const auto& a : r.accumulations) parse_accumulation(a);
  r.progress = ::isatty(2);
  const json c = calibrate_emax(r);
  write_json_atomic(out, c);
  std::cout << calibration_table(c) << "wrote " << out << "\n";
  return 0;
}

std::string calibration_table(const json& cal) {
  std::string s = fmt::format("{:<6} {:<12} {:<8} {:>10} {:>8} {:>7} {:>9}  per size (N: e_max/u)\n", "dtype",
                              "accumulation", "point", "e_max", "e_max/u", "CV", "R2(sqrtN)");
  for (const auto& e : cal["entries"]) {
    std::string per;
    for (const auto& z : e["sizes"])
      per += fmt::format(" {}:{}{}", z["n"].get<int64_t>(),
                         z["e_max_over_u"].is_number() ? fmt::format("{:.2f}", z["e_max_over_u"].get<double>()) : "-",
                         z["checksum_overflows"].get<int64_t>() ? fmt::format(" ({} rows overflowed)", z["checksum_overflows"].get<int64_t>()) : "");
    s += fmt::format("{:<6} {:<12} {:<8} {:>10.3g} {:>8.2f} {:>6.1f}% {:>9.2f} {}\n", e["dtype"].get<std::string>(),
                     e["accumulation"].get<std::string>(), e["point"].get<std::string>(), e["e_max"].get<double>(),
                     e["e_max_over_u"].get<double>(), 100 * e["cv"].get<double>(), e["r2_sqrt_n"].get<double>(), per);
  }
  return s;
}

}  // namespace sdc
