#include "harness/campaign/engine.hpp"

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

// What one cell contributes: one record per detector (suite order) for
// "cells", and the measured times for "timing".
struct cell_records {
  std::vector<json> records;
  std::vector<json> timing;
};

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json rate_block(int64_t hits, int64_t n, const char* hits_name) {
  const interval ci = wilson_interval(hits, n);
  json b;
  b["trials"] = n;
  b[hits_name] = hits;
  b["rate"] = n > 0 ? json(double(hits) / double(n)) : json(nullptr);
  b["ci95"] = {ci.lo, ci.hi};
  return b;
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

// Runs all trials of one cell on `threads` threads and aggregates them.
cell_records run_cell(const suite& s, const cell& c, int threads, double* last_rate) {
  const int64_t nf = s.faulty_trials, nc = s.clean_trials, total = nf + nc;
  std::vector<trial_result> results(static_cast<size_t>(total));
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto worker = [&] {
    try {
      auto runner = s.wl->make_runner(c, s.detectors, s.seed);
      for (int64_t t; (t = next.fetch_add(1)) < total;) {
        const bool faulty = t < nf;
        results[size_t(t)] = runner->run_trial(faulty ? trial_kind::faulty : trial_kind::clean, uint64_t(faulty ? t : t - nf));
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

  cell_records out;
  // Overhead = detector time per trial / kernel time per kernel run: with
  // several faults per matrix pair the kernel runs once per pair, and the
  // detectors' encoding (of reused weights) is amortized the same way.
  double kernel_s = 0;
  int64_t kernel_runs = 0, checked_trials = 0;
  for (const auto& r : results) {
    kernel_s += r.kernel_seconds;
    kernel_runs += r.kernel_ran;
    checked_trials += !r.skipped;
  }
  std::vector<int64_t> skipped_trials;
  std::vector<double> err_ulps, err_rel, err_noise;  // how much each applied fault mattered (ground truth)
  for (int64_t t = 0; t < nf; ++t) {
    const auto& r = results[size_t(t)];
    if (r.skipped) {
      skipped_trials.push_back(t);
      continue;
    }
    err_ulps.push_back(r.err_ulps);
    err_rel.push_back(r.err_rel);
    err_noise.push_back(r.err_over_noise);
  }
  for (size_t d = 0; d < s.detectors.size(); ++d) {
    const auto& det = s.detectors[d];
    outcome_bits fbits{static_cast<size_t>(nf)}, cbits{static_cast<size_t>(nc)};
    int64_t applied = 0, detected = 0, flagged = 0;
    int64_t band_n[k_significance_count] = {}, band_d[k_significance_count] = {};
    double det_s = 0, clean_score_max = -INFINITY;
    std::vector<double> faulty_scores;
    std::map<std::string, std::vector<double>> named[2];  // [0] clean, [1] faulty trials
    for (int64_t t = 0; t < total; ++t) {
      const auto& r = results[size_t(t)];
      if (!r.detector_seconds.empty()) det_s += r.detector_seconds[d];
      if (r.skipped) continue;
      const verdict& v = r.verdicts[d];
      for (const auto& [name, value] : v.metrics) named[t < nf][name].push_back(value);
      if (t < nf) {
        ++applied;
        detected += v.flagged;
        fbits.set(size_t(t), v.flagged);
        band_n[int(r.band)]++;
        band_d[int(r.band)] += v.flagged;
        faulty_scores.push_back(v.score);
      } else {
        flagged += v.flagged;
        cbits.set(size_t(t - nf), v.flagged);
        if (!std::isnan(v.score)) clean_score_max = std::max(clean_score_max, v.score);
      }
    }
    json rec;
    rec["cell"] = c.index;
    rec["key"] = c.key;
    rec["axes"] = c.axes_json();
    rec["detector"] = {{"label", det.label}, {"name", det.info->name}, {"params", det.params}};
    rec["skipped"] = nullptr;
    json f = rate_block(detected, applied, "detected");
    f["skipped"] = int64_t(skipped_trials.size());
    f["outcomes"] = fbits.hex();
    if (!skipped_trials.empty()) {
      f["skipped_trials"] = skipped_trials;
      f["skip_reason"] = results[size_t(skipped_trials.front())].skip_reason;
    }
    rec["faulty"] = f;
    json cl = rate_block(flagged, nc, "flagged");
    cl["outcomes"] = cbits.hex();
    rec["clean"] = cl;
    json sig = json::object();
    for (int b = 0; b < k_significance_count; ++b)
      sig[significance_name(significance(b))] = {{"trials", band_n[b]}, {"detected", band_d[b]}};
    rec["by_significance"] = sig;
    rec["metrics"] = {{"clean_score_max", nc > 0 ? finite_or_null(clean_score_max) : json(nullptr)},
                      {"faulty_score_median", finite_or_null(median(faulty_scores))},
                      {"fault_err_ulps_median", finite_or_null(median(err_ulps))},
                      {"fault_err_rel_median", finite_or_null(median(err_rel))},
                      {"fault_err_over_noise_median", finite_or_null(median(err_noise))}};
    for (int kind = 0; kind < 2; ++kind)
      for (const auto& [name, values] : named[kind]) {
        const std::string prefix = std::string(kind ? "faulty." : "clean.") + name;
        double sum = 0, mx = -INFINITY;
        for (double x : values) sum += x, mx = std::max(mx, x);
        rec["metrics"][prefix + ".median"] = finite_or_null(median(values));
        rec["metrics"][prefix + ".mean"] = finite_or_null(values.empty() ? NAN : sum / double(values.size()));
        rec["metrics"][prefix + ".max"] = finite_or_null(mx);
        rec["metrics"][prefix + ".count"] = double(values.size());
      }
    rec["reference"] = reference_for(s, c, det.label);
    out.records.push_back(rec);
    out.timing.push_back({{"cell", c.index},
                          {"detector", det.label},
                          {"kernel_seconds", kernel_s},
                          {"detector_seconds", det_s},
                          {"overhead", kernel_s > 0 && checked_trials > 0
                                           ? json((det_s / double(checked_trials)) / (kernel_s / double(std::max<int64_t>(1, kernel_runs))))
                                           : json(nullptr)}});
    if (d + 1 == s.detectors.size() && last_rate) *last_rate = applied > 0 ? double(detected) / double(applied) : std::nan("");
  }
  return out;
}

cell_records skipped_cell(const suite& s, const cell& c, const skip_info& why) {
  cell_records out;
  for (const auto& det : s.detectors) {
    json rec;
    rec["cell"] = c.index;
    rec["key"] = c.key;
    rec["axes"] = c.axes_json();
    rec["detector"] = {{"label", det.label}, {"name", det.info->name}, {"params", det.params}};
    rec["skipped"] = why.axis + ": " + why.reason;
    rec["reference"] = reference_for(s, c, det.label);
    out.records.push_back(rec);
  }
  return out;
}

json journal_header(const suite& s, const run_options& o, size_t cells) {
  return {{"journal", "sdcbench.journal/1"},
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
    for (size_t k = 0; k < s.detectors.size(); ++k) try {
        s.detectors[k].info->make(detector_params(s.detectors[k].params, ctx.out_fmt), ctx);
      } catch (const value_error& e) {
        throw input_error(o.suite_path, "/detectors/" + std::to_string(k) + "/params", e.what());
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
    append_line(jf, {{"cell", n}, {"records", r.records}, {"timing", r.timing}});
    done[n] = std::move(r);
    progress.update(finished, mine.size(), trials_done, trials_total, s.detectors.back().label, last_rate);
    if (o.stop_after_cells >= 0 && ++journaled >= o.stop_after_cells) {
      std::fclose(jf);
      std::_Exit(3);  // simulated crash (tests only)
    }
  }
  progress.finish();
  std::fclose(jf);

  json cells = json::array(), timing = json::array();
  for (size_t n : mine) {
    for (auto& r : done[n].records) cells.push_back(std::move(r));
    for (auto& t : done[n].timing) timing.push_back(std::move(t));
  }
  json result = make_result_set(s, o, cells, timing, prov);
  write_json_atomic(o.out, result);
  std::filesystem::remove(journal);
  return result;
}

}  // namespace sdc
