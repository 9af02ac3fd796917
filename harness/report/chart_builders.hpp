// The chart builders `charts_of` runs in order; each appends the charts the
// typed result set supports (none when it lacks what the chart needs).
#pragma once
#include <string>
#include <vector>

#include "harness/report/chart_data.hpp"

namespace sdc::report {

// A point layer of one source ("measured": filled circles, "paper": open
// diamonds) over rows with a "source" field; both share the shape legend.
json point_layer(const std::string& source, bool filled, const json& x, const json& y, const json& color);

void rate_charts(const result_set& r, const std::string& id, std::vector<chart>& out);           // rate_charts.cpp
void paper_rate_chart(const result_set& r, const std::string& id, std::vector<chart>& out);
void heat_map_chart(const result_set& r, const std::string& id, std::vector<chart>& out);
void roc_chart(const result_set& r, const std::string& id, std::vector<chart>& out);
void rate_vs_axis_charts(const result_set& r, const std::string& id, std::vector<chart>& out);   // axis_charts.cpp
void metric_vs_axis_charts(const result_set& r, const std::string& id, std::vector<chart>& out);
void histogram_charts(const result_set& r, const std::string& id, std::vector<chart>& out);      // recording_charts.cpp
void step_series_charts(const result_set& r, const std::string& id, std::vector<chart>& out);
void timeline_chart(const result_set& r, const std::string& id, std::vector<chart>& out);        // training_charts.cpp
void localization_chart(const result_set& r, const std::string& id, std::vector<chart>& out);
void overhead_chart(const result_set& r, const std::string& id, std::vector<chart>& out);
void outcome_charts(const result_set& r, const std::string& id, std::vector<chart>& out);        // outcome_charts.cpp
void plan_pareto_charts(const result_set& r, const std::string& id, std::vector<chart>& out);    // plan_charts.cpp

}  // namespace sdc::report
