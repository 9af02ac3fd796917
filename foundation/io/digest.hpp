// SHA-256 of bytes, as lower-case hex (OpenSSL's EVP): suite files in result
// sets, configuration hashes of cached checkpoints.
#pragma once
#include <string>

namespace sdc {
std::string sha256_hex(const std::string& bytes);
// Of a file's bytes; throws input_error when it cannot be read.
std::string file_sha256_hex(const std::string& path);
}
