// Overhead of the EmbeddingBag ABFT of 004_0d1fcb03aeacfeeb.txt (Algorithm 2)
// on Table I's configurations: 4,000,000 rows x d = 32, 64, 128, 256 (8-bit
// codes, fp32 alpha/beta), 10 bags x 100 indices, plain and weighted sum, at
// each software prefetch distance (off, 16, 64 rows), against the fastest
// plain kernel of each iteration; the last-level cache is flushed (a 64 MiB
// buffer rewritten, untimed) before every call, and each call draws fresh
// indices from a pool of 64 batches.
//   plain:  our EB kernel on the table without row sums (row = d codes + alpha + beta),
//           at each prefetch distance: the baseline is the fastest of them
//   abft:   the same kernel on the table with C_T[i] stored in each row (4 more
//           bytes per row), then the RSum/CSum check of every bag
//   read:   a plain read of the same rows' bytes (the memory floor)
// Printed: the overhead abft/plain - 1 beside the theory 1/d + 1/(3m) (m = 100
// indices per bag), and the ABFT kernel's bandwidth as a fraction of the plain
// read of the same rows. The variants are timed back to back in every
// iteration (flush before each) and ratios are medians of per-iteration ratios
// (bench/paired_timer.hpp); one thread.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <sys/mman.h>

#include <cstdio>

#include <cstring>
#include <functional>
#include <map>
#include <vector>

#include "detectors/quantized/quantized_detectors.hpp"
#include "bench/paired_timer.hpp"
#include "protocol/detector.hpp"
#include "foundation/random/streams.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"

namespace {

using namespace sdc;

constexpr int64_t k_rows = 4'000'000, k_bags = 10, k_pool = 100, k_batches = 64;
const int64_t k_dims[] = {32, 64, 128, 256};

// Random codes and scales straight into the fused layout (quantizing 4M x 256
// floats would take GiBs and minutes; the kernel's speed does not depend on
// where the codes came from).
quantized_table make_table(int64_t dim, bool with_row_sums, rng& g) {
  quantized_table t;
  t.rows = k_rows, t.dim = dim, t.bits = 8, t.with_row_sums = with_row_sums;
  // Transparent huge pages, asked for before the pages are touched (as an
  // embedding server would map its tables): one TLB entry per 2 MiB instead of
  // a page walk for nearly every random row.
  const size_t bytes = size_t(t.rows * t.stride());
  t.data.reserve(bytes);
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(t.data.data()) + (2u << 20) - 1) & ~uintptr_t((2u << 20) - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(t.data.data()) + bytes) & ~uintptr_t((2u << 20) - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  t.data.resize(bytes);
  uint64_t x = g();
  for (size_t i = 0; i + 8 <= t.data.size(); i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(&t.data[i], &x, 8);
  }
  boost::random::uniform_real_distribution<float> a(0.001f, 0.02f), b(-2.0f, 0.0f);
  for (int64_t i = 0; i < t.rows; ++i) {
    const float al = a(g), be = b(g);
    std::memcpy(t.row(i) + t.code_bytes(), &al, 4);
    std::memcpy(t.row(i) + t.code_bytes() + 4, &be, 4);
  }
  if (with_row_sums) store_row_sums(t);
  return t;
}

// Fraction of [p, p + bytes) backed by huge pages (from /proc/self/smaps).
double huge_fraction(const void* p, size_t bytes) {
  std::FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  uintptr_t lo = 0, hi = 0;
  bool inside = false;
  double huge_kb = 0;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p), b = a + bytes;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long x, y;
    if (std::sscanf(line, "%lx-%lx ", &x, &y) == 2 && std::strchr(line, '-') < std::strchr(line, ' ')) {
      lo = x, hi = y;
      inside = hi > a && lo < b;
      continue;
    }
    double kb;
    if (inside && std::sscanf(line, "AnonHugePages: %lf kB", &kb) == 1) huge_kb += kb;
  }
  std::fclose(f);
  return huge_kb * 1024.0 / double(bytes);
}

struct setup {
  int64_t dim;
  quantized_table plain, encoded;
  std::vector<bag_batch> batches, weighted;
  std::unique_ptr<embedding_bag_detector> det;
  std::vector<float> out;
};

