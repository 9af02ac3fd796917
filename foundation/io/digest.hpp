// SHA-256 of bytes, as lower-case hex (OpenSSL's EVP): suite files in result
// sets, configuration hashes of cached checkpoints.
#pragma once
#include <cstddef>
#include <string>

namespace sdc {
std::string sha256_hex(const std::string& bytes);
// SHA-1 of `n` bytes as lower-case hex (Megatron's parameter hashes use SHA-1).
std::string sha1_hex(const void* data, size_t n);
// Of a file's bytes; throws input_error when it cannot be read.
std::string file_sha256_hex(const std::string& path);
}
