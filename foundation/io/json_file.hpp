// JSON files: read with errors that name the file, written atomically; and
// the one rule for a number a result records (finite_or_null).
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

// Writes to PATH.tmp.PID, fsyncs, renames: a reader never sees half a file.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
// Reads a JSON file; input_error naming the file on failure.
nlohmann::json read_json_file(const std::string& path);
// Parses JSON text read from `path` (`what`: the part of the file it is, for
// the message). Malformed text, and a number beyond a double's range (which
// nlohmann reports as out_of_range 406, not as a parse error), become an
// input_error at "WHAT byte N".
nlohmann::json parse_json_text(const std::string& text, const std::string& path, const std::string& what = "");
// A number a result set records: the value, or null where it is not finite
// (not computed, or no value: never a 0 in its place).
inline nlohmann::json finite_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace sdc
