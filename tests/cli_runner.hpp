// Runs the sdcbench binary from tests and captures what it prints.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "scratch.hpp"

namespace sdc::testing {

struct cli_result {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line, capturing stdout and stderr.
inline cli_result run_command(const std::string& cmd) {
  cli_result r;
  std::FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// The command built by appending (GCC 12 at -O3 warns, falsely, of an
// overflow in `std::string(a) + " " + b`: GCC bug 105651).
inline cli_result run_cli(const std::string& args) {
  std::string command = SDCBENCH_BINARY;
  command += ' ';
  command += args;
  return run_command(command);
}

// `sdcbench ARGS` as np processes of one OpenMPI job on this host (as root
// too, oversubscribed on 2 cores). In the sanitizer build the ranks run
// without LeakSanitizer: OpenMPI's components allocate at MPI_Init and keep
// it, from code LSan cannot name (its stacks end in "unknown module"), so no
// suppression can single them out; ASan and UBSan stay on.
// GCC says ASan with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define SDCBENCH_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SDCBENCH_TEST_ASAN 1
#endif
#endif
inline cli_result run_mpirun(int np, const std::string& args) {
#if defined(SDCBENCH_TEST_ASAN)
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string leaks = "ASAN_OPTIONS='" + std::string(asan ? asan : "") + ":detect_leaks=0' ";
#else
  const std::string leaks;
#endif
  return run_command(leaks + "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np " +
                     std::to_string(np) + " " + SDCBENCH_BINARY + " " + args);
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Appended, not operator+: in some unity files GCC 12 warns falsely (-Warray-bounds) on the concatenation.
inline std::string test_data(const std::string& rel) {
  std::string path = SDCBENCH_TEST_DATA;
  path.append("/").append(rel);
  return path;
}

}  // namespace sdc::testing
