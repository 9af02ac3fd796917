#include "harness/results/paired.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "foundation/errors.hpp"
#include "foundation/io/json_file.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

struct series {
  std::vector<std::string> values;           // axis values in the suite's order
  std::vector<std::vector<double>> x;        // per value, per unit
};

// The mean of `v` with its 95 % Student-t interval (n - 1 degrees of
// freedom); the interval is null with fewer than 2 values.
json t_estimate(const std::vector<double>& v) {
  const size_t n = v.size();
  if (n == 0) return {{"mean", nullptr}, {"ci95", {nullptr, nullptr}}};
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(n);
  if (n < 2) return {{"mean", finite_or_null(mean)}, {"ci95", {nullptr, nullptr}}};
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double half = boost::math::quantile(boost::math::students_t(double(n - 1)), 0.975) * std::sqrt(ss / double(n - 1) / double(n));
  return {{"mean", finite_or_null(mean)}, {"ci95", {finite_or_null(mean - half), finite_or_null(mean + half)}}};
}

// One metric of one group: per value the mean of the cluster means, per pair
// the mean of the clusters' mean differences, each with its cluster-level t
// interval (unit t is in cluster t mod C; empty clusters dropped).
json compare_metric(const series& s, int64_t clusters) {
  const size_t n = s.x.empty() ? 0 : s.x[0].size(), V = s.values.size();
  std::vector<std::vector<size_t>> by_cluster(static_cast<size_t>(clusters));
  for (size_t t = 0; t < n; ++t) by_cluster[t % size_t(clusters)].push_back(t);
  std::vector<std::vector<double>> cluster_means(V);  // per value, per non-empty cluster
  for (const auto& members : by_cluster) {
    if (members.empty()) continue;
    for (size_t v = 0; v < V; ++v) {
      double m = 0;
      for (size_t t : members) m += s.x[v][t];
      cluster_means[v].push_back(m / double(members.size()));
    }
  }
  json out = {{"values", json::object()}, {"differences", json::array()}};
  for (size_t v = 0; v < V; ++v) out["values"][s.values[v]] = t_estimate(cluster_means[v]);
  for (size_t a = 0; a < V; ++a)
    for (size_t b = 0; b < a; ++b) {
      std::vector<double> d(cluster_means[a].size());
      for (size_t c = 0; c < d.size(); ++c) d[c] = cluster_means[a][c] - cluster_means[b][c];
      json e = t_estimate(d);
      out["differences"].push_back({{"a", s.values[a]}, {"b", s.values[b]}, {"mean", e["mean"]}, {"ci95", e["ci95"]}});
    }
  return out;
}

}  // namespace

json paired_comparisons(const json& suite_block, const json& recordings) {
  if (!suite_block.contains("compare") || suite_block.at("compare").is_null()) return nullptr;
  const json& cmp = suite_block.at("compare");
  const std::string axis = cmp.at("axis").get<std::string>(), recorder = cmp.at("recorder").get<std::string>();
  const json clusters_axis = cmp.at("clusters");
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
  json out = {{"axis", axis}, {"recorder", recorder}, {"clusters", clusters_axis},
              {"method", k_paired_method}, {"groups", json::array()}};
  for (const auto& [key, by_value] : groups) {
    series base;
    for (const auto& v : order)
      if (by_value.count(v)) base.values.push_back(v);
    if (base.values.size() < 2) continue;
    const json& rest = group_axes[key];
    int64_t C = 1;  // without a clusters axis every unit is its own cluster
    const bool C_axis = !clusters_axis.is_null();
    if (C_axis) {
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
        metrics[it.key()] = compare_metric(s, C_axis ? C : std::max<int64_t>(1, int64_t(s.x[0].size())));
      }
      if (metrics.empty()) continue;
      out["groups"].push_back({{"axes", rest}, {"kind", kind}, {"units", std::max<int64_t>(units, 0)},
                               {"clusters", C_axis ? std::min(C, std::max<int64_t>(units, 0)) : std::max<int64_t>(units, 0)},
                               {"metrics", metrics}});
    }
  }
  return out;
}

}  // namespace sdc
