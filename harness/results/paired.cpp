#include "harness/results/paired.hpp"

#include <algorithm>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "foundation/errors.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// The 2.5 % and 97.5 % points of `v` (nearest rank).
json percentile_interval(std::vector<double> v) {
  if (v.empty()) return {nullptr, nullptr};
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(std::floor(q * double(v.size()))))]; };
  return {finite_or_null(at(0.025)), finite_or_null(at(0.975))};
}

struct series {
  std::vector<std::string> values;           // axis values in the suite's order
  std::vector<std::vector<double>> x;        // per value, per unit
};

// One metric of one group: means and paired differences with intervals.
json compare_metric(const series& s, int64_t clusters, int resamples, uint64_t seed) {
  const size_t n = s.x.empty() ? 0 : s.x[0].size(), V = s.values.size();
  std::vector<std::vector<size_t>> by_cluster(static_cast<size_t>(clusters));
  for (size_t t = 0; t < n; ++t) by_cluster[t % size_t(clusters)].push_back(t);
  std::vector<std::vector<double>> means(V), diffs;
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t a = 0; a < V; ++a)
    for (size_t b = 0; b < a; ++b) pairs.emplace_back(a, b);
  diffs.resize(pairs.size());
  boost::random::mt19937_64 g(seed);
  std::vector<size_t> units;
  for (int r = 0; r < resamples && n > 0; ++r) {
    units.clear();
    boost::random::uniform_int_distribution<size_t> pick_cluster(0, size_t(clusters) - 1);
    for (int64_t c = 0; c < clusters; ++c) {
      const auto& members = by_cluster[pick_cluster(g)];
      if (members.empty()) continue;
      boost::random::uniform_int_distribution<size_t> pick(0, members.size() - 1);
      for (size_t k = 0; k < members.size(); ++k) units.push_back(members[pick(g)]);
    }
    if (units.empty()) continue;
    std::vector<double> m(V, 0.0);
    for (size_t v = 0; v < V; ++v) {
      for (size_t t : units) m[v] += s.x[v][t];
      m[v] /= double(units.size());
      means[v].push_back(m[v]);
    }
    for (size_t p = 0; p < pairs.size(); ++p) diffs[p].push_back(m[pairs[p].first] - m[pairs[p].second]);
  }
  json out = {{"values", json::object()}, {"differences", json::array()}};
  auto mean_of = [&](size_t v) {
    double sum = 0;
    for (double x : s.x[v]) sum += x;
    return n ? sum / double(n) : NAN;
  };
  for (size_t v = 0; v < V; ++v)
    out["values"][s.values[v]] = {{"mean", finite_or_null(mean_of(v))}, {"ci95", percentile_interval(means[v])}};
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    out["differences"].push_back({{"a", s.values[a]},
                                  {"b", s.values[b]},
                                  {"mean", finite_or_null(mean_of(a) - mean_of(b))},
                                  {"ci95", percentile_interval(diffs[p])}});
  }
  return out;
}

}  // namespace

json paired_comparisons(const json& suite_block, const json& recordings, int resamples) {
  if (!suite_block.contains("compare") || suite_block.at("compare").is_null()) return nullptr;
  const json& cmp = suite_block.at("compare");
  const std::string axis = cmp.at("axis").get<std::string>(), recorder = cmp.at("recorder").get<std::string>();
  const json clusters_axis = cmp.at("clusters");
  const uint64_t seed = suite_block.at("seed").get<uint64_t>();
  std::vector<std::string> order;
  for (const auto& v : suite_block.at("axes").at(axis)) order.push_back(v.get<std::string>());
  // group (the other axes) -> axis value -> its recording
  std::map<std::string, std::map<std::string, const json*>> groups;
  std::map<std::string, json> group_axes;
  for (const auto& r : recordings) {
    if (r.at("recorder").at("label") != recorder || !r.contains("episodes")) continue;
    json rest = r.at("axes");
    rest.erase(axis);
    groups[rest.dump()][r.at("axes").at(axis).get<std::string>()] = &r;
    group_axes[rest.dump()] = rest;
  }
  json out = {{"axis", axis}, {"recorder", recorder}, {"clusters", clusters_axis}, {"resamples", resamples},
              {"method", "two-stage percentile bootstrap (clusters with replacement, then episodes within them); pairs matched by trial"},
              {"groups", json::array()}};
  for (const auto& [key, by_value] : groups) {
    series base;
    for (const auto& v : order)
      if (by_value.count(v)) base.values.push_back(v);
    if (base.values.size() < 2) continue;
    const json& rest = group_axes[key];
    int64_t C = 1;
    if (!clusters_axis.is_null()) {
      const std::string v = rest.at(clusters_axis.get<std::string>()).get<std::string>();
      if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos || v == "0")
        throw input_error("/suite/compare/clusters", v, "expected an axis whose values are integers from 1 to 999999");
      C = std::stoll(v);
    }
    for (const char* kind : {"faulty", "clean"}) {
      const json& first = by_value.at(base.values[0])->at("episodes").at(kind);
      json metrics = json::object();
      int64_t units = -1;
      for (auto it = first.begin(); it != first.end(); ++it) {
        series s = base;
        s.x.assign(s.values.size(), {});
        const size_t n = it->size();
        for (size_t t = 0; t < n; ++t) {
          bool all = true;
          for (const auto& v : s.values) {
            const json& e = by_value.at(v)->at("episodes").at(kind);
            all &= e.contains(it.key()) && e.at(it.key()).is_array() && e.at(it.key()).size() == n && e.at(it.key()).at(t).is_number();
          }
          if (!all) continue;
          for (size_t v = 0; v < s.values.size(); ++v) s.x[v].push_back(by_value.at(s.values[v])->at("episodes").at(kind).at(it.key()).at(t).get<double>());
        }
        units = std::max<int64_t>(units, int64_t(s.x[0].size()));
        const uint64_t mseed = seed ^ std::stoull(sha256_hex(key + "|" + kind + "|" + it.key()).substr(0, 16), nullptr, 16);
        metrics[it.key()] = compare_metric(s, C, resamples, mseed);
      }
      if (metrics.empty()) continue;
      out["groups"].push_back({{"axes", rest}, {"kind", kind}, {"units", std::max<int64_t>(units, 0)}, {"clusters", C}, {"metrics", metrics}});
    }
  }
  return out;
}

}  // namespace sdc
