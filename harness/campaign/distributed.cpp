#include "harness/campaign/distributed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "harness/campaign/cell_runner.hpp"
#include "harness/campaign/episode_codec.hpp"
#include "foundation/errors.hpp"
#include "foundation/parallel/mpi_world.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

enum tag : int { k_ready = 1, k_work = 2, k_result = 3, k_done = 4, k_error = 5 };

struct unit {
  size_t cell = 0;
  int64_t first = 0, count = 0;
};

std::vector<uint8_t> pack(const json& j) { return json::to_msgpack(j); }
json unpack(const std::vector<uint8_t>& b) { return json::from_msgpack(b); }

std::vector<uint8_t> result_bytes(const unit& u, const std::vector<episode_result>& r) {
  return pack({{"cell", u.cell}, {"first", u.first}, {"episodes", json::binary(encode_episodes(r))}});
}

[[noreturn]] void fail_job(int rank, const std::string& what) {
  std::cerr << fmt::format("sdcbench: error (rank {}): {}\n", rank, what);
  mpi::abort_job(2);
}

// Rank 0: hands out units, runs units itself on a second thread, adds cells up.
class coordinator {
 public:
  coordinator(const suite& s, const expansion& ex, const std::vector<size_t>& todo, int threads,
              const std::map<size_t, chunk_map>& have, const clean_set_plan& sets,
              const std::function<void(size_t, int64_t, const std::vector<episode_result>&)>& chunk,
              const std::function<void(size_t, cell_records)>& done)
      : s_(s), ex_(ex), threads_(threads), sets_(sets), chunk_(chunk), done_(done) {
    const int64_t total = s.faulty_trials + s.clean_trials;
    // Chunks of a cell's trials: small enough that N processes share a cell,
    // large enough that a message carries real work.
    const int64_t size = std::max<int64_t>(1, (total + 4 * mpi::size() - 1) / (4 * mpi::size()));
    std::vector<size_t> runnable;
    for (size_t n : todo) {
      if (ex.skipped[n]) {
        done_(n, skipped_cell(s, ex.cells[n], *ex.skipped[n]));
        continue;
      }
      static const chunk_map none;
      const auto h = have.find(n);
      const chunk_map& got = h == have.end() ? none : h->second;
      auto& p = pending_[n] = {std::vector<episode_result>(size_t(total)), std::vector<char>(size_t(total), 0), total};
      for (const auto& [first, eps] : got)
        for (size_t i = 0; i < eps.size(); ++i) put(p, size_t(first) + i, eps[i], false);
      // A sharer runs its faulty trials; its clean ones come from the cell that runs its set.
      const int64_t own = sets.runs_clean(n) ? total : s.faulty_trials;
      for (const auto& [first, count] : missing_ranges(own, got))
        for (int64_t f = first; f < first + std::min(count, own - first); f += size)
          queue_.push_back({n, f, std::min(size, first + std::min(count, own - first) - f)});
      runnable.push_back(n);
    }
    unfinished_ = runnable.size();
    for (size_t n : runnable) {  // clean episodes journaled before the kill, to the set's sharers
      const auto& p = pending_.at(n);
      for (size_t t = size_t(s.faulty_trials); t < size_t(total); ++t)
        if (p.present[t]) give_clean(n, t);
    }
    for (size_t n : runnable) finish_if_complete(n);
  }

  double run() {
    std::thread local([this] { local_worker(); });
    int workers = mpi::size() - 1;
    double comm = 0;
    while (workers > 0 || unfinished_ > 0) {
      collect_local();
      mpi::message m;
      const auto t0 = clock_type::now();
      const bool got = mpi::poll(&m);
      if (!got) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      if (m.tag == k_error) fail_job(m.source, std::string(m.bytes.begin(), m.bytes.end()));
      // Messaging (receive, decode, reply) is timed; adding a cell up and journaling it is not.
      std::optional<std::pair<unit, std::vector<episode_result>>> arrived;
      if (m.tag == k_result) {
        const json r = unpack(m.bytes);
        arrived.emplace(unit{r["cell"].get<size_t>(), r["first"].get<int64_t>(), 0}, decode_episodes(r["episodes"].get_binary()));
      }
      const std::optional<unit> next = take();
      if (next) mpi::send(m.source, k_work, pack({{"cell", next->cell}, {"first", next->first}, {"count", next->count}}));
      else mpi::send(m.source, k_done, {}), --workers;
      comm += std::chrono::duration<double>(clock_type::now() - t0).count();
      if (arrived) store(arrived->first, std::move(arrived->second));
    }
    local.join();
    if (local_error_) fail_job(0, *local_error_);
    return comm;
  }

