#include "harness/campaign/journal.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>

#include "harness/campaign/episode_codec.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// A chunk's MessagePack bytes: a binary value, or its JSON text form
// {"bytes": [0..255, ...]} (nlohmann's get<uint8_t> would cast any number).
std::vector<uint8_t> chunk_bytes(const json& b, const std::function<void(const std::string&)>& fail) {
  if (b.is_binary()) return b.get_binary();
  std::vector<uint8_t> out;
  const json& a = b.at("bytes");
  if (!a.is_array()) fail("episodes.bytes: expected an array of bytes");
  out.reserve(a.size());
  for (const auto& x : a) {
    if (!x.is_number_unsigned() || x.get<uint64_t>() > 255) fail("episodes.bytes: expected integers from 0 to 255");
    out.push_back(uint8_t(x.get<uint64_t>()));
  }
  return out;
}

// One line after the header, checked against the run's shape; json's own
// exceptions (a missing key, a wrong type) become the caller's input_error.
void read_line(const json& j, const journal_shape& shape, journaled& out, const std::function<void(const std::string&)>& fail) {
  if (!j.is_object()) fail("expected an object {cell, ...} or {chunk, ...}");
  if (j.contains("chunk")) {
    if (!j.at("chunk").is_number_unsigned() || !j.at("first").is_number_integer()) fail("chunk, first: expected integers");
    const size_t n = j.at("chunk").get<size_t>();
    const int64_t first = j.at("first").get<int64_t>();
    auto eps = decode_episodes(chunk_bytes(j.at("episodes"), fail));
    if (n >= shape.cells) fail(fmt::format("chunk: expected a cell below {}; got {}", shape.cells, n));
    if (first < 0 || first > shape.trials || int64_t(eps.size()) > shape.trials - first || eps.empty())
      fail(fmt::format("first: expected a chunk inside the cell's {} trials; got {} episodes from {}", shape.trials, eps.size(), first));
    for (const auto& e : eps)
      if (e.detectors.size() != shape.detectors || e.recordings.size() != shape.recorders)
        fail(fmt::format("episodes: expected {} detectors and {} recorders per episode", shape.detectors, shape.recorders));
    out.chunks[n][first] = std::move(eps);
    return;
  }
  if (!j.at("cell").is_number_unsigned()) fail("cell: expected a cell index");
  const size_t n = j.at("cell").get<size_t>();
  if (n >= shape.cells) fail(fmt::format("cell: expected a cell below {}; got {}", shape.cells, n));
  cell_records r;
  for (const char* k : {"records", "recordings", "timing"})
    if (!j.at(k).is_array()) fail(std::string(k) + ": expected an array");
  for (auto& x : j.at("records")) r.records.push_back(x);
  for (auto& x : j.at("recordings")) r.recordings.push_back(x);
  for (auto& x : j.at("timing")) r.timing.push_back(x);
  // A skipped cell has records but no timings or recordings.
  if (r.records.size() != shape.detectors || (r.timing.size() != shape.detectors && !r.timing.empty()) ||
      (r.recordings.size() != shape.recorders && !r.recordings.empty()))
    fail(fmt::format("expected {} records, and {} timings and {} recordings or none (this run's detectors and recorders)",
                     shape.detectors, shape.detectors, shape.recorders));
  for (const auto& x : r.records)
    if (!x.is_object() || !x.contains("cell") || x["cell"] != json(n)) fail(fmt::format("records: expected objects of cell {}", n));
  out.done[n] = std::move(r);
}

}  // namespace

journaled read_journal(const std::string& journal, const json& header, const journal_shape& shape, bool resume) {
  journaled out;
  std::error_code ec;
  if (!std::filesystem::exists(journal, ec) || std::filesystem::file_size(journal, ec) == 0) return out;
  if (!resume) throw input_error(journal, "file", "a journal of an interrupted run exists; pass --resume to continue it, or delete it");
  std::ifstream in(journal);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  bool first = true;
  for (size_t lineno = 1; lineno <= lines.size(); ++lineno) {
    const std::string where = "line " + std::to_string(lineno);
    json j;
    try {
      j = json::parse(lines[lineno - 1]);
    } catch (const json::exception&) {  // parse_error, or out_of_range 406 (a number beyond a double)
      if (lineno == lines.size()) break;  // a line cut short by the kill: that work reruns
      throw input_error(journal, where, "expected one JSON record per line");
    }
    if (first) {
      if (j != header)
        throw input_error(journal, "line 1",
                          "the journal was written for another suite version, scale, seed, --axis or --shard; expected " +
                              header.dump() + "; got " + j.dump());
      first = false;
      continue;
    }
    auto fail = [&](const std::string& what) -> void { throw input_error(journal, where, what + "; delete the journal to start again"); };
    try {
      read_line(j, shape, out, fail);
    } catch (const json::exception& e) {
      fail(std::string("expected a cell or chunk record of this run: ") + e.what());
    } catch (const value_error& e) {
      fail(std::string("expected a cell or chunk record of this run: ") + e.what());
    }
  }
  if (first) out = {};
  for (const auto& [n, r] : out.done) out.chunks.erase(n);
  for (const auto& [n, chunks] : out.chunks) {  // chunks of one cell never overlap
    int64_t end = 0;
    for (const auto& [f, eps] : chunks) {
      if (f < end) throw input_error(journal, fmt::format("chunk {}", n), "expected chunks that do not overlap; delete the journal");
      end = f + int64_t(eps.size());
    }
  }
  return out;
}

journal_writer::journal_writer(const std::string& path) : path_(path) {
  f_ = std::fopen(path.c_str(), "a+");
  if (!f_) throw input_error(path, "file", "cannot open the journal for writing");
  if (::flock(::fileno(f_), LOCK_EX | LOCK_NB) != 0) {
    std::fclose(f_);
    f_ = nullptr;
    throw input_error(path, "file", "another sdcbench run is writing this result (its journal is locked); wait for it or choose another --out");
  }
}

journal_writer::~journal_writer() { close(); }

void journal_writer::restart(const json& header) {
  if (::ftruncate(::fileno(f_), 0) != 0) throw input_error(path_, "file", "cannot empty the journal");
  append(header);
}

void journal_writer::append(const json& j, bool sync) {
  const std::string line = j.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), f_);
  std::fflush(f_);
  if (sync) ::fsync(::fileno(f_));
}

void journal_writer::close() {
  if (f_) std::fclose(f_);  // closing the descriptor releases the lock
  f_ = nullptr;
}

}  // namespace sdc
