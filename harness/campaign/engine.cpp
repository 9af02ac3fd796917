#include "harness/campaign/engine.hpp"

#include "harness/campaign/cell_summary.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "harness/errors.hpp"
#include "harness/results/result_set.hpp"
#include "harness/scoring/proportions.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

// The suite as the result set describes it (a plain JSON block, so the
// result-set writer does not depend on the engine's types).
json describe_run(const suite& s) {
  json axes = json::object();
  for (const auto& [name, vals] : s.axes) axes[name] = vals;
  auto list = [](const std::vector<detector_choice>& ds) {
    json out = json::array();
    for (const auto& d : ds) {
      json e = {{"label", d.label}, {"name", d.info->name}, {"params", d.params}};
      if (!d.wrap.empty()) e["wrap"] = d.wrap;
      if (!d.info->closed_forms.empty()) e["closed_forms"] = d.info->closed_forms;
      out.push_back(e);
    }
    return out;
  };
  return {{"name", s.name},
          {"file", s.file},
          {"sha256", s.sha256},
          {"scale", s.scale},
          {"workload", s.wl->name()},
          {"description", s.description},
          {"seed", s.seed},
          {"trials", {{"faulty", s.faulty_trials}, {"clean", s.clean_trials}}},
          {"axes", axes},
          {"axis_overrides", s.axis_overrides},
          {"detectors", list(s.detectors)},
          {"recorders", list(s.recorders)},
          {"truth_metrics", s.wl->truth_metrics()},
          {"reproduces", s.reproduces}};
}

class progress_line {
 public:
  explicit progress_line(bool on) : on_(on), t0_(clock_type::now()) {}
  void update(size_t cell_done, size_t cells, int64_t trials_done, int64_t trials_total, const std::string& label,
              double last_rate) {
    if (!on_) return;
    const double el = std::chrono::duration<double>(clock_type::now() - t0_).count();
    const double eta = trials_done > 0 ? el * double(trials_total - trials_done) / double(trials_done) : 0;
    const std::string rate = std::isnan(last_rate) ? "-" : fmt::format("{:.1f}%", 100 * last_rate);
    std::fprintf(stderr, "\r[%zu/%zu cells] %lld/%lld trials | last cell: %s detected %s | elapsed %.0fs | ETA %.0fs   ",
                 cell_done, cells, (long long)trials_done, (long long)trials_total, label.c_str(), rate.c_str(), el, eta);
    std::fflush(stderr);
  }
  void finish() {
    if (on_) std::fprintf(stderr, "\n");
  }

 private:
  bool on_;
  clock_type::time_point t0_;
};

// Runs all episodes of one cell on `threads` threads (each its own driver,
// detectors and runner) and adds them up.
cell_records run_cell(const suite& s, const cell& c, int threads, double* last_rate) {
  const int64_t nf = s.faulty_trials, nc = s.clean_trials, total = nf + nc;
  std::vector<episode_result> results(static_cast<size_t>(total));
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto worker = [&] {
    try {
      trial_driver driver(*s.wl, c, s.detectors, s.recorders, s.seed);
      for (int64_t t; (t = next.fetch_add(1)) < total;) {
        const bool faulty = t < nf;
        results[size_t(t)] = driver.run(faulty ? trial_kind::faulty : trial_kind::clean, uint64_t(faulty ? t : t - nf));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      next = total;
    }
  };
  const int nthreads = int(std::max<int64_t>(1, std::min<int64_t>(threads, total)));
  std::vector<std::thread> pool;
  for (int i = 1; i < nthreads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  cell_records out = summarize_cell(s, c, results);
  if (last_rate && !out.records.empty()) {
    const auto& f = out.records.back()["faulty"];
    *last_rate = f["rate"].is_null() ? std::nan("") : f["rate"].get<double>();
  }
  return out;
}

json journal_header(const suite& s, const run_options& o, size_t cells) {
  return {{"journal", "sdcbench.journal/2"},
          {"suite_sha256", s.sha256},
          {"scale", s.scale},
          {"seed", s.seed},
          {"axis_overrides", s.axis_overrides},
          {"shard", {o.shard_index, o.shard_count}},
          {"cells_total", cells}};
}

void append_line(std::FILE* f, const json& j) {
  const std::string line = j.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), f);
  std::fflush(f);
  ::fsync(::fileno(f));
}

}  // namespace

