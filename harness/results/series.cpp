#include "harness/results/series.hpp"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <set>
#include <tuple>

namespace sdc {
namespace {

using json = nlohmann::json;

constexpr const char* k_stats[] = {"median", "mean", "max", "count", "nan"};

}  // namespace

void check_series(const json& record, const json& suite_trials, const std::string& at, std::vector<std::string>& problems) {
  if (!record.contains("series")) return;
  std::set<std::tuple<std::string, std::string, json>> seen;
  for (size_t i = 0; i < record["series"].size(); ++i) {
    const json& s = record["series"][i];
    const std::string sp = fmt::format("{}/series/{}", at, i);
    if (!seen.emplace(s["name"].get<std::string>(), s["over"].get<std::string>(), s["rank"]).second)
      problems.push_back(sp + ": a series of this name, axis and rank is already listed");
    for (const char* kind : {"clean", "faulty"}) {
      const json& k = s[kind];
      if (k.is_null()) continue;
      const size_t n = k["count"].size();
      for (const char* f : k_stats)
        if (k[f].size() != n) problems.push_back(fmt::format("{}/{}/{}: {} values, count has {}", sp, kind, f, k[f].size(), n));
      const double trials = suite_trials.value(kind, 0.0);
      for (size_t x = 0; x < n && x < k["nan"].size(); ++x) {
        const double count = k["count"][x], nan = k["nan"][x];
        if (nan > count || count > trials)
          problems.push_back(fmt::format("{}/{}: at {} expected 0 <= nan <= count <= {} trials; got nan {}, count {}", sp, kind, x, trials, nan, count));
        if (nan == count)
          for (const char* f : {"median", "mean", "max"})
            if (x < k[f].size() && !k[f][x].is_null())
              problems.push_back(fmt::format("{}/{}/{}/{}: a statistic of no number must be null", sp, kind, f, x));
      }
    }
  }
}

json series_from_v2_metrics(json& metrics) {
  static const std::regex step(R"((clean|faulty)\.(.+)_s(\d+)\.(median|mean|max|count|nan))");
  static const std::regex bin(R"((clean|faulty)\.bin_(\d+)\.(median|mean|max|count|nan))");
  static const std::regex per_rank(R"((.+)_rank(\d+))");
  // (name, over, rank) -> kind -> index -> stat -> value
  std::map<std::tuple<std::string, std::string, int>, std::map<std::string, std::map<size_t, json>>> found;
  json kept = json::object();
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    std::smatch m, r;
    const std::string& key = it.key();
    std::string name, over, kind, stat;
    size_t index = 0;
    int rank = -1;
    if (std::regex_match(key, m, bin)) {
      kind = m[1], name = "count", over = "bin", index = std::stoul(m[2]), stat = m[3];
    } else if (std::regex_match(key, m, step)) {
      kind = m[1], name = m[2], over = "step", index = std::stoul(m[3]), stat = m[4];
      if (std::regex_match(name, r, per_rank)) name = r[1].str(), rank = std::stoi(r[2]);
    } else {
      kept[key] = *it;
      continue;
    }
    found[{name, over, rank}][kind][index][stat] = *it;
  }
  metrics = kept;
  json out = json::array();
  for (const auto& [key, kinds] : found) {
    const auto& [name, over, rank] = key;
    json s = {{"name", name}, {"over", over}, {"rank", rank < 0 ? json(nullptr) : json(rank)}, {"clean", nullptr}, {"faulty", nullptr}};
    for (const auto& [kind, by_index] : kinds) {
      json k;
      const size_t n = by_index.rbegin()->first + 1;
      for (const char* f : k_stats) k[f] = json::array();
      for (size_t x = 0; x < n; ++x) {
        auto it = by_index.find(x);
        for (const char* f : k_stats) {
          const bool counted = std::string(f) == "count" || std::string(f) == "nan";
          json v = it == by_index.end() || !it->second.contains(f) ? (counted ? json(0.0) : json(nullptr)) : it->second.at(f);
          k[f].push_back(v);
        }
      }
      s[kind] = k;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace sdc
