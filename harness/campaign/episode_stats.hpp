// Statistics over a cell's episodes for its result-set records
// (cell_summary.cpp): quantiles, the median / mean / max / count / nan of a
// named metric per episode kind, and schema 3's typed series, step by step.
// A value not computed (not_computed, protocol/detector.hpp) is left out of
// every statistic and count; a NaN is counted in `nan`; both are written null.
#pragma once
#include <compare>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "foundation/io/json_file.hpp"  // finite_or_null
#include "protocol/detector.hpp"

namespace sdc {

// The q-quantile (nearest rank; the median the mean of the middle two) of the
// non-NaN values; NaN when none.
double nearest_rank_quantile(std::vector<double> v, double q);

// NAME.median/.mean/.max/.count/.nan, prefixed by the episode kind (clean.,
// faulty.), for each named metric's values over the episodes (named[0]: clean,
// named[1]: faulty). .count counts the episodes that computed the metric; a
// statistic over none is null. An infinite value makes mean or max null; a
// NaN is counted in .nan, never dropped into a max.
void summarize_named(const std::map<std::string, std::vector<double>> named[2], nlohmann::json& out);

// The episodes' series, gathered per (name, axis, rank) and kind: index -> values.
struct series_key {
  std::string name;
  int over;
  int32_t rank;
  auto operator<=>(const series_key&) const = default;
};
using series_values = std::map<series_key, std::map<int32_t, std::vector<double>>[2]>;

void gather_series(const series_list& l, bool faulty, series_values& out);

// Schema 3's typed series: per series, per episode kind, arrays indexed by
// step or bin of the summarize_named fields (null kind: no episode of it had
// the series; an index no episode reached: count 0, statistics null).
nlohmann::json series_json(const series_values& all);

}  // namespace sdc
