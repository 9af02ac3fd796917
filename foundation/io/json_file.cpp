#include "foundation/io/json_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "foundation/errors.hpp"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "file", "expected a readable JSON file; cannot open it");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_json_text(text, path);
}

json parse_json_text(const std::string& text, const std::string& path, const std::string& what) {
  const std::string at = what.empty() ? "" : what + " ";
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw input_error(path, at + "byte " + std::to_string(e.byte), std::string("expected valid JSON: ") + e.what());
  } catch (const json::out_of_range& e) {  // 406: a number that overflows a double
    throw input_error(path, at.empty() ? "file" : what, std::string("expected numbers a double can hold: ") + e.what());
  }
}

}  // namespace sdc