std::vector<char>& flush_buffer() {
  static std::vector<char> b(64 << 20, 1);
  return b;
}
void flush_llc() {
  auto& b = flush_buffer();
  for (size_t i = 0; i < b.size(); i += 64) b[i] = char(b[i] + 1);
  benchmark::ClobberMemory();
}

setup& cached(int64_t dim) {
  static std::map<int64_t, std::unique_ptr<setup>> m;
  if (auto it = m.find(dim); it != m.end()) return *it->second;
  m.clear();  // one configuration's tables at a time (up to 2 x 1.07 GB)
  auto p = std::make_unique<setup>();
  rng g = make_stream(7, uint64_t(dim), 0, trial_kind::clean, stream_purpose::data);
  p->dim = dim;
  p->plain = make_table(dim, false, g);
  p->encoded = make_table(dim, true, g);
  boost::random::uniform_int_distribution<int64_t> row(0, k_rows - 1);
  boost::random::uniform_real_distribution<float> w(0.0f, 1.0f);
  for (int64_t k = 0; k < k_batches; ++k) {
    bag_batch b;
    for (int64_t bag = 0; bag < k_bags; ++bag) {
      b.offsets.push_back(bag * k_pool);
      for (int64_t i = 0; i < k_pool; ++i) b.indices.push_back(row(g));
    }
    p->batches.push_back(b);
    for (size_t i = 0; i < b.indices.size(); ++i) b.weights.push_back(w(g));
    p->weighted.push_back(b);
  }
  const auto* info = find_detector(view_kind::embedding_bag, "abft_embeddingbag");
  p->det.reset(dynamic_cast<embedding_bag_detector*>(
      info->make(detector_params(validate_params(*info, nlohmann::json::object()), &fp32()), {&u8(), &fp32(), {}}).release()));
  p->out.resize(size_t(k_bags * dim));
  std::fprintf(stderr, "d = %lld: huge-page coverage of the tables: plain %.2f, with row sums %.2f\n", (long long)dim,
               huge_fraction(p->plain.data.data(), p->plain.data.size()),
               huge_fraction(p->encoded.data.data(), p->encoded.data.size()));
  setup& ref = *p;
  m[dim] = std::move(p);
  return ref;
}

// Reads every byte of every looked-up row of the ABFT table (what the kernel must fetch).
uint64_t read_rows(const quantized_table& t, const bag_batch& b, int prefetch) {
  uint64_t acc = 0;
  const int64_t n = int64_t(b.indices.size()), stride = t.stride();
  for (int64_t p = 0; p < n; ++p) {
    if (prefetch && p + prefetch < n) {
      const char* r = reinterpret_cast<const char*>(t.row(b.indices[size_t(p + prefetch)]));
      for (int64_t off = 0; off < stride; off += 64) __builtin_prefetch(r + off, 0, 3);
      __builtin_prefetch(r + stride - 1, 0, 3);
    }
    const uint8_t* r = t.row(b.indices[size_t(p)]);
    int64_t j = 0;
    for (; j + 8 <= stride; j += 8) {
      uint64_t v;
      std::memcpy(&v, r + j, 8);
      acc += v;
    }
    for (; j < stride; ++j) acc += r[j];
  }
  return acc;
}

// Every iteration times the plain kernel and the ABFT kernel at each prefetch
// distance, the plain read and an A/A pair; an overhead is over the fastest
// plain kernel of its iteration, whichever distance that was.
const int k_prefetch[] = {0, 16, 64};
constexpr size_t k_np = std::size(k_prefetch);
constexpr size_t v_plain = 0, v_abft = k_np, v_read = 2 * k_np, v_plain_again = 2 * k_np + 1;

std::vector<size_t> plain_variants() {
  std::vector<size_t> out;
  for (size_t i = 0; i < k_np; ++i) out.push_back(v_plain + i);
  return out;
}

std::map<std::string, sdc::bench::paired_timer>& timers() {
  static std::map<std::string, sdc::bench::paired_timer> t;
  return t;
}
std::string key(int64_t dim, bool weighted) { return fmt::format("d{}/{}", dim, weighted ? "weighted" : "sum"); }

