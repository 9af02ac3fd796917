// What every fuzz target shares. The readers take paths, as the command line
// does, so each input is written to a file of this process's own and read
// back through the real code path. A reader may refuse an input only with
// sdc::input_error (exit 2 with the file, the field and what was expected);
// any other exception escapes and libFuzzer reports it as a finding, as it
// does a crash, a sanitizer report, a leak or a hang.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "foundation/errors.hpp"
#include "tests/scratch.hpp"

namespace sdc::fuzz {

// A folder of this process's own under the temporary directory, removed when
// libFuzzer exits normally (a crash keeps it, with the input that crashed).
inline const std::string& scratch_dir() {
  static const std::string dir = sdc::testing::scratch_registry().make("sdcbench", "fuzz");
  return dir;
}

// Writes the input to scratch_dir()/name and returns the path.
inline std::string input_file(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

// Runs `read`; a clear refusal (input_error) is a fine answer to a hostile input.
template <class F>
void refused_or_read(F&& read) {
  try {
    read();
  } catch (const sdc::input_error&) {
  }
}

}  // namespace sdc::fuzz

namespace sdc::fuzz {

// Draws numbers from the fuzzer's bytes, front to back (zeros once they run out).
class byte_source {
 public:
  byte_source(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  template <class T>
  T raw() {
    T v{};
    unsigned char b[sizeof(T)] = {};
    for (size_t i = 0; i < sizeof(T) && p_ < end_; ++i) b[i] = *p_++;
    __builtin_memcpy(&v, b, sizeof(T));
    return v;
  }
  // An integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(raw<uint32_t>() % uint64_t(hi - lo + 1)); }
  bool empty() const { return p_ >= end_; }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace sdc::fuzz
