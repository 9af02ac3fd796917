#include "foundation/io/data_files.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "harness/campaign/engine.hpp"

#include "harness/campaign/cell_runner.hpp"
#include "harness/campaign/clean_sets.hpp"
#include "harness/campaign/distributed.hpp"
#include "harness/campaign/episode_codec.hpp"
#include "harness/campaign/journal.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <utility>
#include <mutex>

#include "foundation/errors.hpp"
#include "harness/results/result_set.hpp"
#include "foundation/scoring/proportions.hpp"

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
          {"file", portable_path(s.file)},
          {"sha256", s.sha256},
          {"scale", s.scale},
          {"workload", s.wl->name()},
          {"description", s.description},
          {"seed", s.seed},
          {"trials", {{"faulty", s.faulty_trials}, {"clean", s.clean_trials}}},
          {"axes", axes},
          {"fault_axes", s.wl->clean_set_fault_axes()},
          {"axis_overrides", s.axis_overrides},
          {"detectors", list(s.detectors)},
          {"recorders", list(s.recorders)},
          {"truth_metrics", s.wl->truth_metrics()},
          {"reproduces", s.reproduces},
          {"compare", s.compare}};
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

json journal_header(const suite& s, const run_options& o, size_t cells) {
  return {{"journal", "sdcbench.journal/3"},
          {"suite_sha256", s.sha256},
          {"scale", s.scale},
          {"seed", s.seed},
          {"axis_overrides", s.axis_overrides},
          {"shard", {o.shard_index, o.shard_count}},
          {"cells_total", cells}};
}

// The suite, loaded and checked: every detector of every runnable cell of the
// shard built once before anything is written (a bad parameter or a missing
// calibration entry is an error now, not a half-finished run).
struct campaign_setup {
  suite s;
  json prov;
  expansion ex;
  json header;
};

campaign_setup set_up(const run_options& o, const std::string& started) {
  campaign_setup c{load_suite(o.suite_path, o.scale, o.axis_overrides), nullptr, {}, nullptr};
  c.prov = provenance(o.argv, o.threads, c.s.seed, started, int8_gemm_kernel_name());  // the git state that runs the cells
  if (json n = c.s.wl->numerics(); !n.is_null()) c.prov["numerics"] = std::move(n);
  c.ex = expand(c.s);
  if (json in = c.s.wl->inputs(c.ex.cells); !in.is_null()) c.prov["inputs"] = std::move(in);
  if (o.shard_count < 1 || o.shard_index < 0 || o.shard_index >= o.shard_count)
    throw input_error("--shard", fmt::format("{}/{}", o.shard_index, o.shard_count), "expected I/N with 0 <= I < N");
  c.header = journal_header(c.s, o, c.ex.cells.size());
  for (size_t n = 0; n < c.ex.cells.size(); ++n) {
    if (c.ex.skipped[n] || int(n % size_t(o.shard_count)) != o.shard_index) continue;
    const detector_context ctx = c.s.wl->context(c.ex.cells[n]);
    for (const char* field : {"detectors", "recorders"}) {
      const auto& list = std::string(field) == "detectors" ? c.s.detectors : c.s.recorders;
      for (size_t k = 0; k < list.size(); ++k) try {
          build_episode_detector(list[k], ctx);
        } catch (const value_error& e) {
          throw input_error(o.suite_path, "/" + std::string(field) + "/" + std::to_string(k) + "/params", e.what());
        }
    }
  }
  return c;
}

}  // namespace