json run_campaign(const run_options& o) {
  const auto started = now_iso8601();
  suite s = load_suite(o.suite_path, o.scale, o.axis_overrides);
  const json prov = provenance(o.argv, o.threads, s.seed, started);  // the git state that runs the cells
  const expansion ex = expand(s);
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count)
    throw input_error("--shard", fmt::format("{}/{}", o.shard_index, o.shard_count), "expected I/N with 0 <= I < N");
  const std::string journal = o.out + ".journal";
  const json header = journal_header(s, o, ex.cells.size());
  // Build every detector of every runnable cell of this shard before anything
  // is written: a bad parameter or a missing calibration entry is an error now,
  // not a half-finished run.
  for (size_t n = 0; n < ex.cells.size(); ++n) {
    if (ex.skipped[n] || int(n % size_t(o.shard_count)) != o.shard_index) continue;
    const detector_context ctx = s.wl->context(ex.cells[n]);
    for (const char* field : {"detectors", "recorders"}) {
      const auto& list = std::string(field) == "detectors" ? s.detectors : s.recorders;
      for (size_t k = 0; k < list.size(); ++k) try {
          build_episode_detector(list[k], ctx);
        } catch (const value_error& e) {
          throw input_error(o.suite_path, "/" + std::string(field) + "/" + std::to_string(k) + "/params", e.what());
        }
    }
  }

  // Completed cells from an earlier, interrupted run.
  std::map<size_t, cell_records> done;
  if (std::filesystem::exists(journal)) {
    if (!o.resume)
      throw input_error(journal, "file", "a journal of an interrupted run exists; pass --resume to continue it, or delete it");
    std::ifstream in(journal);
    std::string line;
    bool first = true;
    size_t lineno = 0;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    for (const auto& l : lines) {
      ++lineno;
      json j;
      try {
        j = json::parse(l);
      } catch (const json::parse_error&) {
        if (lineno == lines.size()) break;  // a line cut short by the kill: that cell reruns
        throw input_error(journal, "line " + std::to_string(lineno), "expected one JSON record per line");
      }
      if (first) {
        if (j != header)
          throw input_error(journal, "line 1",
                            "the journal was written for another suite version, scale, seed, --axis or --shard; expected " +
                                header.dump() + "; got " + j.dump());
        first = false;
        continue;
      }
      cell_records r;
      for (auto& x : j.at("records")) r.records.push_back(x);
      for (auto& x : j.at("recordings")) r.recordings.push_back(x);
      for (auto& x : j.at("timing")) r.timing.push_back(x);
      done[j.at("cell").get<size_t>()] = std::move(r);
    }
    if (first) done.clear();
  }
  std::FILE* jf = std::fopen(journal.c_str(), done.empty() ? "w" : "a");
  if (!jf) throw input_error(journal, "file", "cannot open the journal for writing");
  if (done.empty()) append_line(jf, header);

  std::vector<size_t> mine;
  for (size_t n = 0; n < ex.cells.size(); ++n)
    if (int(n % size_t(o.shard_count)) == o.shard_index) mine.push_back(n);
  const int64_t per_cell = s.faulty_trials + s.clean_trials;
  int64_t trials_total = 0, trials_done = 0;
  for (size_t n : mine)
    if (!ex.skipped[n]) trials_total += per_cell;
  progress_line progress(o.progress);
  int journaled = 0;
  size_t finished = 0;
  double last_rate = std::nan("");
  for (size_t n : mine) {
    ++finished;
    if (done.count(n)) {
      if (!ex.skipped[n]) trials_done += per_cell;
      continue;
    }
    cell_records r = ex.skipped[n] ? skipped_cell(s, ex.cells[n], *ex.skipped[n])
                                   : run_cell(s, ex.cells[n], o.threads, &last_rate);
    if (!ex.skipped[n]) trials_done += per_cell;
    append_line(jf, {{"cell", n}, {"records", r.records}, {"recordings", r.recordings}, {"timing", r.timing}});
    done[n] = std::move(r);
    progress.update(finished, mine.size(), trials_done, trials_total, s.detectors.back().label, last_rate);
    if (o.stop_after_cells >= 0 && ++journaled >= o.stop_after_cells) {
      std::fclose(jf);
      std::_Exit(3);  // simulated crash (tests only)
    }
  }
  progress.finish();
  std::fclose(jf);

  json cells = json::array(), recordings = json::array(), timing = json::array();
  for (size_t n : mine) {
    for (auto& r : done[n].records) cells.push_back(std::move(r));
    for (auto& r : done[n].recordings) recordings.push_back(std::move(r));
    for (auto& t : done[n].timing) timing.push_back(std::move(t));
  }
  json result = make_result_set(describe_run(s), o.shard_index, o.shard_count, cells, recordings, timing, prov);
  write_json_atomic(o.out, result);
  std::filesystem::remove(journal);
  return result;
}

}  // namespace sdc
