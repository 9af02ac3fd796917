// Statistics over a cell's episodes (episode_stats.hpp).
#include "harness/campaign/episode_stats.hpp"

#include <algorithm>
#include <cmath>

namespace sdc {
namespace {

using json = nlohmann::json;

// The median, mean and max of the episodes' numbers, their count (episodes
// whose value was computed: not_computed, protocol/detector.hpp, is left out)
// and nan (those whose computed value is NaN). A NaN is counted, never
// dropped into a max; a statistic over no number is null, as is a mean or max
// an infinite value makes infinite.
struct summary_stats {
  json median, mean, max;
  double count, nan;
};
summary_stats stats_of(const std::vector<double>& values) {
  double sum = 0, mx = -INFINITY;
  int64_t numbers = 0, computed = 0;
  for (double x : values) {
    computed += !is_not_computed(x);
    if (!std::isnan(x)) sum += x, mx = x > mx ? x : mx, ++numbers;
  }
  return {finite_or_null(nearest_rank_quantile(values, 0.5)), finite_or_null(numbers ? sum / double(numbers) : NAN),
          finite_or_null(numbers ? mx : NAN), double(computed), double(computed - numbers)};
}

}  // namespace

double nearest_rank_quantile(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  if (q == 0.5) return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return v[std::min(v.size() - 1, size_t(std::ceil(q * double(v.size()))) - (q > 0 ? 1 : 0))];
}

void summarize_named(const std::map<std::string, std::vector<double>> named[2], json& out) {
  for (int kind = 0; kind < 2; ++kind)
    for (const auto& [name, values] : named[kind]) {
      const std::string prefix = std::string(kind ? "faulty." : "clean.") + name;
      const summary_stats st = stats_of(values);
      out[prefix + ".median"] = st.median;
      out[prefix + ".mean"] = st.mean;
      out[prefix + ".max"] = st.max;
      out[prefix + ".count"] = st.count;
      out[prefix + ".nan"] = st.nan;
    }
}

void gather_series(const series_list& l, bool faulty, series_values& out) {
  for (const auto& p : l) out[{p.name, int(p.over), p.rank}][faulty][p.index].push_back(p.value);
}

json series_json(const series_values& all) {
  json out = json::array();
  for (const auto& [key, kinds] : all) {
    json s = {{"name", key.name}, {"over", series_axis_name(series_axis(key.over))},
              {"rank", key.rank < 0 ? json(nullptr) : json(key.rank)}};
    for (int kind = 0; kind < 2; ++kind) {
      const auto& by_index = kinds[kind];
      json& k = s[kind ? "faulty" : "clean"];
      if (by_index.empty()) {
        k = nullptr;
        continue;
      }
      const size_t n = size_t(by_index.rbegin()->first) + 1;
      for (const char* f : {"median", "mean", "max", "count", "nan"}) k[f] = json::array();
      for (size_t i = 0; i < n; ++i) {
        auto it = by_index.find(int32_t(i));
        const summary_stats st = stats_of(it == by_index.end() ? std::vector<double>{} : it->second);
        k["median"].push_back(st.median), k["mean"].push_back(st.mean), k["max"].push_back(st.max);
        k["count"].push_back(st.count), k["nan"].push_back(st.nan);
      }
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace sdc
