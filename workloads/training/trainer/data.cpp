#include "workloads/training/trainer/data.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <sstream>
#include <zlib.h>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc::train {
namespace {

// When prompt, response and end byte do not fit in seq + 1 bytes, the prompt
// loses its head (its tail, "### Response:\n", stays) down to half the window,
// then the response loses its tail: every sample keeps some loss.
tokenized pack(std::string prompt, std::string response, int seq) {
  tokenized t;
  t.tokens.assign(size_t(seq) + 1, 0);
  t.loss_mask.assign(size_t(seq), 0);
  const size_t window = size_t(seq) + 1;
  response.push_back('\0');  // the end byte, part of the response
  if (prompt.size() + response.size() > window) {
    const size_t keep = std::max(window / 2, window > response.size() ? window - response.size() : 0);
    if (prompt.size() > keep) prompt.erase(0, prompt.size() - keep);
  }
  const std::string all = prompt + response;
  const size_t n = std::min(all.size(), size_t(seq) + 1);
  for (size_t i = 0; i < n; ++i) t.tokens[i] = int64_t(uint8_t(all[i]));
  // target i is token i + 1: it carries loss when that token is in the response
  for (size_t i = 0; i + 1 < n; ++i) t.loss_mask[i] = (i + 1 >= prompt.size()) ? 1 : 0;
  return t;
}

using engine = boost::random::mt19937_64;
int64_t draw(engine& g, int64_t lo, int64_t hi) { return boost::random::uniform_int_distribution<int64_t>(lo, hi)(g); }
std::string word(engine& g, int min_len, int max_len) {
  std::string w(size_t(draw(g, min_len, max_len)), 'a');
  for (auto& ch : w) ch = char('a' + draw(g, 0, 25));
  return w;
}

}  // namespace

tokenized tokenize_instruction(const instruction_example& e, int seq) {
  std::string prompt = "### Instruction:\n" + e.instruction + "\n";
  if (!e.input.empty()) prompt += "### Input:\n" + e.input + "\n";
  prompt += "### Response:\n";
  return pack(prompt, e.output, seq);
}

tokenized tokenize_text(const std::string& text, size_t offset, int seq) {
  tokenized t;
  t.tokens.resize(size_t(seq) + 1);
  for (size_t i = 0; i <= size_t(seq); ++i) t.tokens[i] = int64_t(uint8_t(text[(offset + i) % text.size()]));
  t.loss_mask.assign(size_t(seq), 1);
  return t;
}

std::vector<instruction_example> generate_instructions(int64_t n, uint64_t seed) {
  engine g(seed);
  std::vector<instruction_example> out;
  out.reserve(size_t(n));
  for (int64_t i = 0; i < n; ++i) {
    instruction_example e;
    switch (draw(g, 0, 5)) {
      case 0: {
        const int64_t a = draw(g, 0, 999), b = draw(g, 0, 999);
        e = {"Add the two numbers.", fmt::format("{}+{}", a, b), std::to_string(a + b)};
        break;
      }
      case 1: {
        const std::string w = word(g, 3, 8);
        e = {"Reverse the word.", w, std::string(w.rbegin(), w.rend())};
        break;
      }
      case 2: {
        std::string w = word(g, 3, 8);
        e = {"Sort the letters.", w, ""};
        std::sort(w.begin(), w.end());
        e.output = w;
        break;
      }
      case 3: {
        const std::string w = word(g, 1, 12);
        e = {"Count the letters.", w, std::to_string(w.size())};
        break;
      }
      case 4: {
        std::string w = word(g, 3, 8);
        e = {"Write the word in capitals.", w, w};
        for (auto& ch : e.output) ch = char(ch - 'a' + 'A');
        break;
      }
      default: {
        std::string w = word(g, 4, 10);
        const char from = w[size_t(draw(g, 0, int64_t(w.size()) - 1))];
        const char to = char('a' + draw(g, 0, 25));
        e = {fmt::format("Replace every {} with {}.", from, to), w, w};
        std::replace(e.output.begin(), e.output.end(), from, to);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<instruction_example> read_alpaca(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  if (!j.is_array()) throw input_error(path, "(top level)", "an array of {instruction, input, output} objects");
  if (j.empty()) throw input_error(path, "(top level)", "at least one example; got an empty array");
  std::vector<instruction_example> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& o = j[i];
    const std::string where = fmt::format("[{}]", i);
    if (!o.is_object()) throw input_error(path, where, "an object with string fields instruction, input, output");
    auto field = [&](const char* name, bool required) -> std::string {
      if (!o.contains(name)) {
        if (required) throw input_error(path, where + "." + name, "a string; the field is missing");
        return "";
      }
      if (!o[name].is_string()) throw input_error(path, where + "." + name, "a string; got " + o[name].dump());
      return o[name].get<std::string>();
    };
    out.push_back({field("instruction", true), field("input", false), field("output", true)});
  }
  return out;
}

std::string read_corpus(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file() && !e.is_symlink() && e.path().extension() != ".dat") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else {
    throw input_error(path, "corpus", "a text file or a folder of text files; it does not exist");
  }
  // zlib's gzread reads gzip and dictzip (.dz: dictd's, gzip with an index)
  // files and passes other files through unchanged: one reader for fortunes'
  // plain text and dict-gcide's compressed dictionary.
  std::string text;
  for (const auto& f : files) {
    gzFile in = gzopen(f.c_str(), "rb");
    if (!in) throw input_error(f.string(), "corpus", "a readable text file");
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(in, buf, sizeof buf)) > 0) text.append(buf, size_t(n));
    int err = Z_OK;
    const std::string why = n < 0 ? gzerror(in, &err) : "";
    gzclose(in);
    if (n < 0) throw input_error(f.string(), "corpus", "a readable text file or gzip/dictzip stream (" + why + ")");
  }
  text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());  // NUL is the end byte
  if (text.size() < 2) throw input_error(path, "corpus", "at least two bytes of text");
  return text;
}

std::vector<int64_t> distributed_indices(int64_t n, int ranks, int rank, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = i;
  engine g(seed + uint64_t(epoch));  // DistributedSampler seeds its generator with seed + epoch
  for (int64_t i = n - 1; i > 0; --i) std::swap(perm[size_t(i)], perm[size_t(draw(g, 0, i))]);
  const int64_t total = (n + ranks - 1) / ranks * ranks;
  for (int64_t i = n; i < total; ++i) perm.push_back(perm[size_t(i - n)]);
  std::vector<int64_t> mine;
  for (int64_t i = rank; i < total; i += ranks) mine.push_back(perm[size_t(i)]);
  return mine;
}

}  // namespace sdc::train
