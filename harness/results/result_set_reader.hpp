// A result set as its readers see it (show, compare, the report, reproduce,
// the Python module): typed once, at the edge, from the validated version 4
// document (results/schema/result-set-4.schema.json, results/README.md).
// Every lookup of a result-set field by name happens in the parse functions
// (result_set_reader.cpp, result_set_records.cpp); a reader asks the struct.
// A metric, rate or interval that was not computed is nullopt, never 0. JSON
// stays only where the format leaves a value free (a detector's params, a
// published reference's values, provenance beyond the fields read) and in
// each record's `raw`: the record as written, for reproduce's exact
// comparison. The writer side (make_result_set, merge, migrate, validate)
// builds and checks the JSON (result_set.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sdc {

using metric_map = std::map<std::string, std::optional<double>>;  // name -> value; nullopt: not computed
using axis_values = std::vector<std::pair<std::string, std::string>>;  // name -> value, in the suite's axis order

// A rate with its count and its Wilson interval (rate_block; faulty and clean
// sides): `count` is what the block counts (detected, flagged or right).
struct counted_rate {
  int64_t trials = 0, count = 0;
  std::optional<double> rate;  // nullopt with no trials
  double lo = 0, hi = 1;       // ci95
};

struct band {
  int64_t trials = 0, detected = 0;
};

struct latency {
  int64_t detections = 0;
  std::optional<double> p50, p90, max;
};

struct faulty_side {
  counted_rate detected;  // count: detected
  int64_t skipped = 0;
  std::string outcomes;   // hex bits, one per faulty trial (outcome_bits)
  int64_t right_location = 0, wrong_location = 0, unlocated = 0, missed = 0;  // outcome_counts
  counted_rate localization;  // count: right
  latency latency_steps;
  int64_t early_flags = 0;
  struct reasons {
    int64_t nonfinite = 0;
    counted_rate own;  // count: detected
  };
  std::optional<reasons> by_reason;
};

struct clean_side {
  counted_rate flagged;  // count: flagged
  std::string outcomes;
  int64_t false_alarm = 0, clean_pass = 0;
  counted_rate steps;  // count: flagged
  std::optional<int64_t> nonfinite;  // by_reason
};

struct significance_bands {
  band masked, within_noise, small, large;
};

struct label_count {
  int64_t trials = 0, detected = 0;
  std::optional<double> rate;
  double lo = 0, hi = 1;
  std::optional<int64_t> latency_p50;
};
// The training outcome labels, in the format's order.
inline constexpr const char* k_outcome_labels[] = {"masked", "spike_and_recover", "spike_and_degrade",
                                                   "silent_degradation", "gradual_drift", "non_finite"};

struct series_stats {
  std::vector<std::optional<double>> median, mean, max;
  std::vector<double> count, nan;
};
struct series_entry {
  std::string name, over;  // over: "step" or "bin"
  std::optional<int64_t> rank;  // nullopt: all ranks
  std::optional<series_stats> clean, faulty;  // nullopt: no episode of that kind had it
};

// A detector or recorder as the suite ran it.
struct component {
  std::string label, name;
  nlohmann::json params;  // the component's own parameters (free-form)
  std::vector<std::string> closed_forms;
};

// One entry of `cells`: a detector in a cell.
struct cell_record {
  int64_t cell = 0;
  std::string key;
  axis_values axes;
  component detector;
  std::optional<std::string> skipped;  // the reason
  std::optional<std::string> clean_set;
  std::optional<faulty_side> faulty;
  std::optional<clean_side> clean;
  std::optional<significance_bands> by_significance;
  metric_map metrics, workload_metrics;
  std::vector<series_entry> series_list, workload_series;
  std::optional<std::map<std::string, label_count>> by_label;
  // The published numbers: key ("faulty.rate", "metrics.NAME", ..., "note")
  // -> value (any JSON: the format leaves it free); nullopt: none.
  std::optional<std::map<std::string, nlohmann::json>> reference;
  nlohmann::json raw;  // the record as written (reproduce compares it exactly)

  const std::string* axis(const std::string& name) const;  // nullptr when the record lacks the axis
  std::optional<double> metric(const std::string& name) const;           // nullopt: absent or null
  std::optional<double> workload_metric(const std::string& name) const;  // likewise
};

