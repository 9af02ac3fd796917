// Building a registered training detector from its name and parameters as a
// suite would, and handing it hand-made steps: shared by the tests of the
// production checks (test_production_checks.cpp, test_rerun_checks.cpp).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "detectors/adapters.hpp"
#include "protocol/detector.hpp"
#include "protocol/views/training_view.hpp"

namespace sdc::testing {

inline std::unique_ptr<episode_detector> make_training_detector(const std::string& name, const nlohmann::json& params) {
  const auto* info = find_detector(view_kind::training, name);
  EXPECT_NE(info, nullptr) << name;
  const detector_params p(validate_params(*info, params), nullptr);
  const detector_context ctx;
  if (info->make_episode) return info->make_episode(p, ctx);
  return per_rank([info, p, ctx] { return info->make(p, ctx); });
}

inline std::vector<const step_view*> ptrs(const std::vector<training_step>& s) {
  std::vector<const step_view*> v;
  for (const auto& x : s) v.push_back(&x);
  return v;
}

}  // namespace sdc::testing
