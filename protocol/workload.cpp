#include "protocol/workload.hpp"

#include "foundation/errors.hpp"
#include "foundation/formats/format.hpp"

#include <algorithm>
#include <map>

namespace sdc {
namespace {
std::map<std::string, std::unique_ptr<workload>>& workloads_by_name() {
  static std::map<std::string, std::unique_ptr<workload>> r;
  return r;
}
}  // namespace

const std::string& cell::at(const std::string& name) const {
  for (const auto& [k, v] : axes)
    if (k == name) return v;
  throw std::out_of_range("cell has no axis " + name);
}

nlohmann::json cell::axes_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : axes) j[k] = v;
  return j;
}

std::string clean_set_id(const std::vector<std::pair<std::string, std::string>>& axes,
                         const std::vector<std::string>& fault_axes) {
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& a : axes)
    if (std::find(fault_axes.begin(), fault_axes.end(), a.first) == fault_axes.end()) kept.push_back(a);
  std::sort(kept.begin(), kept.end());
  std::string id;
  for (const auto& [k, v] : kept) id += (id.empty() ? "" : ";") + k + "=" + v;
  return id;
}

fault_axes cell_fault_axes(const cell& c, const fault_axis_names& names) {
  return parse_fault_axes([&](const std::string& name) -> const std::string& { return c.at(name); }, names);
}

step_schedule episode_schedule(const fault_plan& p, uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind) {
  if (p.when.k != step_schedule::kind::uniform) return p.when;
  rng g = make_stream(seed, cell_hash, trial, kind, p.rank, 0, stream_purpose::when);
  return p.when.drawn(g);
}

fault_plan plan_of(const fault_axes& a, const format& f) {
  std::string why, axis;
  auto spec = fault_spec_for(a, f, &why, &axis);
  if (!spec) throw value_error(axis + ": " + why);
  fault_plan p;
  p.spec = std::move(*spec);
  p.count = a.count;
  p.when = a.when;
  p.rank = a.rank;
  return p;
}

bool register_workload(std::unique_ptr<workload> w) {
  auto name = w->name();
  workloads_by_name().emplace(name, std::move(w));
  return true;
}

const workload* find_workload(const std::string& name) {
  auto it = workloads_by_name().find(name);
  return it == workloads_by_name().end() ? nullptr : it->second.get();
}

std::vector<const workload*> all_workloads() {
  std::vector<const workload*> out;
  for (const auto& [k, v] : workloads_by_name()) out.push_back(v.get());
  return out;
}

}  // namespace sdc
