// Paired comparisons across one axis of a suite (its `compare` block): 002's
// question whether the seed policies differ, asked of the same forks and data.
// For every group of recordings that agree on every axis but the compared one,
// and every episode-level metric of the compared recorder (the recordings'
// `episodes` arrays), per episode kind:
//   units: the trials with a number under every value of the axis (episode t
//     of one value and episode t of another share their fork and data order);
//   values: the mean over the units for each axis value, with a 95 % interval;
//   differences: for each pair of values (a later in the suite's order than b),
//     the mean of the paired differences a - b, with a 95 % interval.
// Intervals: two-stage percentile bootstrap, `resamples` draws: clusters with
// replacement (unit t is in cluster t mod C, C = the value of the `clusters`
// axis: the training workload's forks; 1 without), then units within each
// drawn cluster with replacement; the same draw for every value, so the
// differences stay paired. Written here (Boost has no bootstrap): a resample
// loop over Boost.Random's mt19937_64, seeded per (suite seed, group, metric),
// so the result does not depend on the order of cells or shards.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>

namespace sdc {

// null when the suite has no `compare` block.
nlohmann::json paired_comparisons(const nlohmann::json& suite_block, const nlohmann::json& recordings, int resamples = 2000);

}  // namespace sdc
