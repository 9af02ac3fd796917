#include "harness/io/safetensors.hpp"

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/errors.hpp"
#include "harness/formats/narrow_fp32.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

struct header {
  json j;
  uint64_t data_start = 0, file_size = 0;
};

header read_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw input_error(path, "file", "expected a readable .safetensors file; cannot open it");
  header h;
  h.file_size = uint64_t(in.tellg());
  in.seekg(0);
  unsigned char len[8];
  if (!in.read(reinterpret_cast<char*>(len), 8)) throw input_error(path, "header_size", "expected 8 bytes; the file is shorter");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > h.file_size - 8) throw input_error(path, "header_size", "expected a header that fits in the file; it claims " + std::to_string(n) + " bytes");
  std::string text(n, '\0');
  in.read(text.data(), std::streamsize(n));
  try {
    h.j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw input_error(path, "header", std::string("expected a JSON header: ") + e.what());
  }
  if (!h.j.is_object()) throw input_error(path, "header", "expected a JSON object");
  h.data_start = 8 + n;
  return h;
}

size_t dtype_size(const std::string& d) {
  if (d == "F64" || d == "I64") return 8;
  if (d == "F32" || d == "I32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16") return 2;
  if (d == "I8" || d == "U8") return 1;
  return 0;
}

double element(const std::string& d, const unsigned char* p) {
  if (d == "F64") { double x; std::memcpy(&x, p, 8); return x; }
  if (d == "F32") { float x; std::memcpy(&x, p, 4); return x; }
  if (d == "F16") { uint16_t x; std::memcpy(&x, p, 2); return fp32_from_fp16(x); }
  if (d == "BF16") { uint16_t x; std::memcpy(&x, p, 2); return fp32_from_bf16(x); }
  if (d == "I64") { int64_t x; std::memcpy(&x, p, 8); return double(x); }
  if (d == "I32") { int32_t x; std::memcpy(&x, p, 4); return x; }
  if (d == "I16") { int16_t x; std::memcpy(&x, p, 2); return x; }
  if (d == "I8") return double(int8_t(*p));
  return double(*p);  // U8
}

}  // namespace

std::vector<std::string> safetensors_names(const std::string& path) {
  const header h = read_header(path);
  std::vector<std::string> names;
  for (auto it = h.j.begin(); it != h.j.end(); ++it)
    if (it.key() != "__metadata__") names.push_back(it.key());
  return names;
}

safetensor read_safetensor(const std::string& path, const std::string& name) {
  const header h = read_header(path);
  if (!h.j.contains(name)) {
    std::string names;
    for (const auto& n : safetensors_names(path)) names += (names.empty() ? "" : ", ") + n;
    throw input_error(path, "header." + name, "no tensor of that name; the file holds: " + names);
  }
  const json& t = h.j[name];
  safetensor s;
  s.name = name;
  try {
    s.dtype = t.at("dtype").get<std::string>();
    s.shape = t.at("shape").get<std::vector<int64_t>>();
  } catch (const std::exception&) {
    throw input_error(path, "header." + name, "expected {dtype, shape, data_offsets}");
  }
  const size_t es = dtype_size(s.dtype);
  if (es == 0) throw input_error(path, "header." + name + ".dtype", "expected F64, F32, F16, BF16, I64, I32, I16, I8 or U8; got " + s.dtype);
  uint64_t count = 1;
  for (auto d : s.shape) count *= uint64_t(d);
  const auto off = t.at("data_offsets").get<std::vector<uint64_t>>();
  if (off.size() != 2 || off[1] < off[0] || off[1] - off[0] != count * es)
    throw input_error(path, "header." + name + ".data_offsets", "expected [begin, end] spanning shape x " + std::to_string(es) + " bytes");
  if (h.data_start + off[1] > h.file_size)
    throw input_error(path, "data", "the file is truncated: tensor " + name + " ends at byte " + std::to_string(h.data_start + off[1]) +
                                        ", the file has " + std::to_string(h.file_size));
  std::ifstream in(path, std::ios::binary);
  in.seekg(std::streamoff(h.data_start + off[0]));
  std::vector<unsigned char> bytes(off[1] - off[0]);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  s.values.resize(count);
  for (uint64_t i = 0; i < count; ++i) s.values[i] = element(s.dtype, bytes.data() + i * es);
  return s;
}

void write_safetensors_f32(const std::string& path, const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes,
                           const std::vector<std::vector<float>>& data) {
  json h = json::object();
  uint64_t offset = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint64_t bytes = data[i].size() * 4;
    h[shapes[i].first] = {{"dtype", "F32"}, {"shape", shapes[i].second}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = h.dump();
  text += std::string((8 - text.size() % 8) % 8, ' ');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw input_error(path, "file", "cannot open for writing");
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out.put(char((n >> (8 * i)) & 0xff));
  out.write(text.data(), std::streamsize(text.size()));
  for (const auto& d : data) out.write(reinterpret_cast<const char*>(d.data()), std::streamsize(d.size() * 4));
}

}  // namespace sdc
