// Scratch folders for tests: one per name and process under the temporary
// directory, removed when the test program exits normally. A test that fails
// by crashing leaves its folder for a look; so does SDCBENCH_KEEP_SCRATCH=1.
// (Each CI run otherwise left hundreds of folders behind.)
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace sdc::testing {

class scratch_folders {
 public:
  ~scratch_folders() {
    const char* keep = std::getenv("SDCBENCH_KEEP_SCRATCH");
    if (keep && *keep && std::string(keep) != "0") return;
    std::error_code ec;
    for (const auto& d : dirs_) std::filesystem::remove_all(d, ec);
  }
  // A fresh, empty folder `prefix-name-pid`.
  std::string make(const std::string& prefix, const std::string& name) {
    const auto d = std::filesystem::temp_directory_path() / (prefix + "-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    const std::lock_guard<std::mutex> lock(mu_);
    dirs_.push_back(d);
    return d.string();
  }

 private:
  std::mutex mu_;
  std::vector<std::filesystem::path> dirs_;
};

inline scratch_folders& scratch_registry() {
  static scratch_folders r;
  return r;
}

// A fresh scratch folder per test.
inline std::string scratch_dir(const std::string& name) { return scratch_registry().make("sdcbench-test", name); }

}  // namespace sdc::testing
