#include "harness/io/json_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/errors.hpp"

namespace sdc {

using json = nlohmann::json;

void write_json_atomic(const std::string& path, const json& j) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) throw input_error(path, "file", "cannot open a temporary file beside it for writing");
    const std::string text = j.dump(1) + "\n";
    const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    std::fclose(f);
    if (!ok) {
      std::filesystem::remove(tmp);
      throw input_error(path, "file", "writing failed (disk full?); nothing was written");
    }
  }
  std::filesystem::rename(tmp, path);
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "file", "expected a readable JSON file; cannot open it");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw input_error(path, "byte " + std::to_string(e.byte), std::string("expected valid JSON: ") + e.what());
  }
}

}  // namespace sdc