 private:
  std::optional<unit> take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return std::nullopt;
    unit u = queue_.front();
    queue_.pop_front();
    return u;
  }

  void local_worker() {
    while (auto u = take()) {
      try {
        auto r = run_trials(s_, ex_.cells[u->cell], u->first, u->count, threads_);
        std::lock_guard<std::mutex> lock(mu_);
        finished_.emplace_back(*u, std::move(r));
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu_);
        local_error_ = e.what(), queue_.clear();
        return;
      }
    }
  }

  void collect_local() {
    std::vector<std::pair<unit, std::vector<episode_result>>> got;
    {
      std::lock_guard<std::mutex> lock(mu_);
      got.swap(finished_);
      if (local_error_) fail_job(0, *local_error_);
    }
    for (auto& [u, r] : got) store(u, std::move(r));
  }

  // Puts a unit's episodes in place (and its clean ones in the set's sharers);
  // a cell whose every episode is in is added up.
  void store(const unit& u, std::vector<episode_result> r) {
    chunk_(u.cell, u.first, r);
    auto& p = pending_.at(u.cell);
    for (size_t i = 0; i < r.size(); ++i) put(p, size_t(u.first) + i, std::move(r[i]), false);
    for (size_t i = 0; i < r.size(); ++i)
      if (u.first + int64_t(i) >= s_.faulty_trials) give_clean(u.cell, size_t(u.first) + i);
    for (size_t n : sets_.sharers(u.cell))
      if (pending_.count(n)) finish_if_complete(n);
    finish_if_complete(u.cell);
  }

  struct cell_state {
    std::vector<episode_result> results;
    std::vector<char> present;
    int64_t missing = 0;
    bool added = false;
  };
  static void put(cell_state& p, size_t t, episode_result e, bool shared) {
    if (p.present[t]) return;
    p.results[t] = std::move(e);
    p.results[t].shared = shared;
    p.present[t] = 1, --p.missing;
  }
  // Clean trial t of `cell`'s run, to the cells that share its clean set.
  void give_clean(size_t cell, size_t t) {
    for (size_t n : sets_.sharers(cell))
      if (auto it = pending_.find(n); it != pending_.end()) put(it->second, t, pending_.at(cell).results[t], true);
  }
  void finish_if_complete(size_t n) {
    auto& p = pending_.at(n);
    if (p.added || p.missing > 0) return;
    done_(n, summarize_cell(s_, ex_.cells[n], p.results));
    p.added = true, --unfinished_;
    // Its sharers copied each clean episode as it arrived (give_clean): free it now.
    std::vector<episode_result>().swap(p.results);
  }

  const suite& s_;
  const expansion& ex_;
  int threads_;
  const clean_set_plan& sets_;
  std::function<void(size_t, int64_t, const std::vector<episode_result>&)> chunk_;
  std::function<void(size_t, cell_records)> done_;
  std::map<size_t, cell_state> pending_;
  size_t unfinished_ = 0;
  std::mutex mu_;
  std::deque<unit> queue_;
  std::vector<std::pair<unit, std::vector<episode_result>>> finished_;
  std::optional<std::string> local_error_;
};

// Ranks 1..N-1: ask for work, run it, send the episodes back, until done.
void worker(const suite& s, const expansion& ex, int threads) {
  mpi::send(0, k_ready, {});
  for (;;) {
    const mpi::message m = mpi::receive(0);
    if (m.tag == k_done) return;
    const json w = unpack(m.bytes);
    const unit u{w["cell"].get<size_t>(), w["first"].get<int64_t>(), w["count"].get<int64_t>()};
    std::vector<uint8_t> out;
    try {
      out = result_bytes(u, run_trials(s, ex.cells.at(u.cell), u.first, u.count, threads));
    } catch (const std::exception& e) {
      const std::string what = e.what();
      mpi::send(0, k_error, std::vector<uint8_t>(what.begin(), what.end()));
      mpi::receive(0);  // rank 0 ends the job
      return;
    }
    mpi::send(0, k_result, out);
  }
}

}  // namespace

job_info join_job() {
  job_info j;
  if (!mpi::launched_in_job()) return j;
  mpi::ensure_mpi();
  j.in_job = true, j.rank = mpi::rank(), j.size = mpi::size();
  return j;
}

void agree_on_setup(const job_info& job, const std::string& error) {
  const auto all = mpi::gather_strings(error);
  if (!mpi::all_max(error.empty() ? 0 : 1)) return;
  if (job.rank != 0) throw quiet_exit{2};
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) throw value_error(r == 0 ? all[r] : fmt::format("(rank {}) {}", r, all[r]));
}

json job_provenance(const job_info& job, double comm_seconds, double wall_seconds) {
  const auto hosts = mpi::gather_strings(mpi::processor_name());
  if (job.rank != 0) return nullptr;
  json distinct = json::array();
  for (const auto& h : hosts)
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  return {{"processes", job.size}, {"hosts", distinct}, {"communication_seconds", comm_seconds},
          {"communication_share", wall_seconds > 0 ? comm_seconds / wall_seconds : 0.0}};
}

double run_cells_in_job(const suite& s, const expansion& ex, const std::vector<size_t>& todo, int threads,
                        const std::map<size_t, chunk_map>& have, const clean_set_plan& sets,
                        const std::function<void(size_t, int64_t, const std::vector<episode_result>&)>& chunk,
                        const std::function<void(size_t, cell_records)>& done) {
  if (mpi::rank() != 0) {
    worker(s, ex, threads);
    return 0;
  }
  return coordinator(s, ex, todo, threads, have, sets, chunk, done).run();
}

}  // namespace sdc
