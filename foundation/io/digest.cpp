#include "foundation/io/digest.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <fstream>
#include <sstream>

#include "foundation/errors.hpp"

namespace sdc {

namespace {

std::string hex_digest(const EVP_MD* md_type, const void* data, size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data, n, md, &len, md_type, nullptr);
  std::string hex;
  for (unsigned i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

}  // namespace

std::string sha256_hex(const std::string& bytes) { return hex_digest(EVP_sha256(), bytes.data(), bytes.size()); }

std::string sha1_hex(const void* data, size_t n) { return hex_digest(EVP_sha1(), data, n); }

std::string file_sha256_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "file", "a readable file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return sha256_hex(ss.str());
}

}  // namespace sdc
