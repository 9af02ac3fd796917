// Paired comparisons across one axis of a suite (its `compare` block): 002's
// question whether the seed policies differ, asked of the same forks and data.
// For every group of recordings that agree on every axis but the compared one,
// and every episode-level metric of the compared recorder (the recordings'
// `episodes` arrays), per episode kind:
//   units: the trials with a number under every value of the axis (episode t
//     of one value and episode t of another share their fork and data order);
//   values: for each axis value the mean of its cluster means, with a 95 %
//     interval;
//   differences: for each pair of values (a later in the suite's order than b),
//     the mean of the clusters' paired differences a - b, with a 95 % interval.
// Intervals: cluster-level Student t (unit t is in cluster t mod C, C = the
// value of the `clusters` axis: the training workload's forks; without one,
// every unit its own cluster): each cluster's mean, then the mean over the
// clusters with Student's t on C - 1 degrees of freedom; a difference is
// taken per cluster first, so it stays paired. Valid with few clusters when
// the cluster means are near normal (each is a mean over episodes and
// steps), unlike a cluster bootstrap, whose percentile interval undercovers
// with ten clusters or fewer (METHODOLOGY "Paired comparisons"). Null
// intervals with fewer than 2 clusters. Deterministic: no resampling.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace sdc {

inline constexpr const char* k_paired_method =
    "cluster-level t: each cluster's mean (paired differences per cluster), then Student's t with C - 1 degrees of freedom "
    "over the clusters; pairs matched by trial";

// null when the suite has no `compare` block.
nlohmann::json paired_comparisons(const nlohmann::json& suite_block, const nlohmann::json& recordings);

}  // namespace sdc
