// e_max calibration, the protocol of 001_e8c16cbdc32a8eac.txt section 3.6:
// |N(1,1)| square matrices (positive, so the checksum does not cancel), the
// relative verification error |E_i| / |checksum_i| of every row check, its
// maximum over rows and trials, plus a 20 % margin. Per (dtype, accumulation
// order, verification point) and size N, with the statistics of Tables 1, 2, 7:
// e_max / u, the coefficient of variation across sizes, and the R^2 of a fit
// e_max = a sqrt(N) + b.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace sdc {

struct calibration_request {
  std::vector<std::string> dtypes{"fp64", "fp32", "bf16", "fp16"};
  std::vector<int64_t> sizes{128, 256, 512};
  std::vector<std::string> accumulations{"sequential", "kblock(32)"};
  std::vector<std::string> points{"offline", "fused"};
  int64_t trials = 50;
  uint64_t seed = 1;
  int threads = 1;
  double margin = 0.2;
  bool progress = false;
};

// Runs the protocol; returns the calibration file's JSON ("sdcbench.emax/1"),
// which `sdcbench calibrate` writes and prints (harness/cli/calibrate_command.hpp).
nlohmann::json calibrate_emax(const calibration_request& r);

}  // namespace sdc
