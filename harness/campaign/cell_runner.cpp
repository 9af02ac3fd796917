#include "harness/campaign/cell_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "foundation/errors.hpp"
#include "harness/campaign/clean_sets.hpp"

namespace sdc {

std::vector<episode_result> run_trials(const suite& s, const cell& c, int64_t first, int64_t count, int threads) {
  const int64_t nf = s.faulty_trials;
  std::vector<episode_result> results(static_cast<size_t>(count));
  std::vector<char> finished(static_cast<size_t>(count), 0);  // per trial; written by the thread that ran it
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto worker = [&] {
    int64_t t = -1;
    try {
      trial_driver driver(*s.wl, c, s.detectors, s.recorders, s.seed);
      for (int64_t i; (i = next.fetch_add(1)) < count;) {
        t = first + i;
        const bool faulty = t < nf;
        results[size_t(i)] = driver.run(faulty ? trial_kind::faulty : trial_kind::clean, uint64_t(faulty ? t : t - nf));
        finished[size_t(i)] = 1;
      }
    } catch (const input_error&) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      next = count;
    } catch (const std::runtime_error& e) {  // a detector's own error (a Python detector's exception): where it happened
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) {
        const std::string where = t < 0 ? "setting up the trials" : t < nf ? fmt::format("faulty trial {}", t) : fmt::format("clean trial {}", t - nf);
        error = std::make_exception_ptr(cell_error(fmt::format("cell {}, {}: {}", c.key, where, e.what()), first, {}));
      }
      next = count;
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
      next = count;
    }
  };
  const int nthreads = int(std::max<int64_t>(1, std::min<int64_t>(threads, count)));
  std::vector<std::thread> pool;
  for (int i = 1; i < nthreads; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (!error) return results;
  try {
    std::rethrow_exception(error);
  } catch (cell_error& e) {  // the trials finished from `first` on, up to the first that did not
    size_t k = 0;
    while (k < finished.size() && finished[k]) ++k;
    e.finished.assign(std::make_move_iterator(results.begin()), std::make_move_iterator(results.begin() + ptrdiff_t(k)));
    throw;
  }
}

std::vector<std::pair<int64_t, int64_t>> missing_ranges(int64_t total, const chunk_map& have) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t at = 0;
  for (const auto& [first, eps] : have) {
    if (first > at) out.emplace_back(at, first - at);
    at = std::max(at, first + int64_t(eps.size()));
  }
  if (at < total) out.emplace_back(at, total - at);
  return out;
}

cell_records complete_cell(const suite& s, const cell& c, int threads, const chunk_map& have, const chunk_sink& on_chunk,
                           const clean_share& share) {
  const int64_t total = s.faulty_trials + s.clean_trials;
  std::vector<episode_result> all(static_cast<size_t>(total));
  for (const auto& [first, eps] : have)
    for (size_t i = 0; i < eps.size(); ++i) all[size_t(first) + i] = eps[i];
  if (share.given) share_clean(*share.given, s.faulty_trials, all);
  for (auto [first, count] : missing_ranges(total, have)) {
    if (share.given) count = std::min(count, s.faulty_trials - first);  // the clean trials came with the set
    if (count <= 0) continue;
    std::vector<episode_result> r;
    try {
      r = run_trials(s, c, first, count, threads);
    } catch (const cell_error& e) {
      if (on_chunk && !e.finished.empty()) on_chunk(e.first, e.finished);
      throw;
    }
    for (size_t i = 0; i < r.size(); ++i) all[size_t(first) + i] = std::move(r[i]);
  }
  if (share.keep) share.keep->assign(all.begin() + s.faulty_trials, all.end());  // the clean episodes only
  return summarize_cell(s, c, all);
}

}  // namespace sdc
