#include "foundation/io/npy.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <regex>

#include "foundation/errors.hpp"
#include "foundation/formats/narrow_fp32.hpp"

namespace sdc {
namespace {

size_t item_size(const std::string& descr) {
  if (descr == "<f8" || descr == "<i8") return 8;
  if (descr == "<f4" || descr == "<i4") return 4;
  if (descr == "<f2" || descr == "<i2") return 2;
  if (descr == "|i1" || descr == "|u1") return 1;
  return 0;
}

}  // namespace

int64_t npy_array::count() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::vector<double> npy_array::values() const {
  const int64_t n = count();
  std::vector<double> out(static_cast<size_t>(n));
  const unsigned char* p = bytes.data();
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    if (descr == "<f8") { double x; std::memcpy(&x, p + 8 * i, 8); v = x; }
    else if (descr == "<f4") { float x; std::memcpy(&x, p + 4 * i, 4); v = x; }
    else if (descr == "<f2") { uint16_t x; std::memcpy(&x, p + 2 * i, 2); v = fp32_from_fp16(x); }
    else if (descr == "<i8") { int64_t x; std::memcpy(&x, p + 8 * i, 8); v = double(x); }
    else if (descr == "<i4") { int32_t x; std::memcpy(&x, p + 4 * i, 4); v = x; }
    else if (descr == "<i2") { int16_t x; std::memcpy(&x, p + 2 * i, 2); v = x; }
    else if (descr == "|i1") { v = double(int8_t(p[i])); }
    else if (descr == "|u1") { v = double(p[i]); }
    out[size_t(i)] = v;
  }
  return out;
}

npy_array read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "file", "expected a readable .npy file; cannot open it");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw input_error(path, "magic", "expected the .npy magic string \\x93NUMPY at the start");
  const int major = magic[6];
  uint32_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) throw input_error(path, "header_len", "expected 2 bytes; file ends");
    hlen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) throw input_error(path, "header_len", "expected 4 bytes; file ends");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  } else {
    throw input_error(path, "version", "expected .npy format version 1, 2 or 3; got " + std::to_string(major));
  }
  {  // the header must fit in the file before it is allocated
    const auto here = in.tellg();
    in.seekg(0, std::ios::end);
    const uint64_t left = uint64_t(in.tellg() - here);
    in.seekg(here);
    if (hlen > left)
      throw input_error(path, "header", "expected a header of " + std::to_string(hlen) + " bytes; the file has " + std::to_string(left) + " left");
  }
  std::string header(hlen, '\0');
  if (!in.read(header.data(), hlen)) throw input_error(path, "header", "expected a header of " + std::to_string(hlen) + " bytes; file ends");
  npy_array a;
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    throw input_error(path, "header.descr", "expected a 'descr' entry");
  a.descr = m[1];
  if (a.descr == "<u1" || a.descr == "<i1") a.descr = "|" + a.descr.substr(1);
  if (item_size(a.descr) == 0)
    throw input_error(path, "header.descr", "expected one of <f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 (little-endian); got '" + a.descr + "'");
  if (std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*(True|False)")) && m[1] == "True")
    throw input_error(path, "header.fortran_order", "expected False (C order)");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)")))
    throw input_error(path, "header.shape", "expected a 'shape' tuple");
  const std::string dims = m[1];
  const std::regex number("-?\\d+");
  std::sregex_iterator it(dims.begin(), dims.end(), number), end;
  // The element count, checked against the bytes the file has left before
  // anything is allocated: a header may claim 2^62 elements, or dimensions
  // whose product overflows.
  const auto here = in.tellg();
  in.seekg(0, std::ios::end);
  const uint64_t left = uint64_t(in.tellg() - here);
  in.seekg(here);
  const uint64_t es = item_size(a.descr);
  uint64_t count = 1;
  bool too_big = false;
  for (; it != end; ++it) {
    const std::string t = it->str();
    if (t[0] == '-') throw input_error(path, "header.shape", "expected non-negative dimensions; got " + t);
    if (t.size() > 18) {
      too_big = true;
      continue;
    }
    const uint64_t d = std::stoull(t);
    a.shape.push_back(int64_t(d));
    if (d != 0 && count > (uint64_t(1) << 62) / d) too_big = true;
    else count *= d;
  }
  if (too_big)
    throw input_error(path, "header.shape", "expected a shape of at most 2^62 elements; got (" + dims + ")");
  if (count > left / es)
    throw input_error(path, "data", "expected " + std::to_string(count) + " elements of " + std::to_string(es) +
                                        " bytes for the header's shape; the file is truncated after " + std::to_string(left) + " bytes of data");
  a.bytes.resize(size_t(count * es));
  in.read(reinterpret_cast<char*>(a.bytes.data()), std::streamsize(a.bytes.size()));
  if (uint64_t(in.gcount()) != count * es)
    throw input_error(path, "data", "expected " + std::to_string(count * es) + " bytes of data; the file is truncated after " +
                                        std::to_string(in.gcount()));
  return a;
}

void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* data, size_t nbytes) {
  std::string dims;
  for (auto d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream out(path, std::ios::binary);
  if (!out) throw input_error(path, "file", "cannot open for writing");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t hl = uint16_t(header.size());
  const char hb[2] = {char(hl & 0xff), char(hl >> 8)};
  out.write(hb, 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(static_cast<const char*>(data), std::streamsize(nbytes));
}

}  // namespace sdc
