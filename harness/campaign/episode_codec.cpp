#include "harness/campaign/episode_codec.hpp"

#include <nlohmann/json.hpp>

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
  for (const auto& e : a) m.emplace_back(e[0].get<std::string>(), e[1].get<double>());
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

episode_result episode_of(const json& j) {
  episode_result e;
  e.skipped = j["skipped"], e.skip_reason = j["reason"], e.steps = j["steps"];
  e.truth.band = significance(j["band"].get<int>());
  e.truth.metrics = metrics_of(j["truth"]);
  for (const auto& x : j["detectors"]) {
    detector_episode d;
    d.result = outcome(x["r"].get<int>());
    d.score = x["s"], d.latency = x["l"], d.flagged_steps = x["f"], d.early_flags = x["e"];
    d.metrics = metrics_of(x["m"]), d.judged = metrics_of(x["j"]), d.seconds = x["t"];
    e.detectors.push_back(std::move(d));
  }
  for (const auto& r : j["recordings"]) e.recordings.push_back(metrics_of(r));
  e.kernel_seconds = j["kernel_seconds"], e.kernel_ran = j["kernel_ran"];
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
  for (const auto& j : json::from_msgpack(bytes)) out.push_back(episode_of(j));
  return out;
}

}  // namespace sdc
