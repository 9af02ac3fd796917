#include "foundation/io/data_files.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <system_error>

#include "foundation/errors.hpp"

namespace sdc {
namespace fs = std::filesystem;

namespace {

// The file this code was loaded from: the program, or the shared object that
// embeds the core (the Python module), found with dladdr on a function of ours.
fs::path loaded_from() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&data_dir), &info) != 0 && info.dli_fname && info.dli_fname[0] == '/')
    return fs::path(info.dli_fname);
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

}  // namespace

fs::path data_dir() {
  static const fs::path found = [] {
    if (const char* env = std::getenv("SDCBENCH_DATA_DIR"); env && *env) {
      if (!fs::is_directory(fs::path(env) / "suites"))
        throw input_error("$SDCBENCH_DATA_DIR", env, "a directory holding sdcbench's data (suites/, emax-calibration.json)");
      return fs::path(env);
    }
    std::string tried;
    fs::path dir = fs::weakly_canonical(loaded_from()).parent_path();
    for (int up = 0; up <= 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
      const fs::path cand = dir / "share" / "sdcbench";
      if (fs::is_directory(cand / "suites")) return cand;
      tried += (tried.empty() ? "" : ", ") + cand.string();
      if (dir == dir.parent_path()) break;
    }
    throw input_error("$SDCBENCH_DATA_DIR", "(unset)",
                      "sdcbench's data directory share/sdcbench beside the program; searched " + tried +
                          " (install with `cmake --install`, or set SDCBENCH_DATA_DIR)");
  }();
  return found;
}

fs::path data_file(const std::string& relative) { return data_dir() / relative; }

fs::path user_or_data_file(const std::string& name) {
  if (fs::exists(name)) return fs::path(name);
  return data_file(name);
}

std::string portable_path(const std::string& path) {
  if (path.empty() || path[0] != '/') return path;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = fs::path(path).lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return fs::path(path).filename().string();
}

std::vector<std::string> portable_argv(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (i == 0) {
      out.push_back("sdcbench");
      continue;
    }
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) out.push_back(a.substr(0, eq + 1) + portable_path(a.substr(eq + 1)));
    else out.push_back(portable_path(a));
  }
  return out;
}

}  // namespace sdc
