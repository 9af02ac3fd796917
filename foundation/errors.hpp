// Errors that end a command with a clear message and exit code 2: bad input
// (suite JSON, tensor files, command-line values). Each names the file, the
// JSON path or field, and what was expected.
#pragma once
#include <stdexcept>
#include <string>

namespace sdc {

class input_error : public std::runtime_error {
 public:
  input_error(std::string file, std::string field, std::string expected)
      : std::runtime_error(file + ": " + field + ": " + expected),
        file_(std::move(file)), field_(std::move(field)), expected_(std::move(expected)) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_, field_, expected_;
};

// A value that is wrong independent of where it came from (e.g. parsing an
// axis value). Callers that know the file and JSON path rethrow it as an
// input_error with that context.
class value_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ends the program with `code` and no message (a process of an MPI job whose
// rank 0 reports the error).
struct quiet_exit {
  int code = 2;
};

}  // namespace sdc
