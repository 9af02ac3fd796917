#include "harness/campaign/episode_codec.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

json metrics_json(const metric_list& m) {
  json a = json::array();
  for (const auto& [k, v] : m) a.push_back(json::array({k, v}));
  return a;
}

metric_list metrics_of(const json& a) {
  metric_list m;
  for (const auto& e : a) m.emplace_back(e.at(0).get<std::string>(), e.at(1).get<double>());
  return m;
}

json series_json(const series_list& l) {
  json a = json::array();
  for (const auto& p : l) a.push_back(json::array({p.name, int(p.over), p.index, p.rank, p.value}));
  return a;
}

json episode_json(const episode_result& e) {
  json d = json::array();
  for (const auto& x : e.detectors)
    d.push_back({{"r", int(x.result)}, {"s", x.score}, {"l", x.latency}, {"f", x.flagged_steps}, {"e", x.early_flags},
                 {"m", metrics_json(x.metrics)}, {"j", metrics_json(x.judged)}, {"q", series_json(x.series)}, {"t", x.seconds}});
  json rec = json::array();
  for (const auto& r : e.recordings) rec.push_back({{"m", metrics_json(r.metrics)}, {"q", series_json(r.series)}});
  json j = {{"skipped", e.skipped}, {"reason", e.skip_reason}, {"steps", e.steps}, {"band", int(e.truth.band)},
            {"truth", metrics_json(e.truth.metrics)}, {"detectors", d}, {"recordings", rec},
            {"kernel_seconds", e.kernel_seconds}, {"kernel_ran", e.kernel_ran}};
  if (e.truth.label) j["label"] = int(*e.truth.label), j["truth_series"] = series_json(e.truth.series);
  return j;
}

// Integers and enums from bytes that may come from a file (a resumed
// journal): a float where an integer belongs is refused, not cast.
int64_t int_of(const json& v, const char* what) {
  if (!v.is_number_integer()) throw value_error(std::string("episode: ") + what + ": expected an integer");
  return v.get<int64_t>();
}
template <class E>
E enum_of(const json& v, int count, const char* what) {
  const int64_t i = int_of(v, what);
  if (i < 0 || i >= count) throw value_error(std::string("episode: ") + what + " out of range");
  return E(i);
}

series_list series_of(const json& a) {
  series_list l;
  for (const auto& e : a) {
    const int64_t index = int_of(e.at(2), "series index"), rank = int_of(e.at(3), "series rank");
    if (index < 0 || index > INT32_MAX || rank < -1 || rank > INT32_MAX) throw value_error("episode: series index or rank out of range");
    l.push_back({e.at(0).get<std::string>(), enum_of<series_axis>(e.at(1), 2, "series axis"), int32_t(index), int32_t(rank),
                 e.at(4).get<double>()});
  }
  return l;
}

episode_result episode_of(const json& j) {
  episode_result e;
  e.skipped = j.at("skipped"), e.skip_reason = j.at("reason"), e.steps = int_of(j.at("steps"), "steps");
  e.truth.band = enum_of<significance>(j.at("band"), k_significance_count, "significance band");
  e.truth.metrics = metrics_of(j.at("truth"));
  if (j.contains("label")) {
    e.truth.label = enum_of<trajectory_label>(j.at("label"), k_trajectory_label_count, "trajectory label");
    e.truth.series = series_of(j.at("truth_series"));
  }
  for (const auto& x : j.at("detectors")) {
    detector_episode d;
    d.result = enum_of<outcome>(x.at("r"), k_outcome_count, "outcome");
    d.score = x.at("s"), d.latency = int_of(x.at("l"), "latency");
    d.flagged_steps = int_of(x.at("f"), "flagged steps"), d.early_flags = int_of(x.at("e"), "early flags");
    d.metrics = metrics_of(x.at("m")), d.judged = metrics_of(x.at("j")), d.series = series_of(x.at("q")), d.seconds = x.at("t");
    e.detectors.push_back(std::move(d));
  }
  for (const auto& r : j.at("recordings")) e.recordings.push_back({metrics_of(r.at("m")), series_of(r.at("q"))});
  e.kernel_seconds = j.at("kernel_seconds"), e.kernel_ran = j.at("kernel_ran");
  return e;
}

}  // namespace

std::vector<uint8_t> encode_episodes(const std::vector<episode_result>& r) {
  json a = json::array();
  for (const auto& e : r) a.push_back(episode_json(e));
  return json::to_msgpack(a);
}

std::vector<episode_result> decode_episodes(const std::vector<uint8_t>& bytes) {
  std::vector<episode_result> out;
  const json a = json::from_msgpack(bytes);
  if (!a.is_array()) throw value_error("episodes: expected an array");
  for (const auto& j : a) out.push_back(episode_of(j));
  return out;
}

}  // namespace sdc