json run_campaign(const run_options& o) {
  const job_info job = join_job();
  const bool lead = job.rank == 0;
  const auto started = now_iso8601();
  const auto t0 = clock_type::now();
  std::optional<campaign_setup> setup;
  std::string error;
  try {
    setup.emplace(set_up(o, started));
  } catch (const std::runtime_error& e) {  // input_error, value_error
    if (!job.in_job) throw;
    error = e.what();
  }
  if (job.in_job) agree_on_setup(job, error);
  const suite& s = setup->s;
  const expansion& ex = setup->ex;

  const std::string journal = o.out + ".journal";
  std::map<size_t, cell_records> done;
  std::map<size_t, chunk_map> chunks;
  std::optional<journal_writer> jw;
  bool resumed = false;
  if (lead) {  // only rank 0 of a job touches files
    const bool existed = std::filesystem::exists(journal);
    jw.emplace(journal);  // locked before it is read: two runs never share one --out
    const journal_shape shape{ex.cells.size(), s.faulty_trials + s.clean_trials, s.detectors.size(), s.recorders.size()};
    journaled j = existed ? read_journal(journal, setup->header, shape, o.resume) : journaled{};
    done = std::move(j.done), chunks = std::move(j.chunks);
    resumed = !done.empty() || !chunks.empty();
    if (done.empty() && chunks.empty()) jw->restart(setup->header);
  }
  std::vector<size_t> mine, todo;
  for (size_t n = 0; n < ex.cells.size(); ++n)
    if (int(n % size_t(o.shard_count)) == o.shard_index) mine.push_back(n);
  const int64_t per_cell = s.faulty_trials + s.clean_trials;
  int64_t trials_total = 0, trials_done = 0;
  for (size_t n : mine) {
    if (!ex.skipped[n]) trials_total += per_cell;
    if (!done.count(n)) todo.push_back(n);
    else if (!ex.skipped[n]) trials_done += per_cell;
  }
  progress_line progress(o.progress && lead);
  int cells_journaled = 0;
  size_t finished = mine.size() - todo.size();
  double last_rate = std::nan("");
  auto cell_done = [&](size_t n, cell_records r) {
    if (!ex.skipped[n]) trials_done += per_cell;
    if (!ex.skipped[n] && !r.records.empty()) {  // const access: never adds keys to a record
      const json& f = std::as_const(r.records.back()).at("faulty");
      if (f.is_object() && f.contains("rate") && f.at("rate").is_number()) last_rate = f.at("rate").get<double>();
    }
    jw->append({{"cell", n}, {"records", r.records}, {"recordings", r.recordings}, {"timing", r.timing}});
    done[n] = std::move(r);
    progress.update(++finished, mine.size(), trials_done, trials_total, s.detectors.back().label, last_rate);
    if (o.stop_after_cells >= 0 && ++cells_journaled >= o.stop_after_cells) {
      jw->close();
      std::_Exit(3);  // simulated crash (tests only)
    }
  };
  // An MPI job journals every chunk as it arrives: a killed job loses no finished trial.
  auto chunk_done = [&](size_t n, int64_t first, const std::vector<episode_result>& eps) {
    jw->append({{"chunk", n}, {"first", first}, {"episodes", json::binary(encode_episodes(eps))}}, false);
  };
  double comm = 0;
  const clean_set_plan sets = plan_clean_sets(ex, todo);
  if (job.in_job) {
    comm = run_cells_in_job(s, ex, todo, o.threads, chunks, sets, chunk_done, cell_done);
  } else {
    std::map<size_t, std::vector<episode_result>> kept;  // a clean set's episodes, by the cell that ran them, until its last sharer
    for (size_t n : todo) {
      if (ex.skipped[n]) {
        cell_done(n, skipped_cell(s, ex.cells[n], *ex.skipped[n]));
        continue;
      }
      clean_share share;
      const size_t owner = sets.owner.count(n) ? sets.owner.at(n) : n;
      if (owner != n) share.given = &kept.at(owner);
      else if (!sets.sharers(n).empty()) share.keep = &kept[n];
      cell_done(n, complete_cell(s, ex.cells[n], o.threads, chunks[n], [&](int64_t first, const auto& eps) {
                  if (jw) chunk_done(n, first, eps);  // a detector's error: keep what finished
                }, share));
      if (owner != n && sets.sharers(owner).back() == n) kept.erase(owner);
    }
  }
  json prov = setup->prov;
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  if (job.in_job) {
    const json jp = job_provenance(job, comm, wall);
    if (!lead) return nullptr;  // rank 0 writes the result set
    prov["job"] = jp;
  }
  // The campaign's throughput, the headline a user compares with other
  // injectors: the episodes this run computed over its wall time and cores.
  // Not measured for a resumed run (part of its episodes ran before).
  int64_t ran = 0;  // a clean set's episodes once, in the cell that ran them
  for (size_t n : todo) ran += ex.skipped[n] ? 0 : s.faulty_trials + (sets.runs_clean(n) ? s.clean_trials : 0);
  prov["throughput"] = resumed ? json(nullptr)
                               : json{{"episodes", ran},
                                      {"wall_seconds", wall},
                                      {"cores", int64_t(o.threads) * (job.in_job ? int64_t(job.size) : 1)}};
  progress.finish();

  json cells = json::array(), recordings = json::array(), timing = json::array();
  for (size_t n : mine) {
    for (auto& r : done[n].records) cells.push_back(std::move(r));
    for (auto& r : done[n].recordings) recordings.push_back(std::move(r));
    for (auto& t : done[n].timing) timing.push_back(std::move(t));
  }
  json result = make_result_set(describe_run(s), o.shard_index, o.shard_count, cells, recordings, timing, prov);
  if (resumed)  // journaled cells came from a file: the result must still add up before it is written
    if (auto p = validate_result_set(result); !p.empty())
      throw input_error(journal, p.front(), "the resumed cells do not make a valid result set; delete the journal and run again");
  write_json_atomic(o.out, result);
  std::filesystem::remove(journal);
  jw->close();
  return result;
}

}  // namespace sdc