// One entry of `recordings`: a recorder in a cell.
struct recording_record {
  int64_t cell = 0;
  std::string key;
  axis_values axes;
  component recorder;
  std::optional<std::string> skipped;
  std::optional<std::string> clean_set;
  metric_map metrics;
  // A compared recorder's episode-level metrics: kind ("faulty", "clean") ->
  // name -> one value per trial (nullopt: skipped, NaN or Inf).
  std::optional<std::map<std::string, std::map<std::string, std::vector<std::optional<double>>>>> episodes;
  std::vector<series_entry> series_list;
  nlohmann::json raw;

  const std::string* axis(const std::string& name) const;
};

struct timing_entry {
  int64_t cell = 0;
  std::string detector;
  double kernel_seconds = 0, detector_seconds = 0;
  std::optional<double> overhead;
};

// The paired comparisons across the suite's compare axis (paired.hpp).
struct estimate {
  std::optional<double> mean, lo, hi;
};
struct paired_difference {
  std::string a, b;
  estimate e;
};
struct paired_metric {
  std::map<std::string, estimate> values;  // axis value -> its estimate
  std::vector<paired_difference> differences;
};
struct paired_group {
  std::map<std::string, std::string> axes;
  std::string kind;
  int64_t units = 0, clusters = 0;
  std::map<std::string, paired_metric> metrics;
};
struct paired_comparisons_block {
  std::string axis, recorder, method;
  std::optional<std::string> clusters;
  std::vector<paired_group> groups;
};

struct published_source {  // the schema leaves the block free: each field may be absent
  std::optional<std::string> paper, table;
  std::optional<std::vector<std::string>> pool_over;  // axes the paper's totals pool
};

struct suite_block {
  std::string name, file, sha256, scale, workload;
  std::optional<std::string> description, migrated_from;
  uint64_t seed = 0;
  int64_t faulty_trials = 0, clean_trials = 0;
  // name -> values, in the workload's axis order (the cell key's; an axis
  // no key names, at its keyless value, after those by name).
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::vector<std::string> axis_overrides, fault_axes, truth_metrics;
  std::vector<component> detectors, recorders;
  std::optional<published_source> reproduces;
  struct compare_axis {
    std::string axis, recorder;
    std::optional<std::string> clusters;
  };
  std::optional<compare_axis> compare;

  const std::vector<std::string>* axis(const std::string& name) const;  // nullptr when the suite has no such axis
};

struct throughput {
  double episodes = 0, wall_seconds = 0, cores = 0;
};

struct provenance_block {
  std::optional<std::string> cpu, git_commit, sdcbench_version, compiler, build_type, started, finished;
  std::optional<int64_t> threads;
  std::optional<bool> git_dirty;
  std::optional<throughput> rate;  // provenance.throughput
  nlohmann::json numerics;         // null when not recorded
  nlohmann::json raw;              // the whole block (versions, argv, libraries, inputs, job, ...)
};

struct shard_block {
  int64_t index = 0, count = 1;
  std::optional<std::vector<std::string>> merged_from;
};

struct result_set {
  std::string schema;  // always k_result_schema: older versions are migrated
  bool complete = true;
  suite_block suite;
  shard_block shard;
  provenance_block provenance;
  std::vector<cell_record> cells;
  std::vector<recording_record> recordings;
  std::vector<timing_entry> timing;
  std::optional<paired_comparisons_block> comparisons;
};

// Reads, validates and migrates a result set of any version (as
// load_result_document, result_set.hpp, which returns the JSON document) and
// types it: how show, compare, report and the Python module's compare read a
// set. input_error naming the file and the first problem when it is not valid.
result_set load_result_set(const std::string& file);
// Types a valid document (a run's output, a set read by the caller): a
// version 1 to 3 set is migrated to 4 first (migrate_result_set). `file`
// names it in errors. input_error naming the file and the field's JSON path
// when a required field is missing or of the wrong type.
result_set parse_result_set(const nlohmann::json& doc, const std::string& file);
// The version a document says it is ("sdcbench.result/N"), "" when it says
// none: what a caller holding an older document checks before migrating it.
std::string schema_of(const nlohmann::json& doc);
// A record's JSON (cell_record::raw, recording_record::raw) without the axis
// `name`: reproduce compares a re-run's records as the recorded set, which
// predates the axis, would have written them.
void erase_axis(nlohmann::json& raw_record, const std::string& name);

}  // namespace sdc
