#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "protocol/detector.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::map<std::pair<view_kind, std::string>, detector_info>& detectors_by_key() {
  static std::map<std::pair<view_kind, std::string>, detector_info> r;
  return r;
}

std::vector<std::function<void()>>& late_registrations() {
  static std::vector<std::function<void()>> r;
  return r;
}

// Registrations that read other detectors' entries run once, at the first
// look-up, when every file's static registration is done.
// (A late registration may look detectors up itself: the recursive call returns.)
void run_late_registrations() {
  static std::recursive_mutex mu;
  static bool started = false;
  std::lock_guard<std::recursive_mutex> lock(mu);
  if (started) return;
  started = true;
  for (auto& f : late_registrations()) f();
}

}  // namespace

bool register_detector(detector_info info) {
  auto key = std::make_pair(info.view, info.name);
  detectors_by_key().emplace(std::move(key), std::move(info));
  return true;
}

bool register_detector_late(std::function<void()> registration) {
  late_registrations().push_back(std::move(registration));
  return true;
}

const detector_info* find_detector(view_kind view, const std::string& name) {
  run_late_registrations();
  auto it = detectors_by_key().find({view, name});
  return it == detectors_by_key().end() ? nullptr : &it->second;
}

std::vector<const detector_info*> all_detectors() {
  run_late_registrations();
  std::vector<const detector_info*> out;
  for (const auto& [k, v] : detectors_by_key()) out.push_back(&v);
  return out;
}

}  // namespace sdc
