#include "foundation/io/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"
#include "foundation/formats/narrow_fp32.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

struct header {
  json j;
  uint64_t data_start = 0, file_size = 0;
};

size_t dtype_size(const std::string& d);

// Every tensor entry {dtype, shape, data_offsets}: a known dtype, dimensions
// >= 0 whose byte count does not overflow and matches the offsets, offsets
// inside the file's data, and no two tensors sharing bytes (the format's own
// rule: a buffer indexed once, so no file is two things at once).
void check_entries(const std::string& path, header& h) {
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  const uint64_t data = h.file_size - h.data_start;
  for (auto it = h.j.begin(); it != h.j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string where = "header." + it.key();
    const json& t = *it;
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets") || !t["dtype"].is_string() ||
        !t["shape"].is_array() || !t["data_offsets"].is_array() || t["data_offsets"].size() != 2)
      throw input_error(path, where, "expected {dtype: string, shape: [dims], data_offsets: [begin, end]}");
    const uint64_t es = dtype_size(t["dtype"].get<std::string>());
    if (es == 0)
      throw input_error(path, where + ".dtype", "expected F64, F32, F16, BF16, I64, I32, I16, I8 or U8; got " + t["dtype"].get<std::string>());
    uint64_t bytes = es;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_unsigned()) throw input_error(path, where + ".shape", "expected non-negative integer dimensions; got " + d.dump());
      const uint64_t v = d.get<uint64_t>();
      if (v > (uint64_t(1) << 62) || (v != 0 && bytes > (uint64_t(1) << 62) / v)) throw input_error(path, where + ".shape", "expected at most 2^62 bytes; got " + t["shape"].dump());
      bytes *= v;
    }
    for (const auto& o : t["data_offsets"])
      if (!o.is_number_unsigned()) throw input_error(path, where + ".data_offsets", "expected two non-negative integers; got " + t["data_offsets"].dump());
    const uint64_t b = t["data_offsets"][0].get<uint64_t>(), e = t["data_offsets"][1].get<uint64_t>();
    if (e < b || e - b != bytes)
      throw input_error(path, where + ".data_offsets", "expected [begin, end] spanning shape x " + std::to_string(es) + " bytes");
    if (e > data)
      throw input_error(path, "data", "the file is truncated: tensor " + it.key() + " ends at byte " + std::to_string(h.data_start + e) +
                                          ", the file has " + std::to_string(h.file_size));
    if (b < e) spans.emplace_back(b, e);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    if (spans[i].first < spans[i - 1].second)
      throw input_error(path, "header.data_offsets", "expected tensors that do not overlap; two share bytes " + std::to_string(spans[i].first) +
                                                        " to " + std::to_string(std::min(spans[i].second, spans[i - 1].second)));
}

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
  h.j = parse_json_text(text, path, "header");
  if (!h.j.is_object()) throw input_error(path, "header", "expected a JSON object");
  h.data_start = 8 + n;
  check_entries(path, h);
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
  if (!h.j.contains(name) || name == "__metadata__") {
    std::string names;
    for (const auto& n : safetensors_names(path)) names += (names.empty() ? "" : ", ") + n;
    throw input_error(path, "header." + name, "no tensor of that name; the file holds: " + names);
  }
  const json& t = h.j[name];  // checked by read_header
  safetensor s;
  s.name = name;
  s.dtype = t["dtype"].get<std::string>();
  s.shape = t["shape"].get<std::vector<int64_t>>();
  const size_t es = dtype_size(s.dtype);
  const auto off = t["data_offsets"].get<std::vector<uint64_t>>();
  const uint64_t count = (off[1] - off[0]) / es;
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
