// JSON files: read with errors that name the file, written atomically.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace sdc {

// Writes to PATH.tmp.PID, fsyncs, renames: a reader never sees half a file.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
// Reads a JSON file; input_error naming the file on failure.
nlohmann::json read_json_file(const std::string& path);

}  // namespace sdc
