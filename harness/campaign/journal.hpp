// The journal of a run (OUT.journal): a header line naming what the run is
// (suite hash, scale, seed, axis overrides, shard, cells), then one line per
// finished cell and, in an MPI job, one per finished chunk of a cell's
// trials. `--resume` reads it back; a journal of another run, or one whose
// lines do not fit this run's cells, trials and detectors, is refused (exit
// 2) rather than merged. The journal also carries the run's lock: two runs
// writing the same --out at once is refused.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "harness/campaign/cell_runner.hpp"

namespace sdc {

// What a line must fit: the run's own cells, trials per cell, detectors and recorders.
struct journal_shape {
  size_t cells = 0;
  int64_t trials = 0;
  size_t detectors = 0, recorders = 0;
};

// What an earlier, interrupted run finished (whatever its process count):
// whole cells, and the chunks of cells an MPI job had not finished.
struct journaled {
  std::map<size_t, cell_records> done;
  std::map<size_t, chunk_map> chunks;
};

// Reads `path` (nothing when it does not exist). Without `resume` an
// existing journal is an error. A last line cut short by a kill is dropped
// (that work reruns); any other bad line is an input_error naming its line.
journaled read_journal(const std::string& path, const nlohmann::json& header, const journal_shape& shape, bool resume);

// The open journal of the running process, locked (flock) for as long as the
// run lives: a second run writing the same --out is refused, and the lock
// goes with the process, however it ends.
class journal_writer {
 public:
  // Opens `path` (creating it) and locks it; input_error when another run holds it.
  explicit journal_writer(const std::string& path);
  ~journal_writer();
  journal_writer(const journal_writer&) = delete;
  journal_writer& operator=(const journal_writer&) = delete;
  void restart(const nlohmann::json& header);  // empties the file and writes the header line
  // Written and flushed: a killed process loses nothing written; `sync` also
  // survives a machine crash (finished cells; chunks are only flushed).
  void append(const nlohmann::json& line, bool sync = true);
  void close();  // flushes and unlocks (the destructor does it too)

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace sdc
