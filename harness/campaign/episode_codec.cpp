#include "harness/campaign/episode_codec.hpp"

#include <nlohmann/json.hpp>

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

json episode_json(const episode_result& e) {
  json d = json::array();
  for (const auto& x : e.detectors)
    d.push_back({{"r", int(x.result)}, {"s", x.score}, {"l", x.latency}, {"f", x.flagged_steps}, {"e", x.early_flags},
                 {"m", metrics_json(x.metrics)}, {"j", metrics_json(x.judged)}, {"t", x.seconds}});
  json rec = json::array();
  for (const auto& r : e.recordings) rec.push_back(metrics_json(r));
  return {{"skipped", e.skipped}, {"reason", e.skip_reason}, {"steps", e.steps}, {"band", int(e.truth.band)},
          {"truth", metrics_json(e.truth.metrics)}, {"detectors", d}, {"recordings", rec},
          {"kernel_seconds", e.kernel_seconds}, {"kernel_ran", e.kernel_ran}};
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

episode_result episode_of(const json& j) {
  episode_result e;
  e.skipped = j.at("skipped"), e.skip_reason = j.at("reason"), e.steps = int_of(j.at("steps"), "steps");
  e.truth.band = enum_of<significance>(j.at("band"), k_significance_count, "significance band");
  e.truth.metrics = metrics_of(j.at("truth"));
  for (const auto& x : j.at("detectors")) {
    detector_episode d;
    d.result = enum_of<outcome>(x.at("r"), k_outcome_count, "outcome");
    d.score = x.at("s"), d.latency = int_of(x.at("l"), "latency");
    d.flagged_steps = int_of(x.at("f"), "flagged steps"), d.early_flags = int_of(x.at("e"), "early flags");
    d.metrics = metrics_of(x.at("m")), d.judged = metrics_of(x.at("j")), d.seconds = x.at("t");
    e.detectors.push_back(std::move(d));
  }
  for (const auto& r : j.at("recordings")) e.recordings.push_back(metrics_of(r));
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
