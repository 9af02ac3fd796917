// Adapters between per-step tests and the episode protocol.
//   per_rank(make)      one instance of a per-rank test per rank; the verdict of
//                       a step is the flagged rank with the largest score (ties:
//                       the lowest rank), which it blames when there are ranks
//                       to tell apart.
//   wrap(inner, spec)   a stateful window over any detector's per-step verdicts,
//                       reset with the episode:
//     {"ema": {"beta": B, "threshold": T}}  e_t = B e_{t-1} + (1 - B) score_t
//        (e_0 = score_0; a NaN score counts as Inf, one not computed as 0);
//        flags while e_t > T; score e_t / T.
//     {"strikes": {"k": K, "n": N}}         flags when at least K of the last N
//        steps were flagged by the inner detector; score = that count / K.
//   The blamed location is the inner detector's latest flagged one.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "protocol/detector.hpp"

namespace sdc {

std::unique_ptr<episode_detector> per_rank(std::function<std::unique_ptr<detector>()> make);

// Checks a suite's "wrap" list ([{"ema": {...}}, {"strikes": {...}}], innermost
// first); value_error naming the entry and what was expected. Returns it with
// defaults filled in.
nlohmann::json validate_wraps(const nlohmann::json& wraps);
std::unique_ptr<episode_detector> wrap(std::unique_ptr<episode_detector> inner, const nlohmann::json& spec);

}  // namespace sdc
