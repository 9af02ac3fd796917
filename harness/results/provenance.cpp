// A result set's provenance (result_set.hpp): the source's git state, the
// build, the CPU, the run's arguments and times, and the libraries and
// kernels that ran.
#include <boost/version.hpp>
#include <cblas.h>
#include <dnnl.h>
#include <mpfr.h>

#include <CLI/Version.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <vector>

#include "foundation/io/data_files.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/simd/simd_level.hpp"
#include "harness/results/result_set.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::string run_command(const std::string& cmd) {
  std::string out;
  if (std::FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    if (::pclose(p) != 0) return "";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string onednn_description(const std::string& int8_gemm_kernel) {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}; int8 GEMM: {}", v->major, v->minor, v->patch, int8_gemm_kernel);
}

}  // namespace

std::string now_iso8601() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json provenance(const std::vector<std::string>& argv, int threads, uint64_t seed, const std::string& started,
                const std::string& int8_gemm_kernel) {
  // The git state of the source this binary was built from: read at run time
  // from the checkout when the build tree's data directory links to it
  // (`source`), else as `cmake --install` recorded it (build-info.json).
  const fs::path data = data_dir();
  std::string commit;
  json dirty = nullptr;
  if (fs::exists(data / "source")) {
    const std::string src = (data / "source").string();
    commit = run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
    if (!commit.empty()) dirty = !run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty();
  } else if (fs::exists(data / "build-info.json")) {
    const json info = read_json_file((data / "build-info.json").string());
    if (info.contains("git_commit") && info["git_commit"].is_string()) commit = info["git_commit"].get<std::string>();
    if (info.contains("git_dirty") && info["git_dirty"].is_boolean()) dirty = info["git_dirty"];
  }
  return {{"sdcbench_version", SDCBENCH_VERSION},
          {"git_commit", commit.empty() ? "unknown" : commit},
          {"git_dirty", dirty},
          {"compiler", SDCBENCH_COMPILER},
          {"build_type", SDCBENCH_BUILD_TYPE},
          {"cpu", cpu_model()},
          {"threads", threads},
          {"seed", seed},
          {"argv", portable_argv(argv)},
          {"started", started},
          {"finished", now_iso8601()},
          {"libraries",
           {{"mpfr", mpfr_get_version()},
            {"boost", fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100)},
            {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                                          NLOHMANN_JSON_VERSION_PATCH)},
            {"openblas", openblas_get_config()},
            // The kernels that ran: oneDNN's instruction set decides whether
            // the int8 GEMM is oneDNN's (VNNI) or sdcbench's widened one, and
            // sdcbench's SIMD level which of its kernels ran (same bits).
            {"onednn", onednn_description(int8_gemm_kernel)},
            {"sdcbench_simd", simd_name(active_simd_level())},
            {"sdcbench_gemm", active_gemm_variant().text()},
            {"fmt", std::to_string(FMT_VERSION)},
            {"cli11", CLI11_VERSION}}}};
}

}  // namespace sdc
