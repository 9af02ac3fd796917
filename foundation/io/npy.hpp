// NumPy .npy files (format versions 1.0-3.0, C order, little-endian): the way
// users hand sdcbench their own tensors and matrices. A file whose header or
// size does not match what it claims is an input_error naming the file and field.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc {

struct npy_array {
  std::string descr;           // '<f4', '<f8', '<f2', '|i1', '|u1', '<i4'
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;  // raw little-endian data

  int64_t count() const;
  std::vector<double> values() const;  // every element as double (exact)
};

npy_array read_npy(const std::string& path);
void write_npy(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
               const void* data, size_t nbytes);

}  // namespace sdc