void register_all() {
  for (int64_t dim : k_dims)
    for (bool weighted : {false, true}) {
      benchmark::RegisterBenchmark(key(dim, weighted).c_str(), [=](benchmark::State& st) {
        auto& s = cached(dim);
        auto& timer = timers()[key(dim, weighted)];
        size_t k = 0;
        for (auto _ : st) {
          const bag_batch& b = (weighted ? s.weighted : s.batches)[k % k_batches];
          std::vector<std::function<void()>> variants;
          for (int pf : k_prefetch)
            variants.push_back([&, pf] {
              embedding_bag_fast(s.plain, b, s.out.data(), pf);
              benchmark::ClobberMemory();
            });
          for (int pf : k_prefetch)
            variants.push_back([&, pf] {
              embedding_bag_fast(s.encoded, b, s.out.data(), pf);
              benchmark::DoNotOptimize(s.det->verify({&s.encoded, &b, s.out.data()}));
            });
          variants.push_back([&] { benchmark::DoNotOptimize(read_rows(s.encoded, b, 16)); });
          variants.push_back([&] {  // plain (prefetch 16) again: the A/A pair of the noise band
            embedding_bag_fast(s.plain, b, s.out.data(), 16);
            benchmark::ClobberMemory();
          });
          timer.measure(variants, k++, flush_llc);
        }
      })->Unit(benchmark::kMillisecond)->Iterations(300);
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  fmt::print("\nEmbeddingBag ABFT overhead, {} rows, {} bags x {} indices, int8 codes, LLC flushed before every call,\n"
             "one thread; medians of per-iteration ratios, the variants timed back to back in each iteration (this run).\n"
             "Baseline: the fastest plain kernel of each iteration over the prefetch distances off / 16 / 64 rows (won: %\n"
             "of iterations each was). noise: 5th-95th percentile of plain / plain (prefetch 16 timed twice); an overhead\n"
             "below it is a defect of the baseline ('!'). BW / read: the ABFT kernel's speed over a plain read of the same\n"
             "rows (prefetch 16).\n",
             k_rows, k_bags, k_pool);
  fmt::print("{:>4} {:>9} {:>10} {:>11} {:>9} {:>10} {:>15} {:>16} {:>11} {:>10}\n", "d", "pooling", "base us", "won o/16/64",
             "abft pf", "overhead", "noise", "theory 1/d+1/3m", "BW / read", "GB/s");
  int over10 = 0, rows = 0, defects = 0;
  const std::vector<size_t> bases = plain_variants();
  for (int64_t dim : k_dims)
    for (bool weighted : {false, true}) {
      auto it = timers().find(key(dim, weighted));
      if (it == timers().end() || it->second.iterations() == 0) continue;
      const auto& t = it->second;
      const auto [lo, hi] = t.ratio_band(v_plain_again, v_plain + 1);
      const double theory = 1.0 / double(dim) + 1.0 / (3.0 * double(k_pool));
      const double bytes = double(k_bags * k_pool) * double(dim + 12);  // every looked-up row of the encoded table
      const std::string won = fmt::format("{:.0f}/{:.0f}/{:.0f}", 100 * t.fastest_share(bases[0], bases),
                                          100 * t.fastest_share(bases[1], bases), 100 * t.fastest_share(bases[2], bases));
      for (size_t i = 0; i < k_np; ++i) {
        const size_t v = v_abft + i;
        const double ov = t.median_ratio_to_fastest(v, bases) - 1;
        const bool defect = ov < lo - 1;
        ++rows, over10 += ov > 0.10, defects += defect;
        fmt::print("{:>4} {:>9} {:>10.1f} {:>11} {:>9} {:>9.1f}% {:>6.1f}%..{:>5.1f}% {:>15.1f}% {:>11.2f} {:>10.2f}{}\n", dim,
                   weighted ? "weighted" : "sum", t.median_fastest(bases) * 1e6, won,
                   k_prefetch[i] ? fmt::format("{} rows", k_prefetch[i]) : std::string("off"), 100 * ov, 100 * (lo - 1),
                   100 * (hi - 1), 100 * theory, 1.0 / t.median_ratio(v, v_read), bytes / t.median(v) * 1e-9, defect ? " !" : "");
      }
    }
  fmt::print("{} rows; overhead over 10 %: {}; below the noise band (a baseline defect): {}\n", rows, over10, defects);
  benchmark::Shutdown();
  return 0;
}
