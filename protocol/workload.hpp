// A workload is what a campaign runs episodes of. It supplies only its data,
// its kernels, its views and its ground truth: it names its axes, says which
// combinations make no sense (skipped with a reason), states the cell's fault
// plan and episode shape, declares its ground-truth metrics, and makes a
// per-thread episode_runner. The protocol (detectors built, reset, timed and
// fed every step; the fault plan applied through injectors/; verdicts judged
// into outcomes) is the trial driver's (trial_driver.hpp), written once.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "foundation/axis.hpp"
#include "protocol/detector.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/random/streams.hpp"
#include "injectors/fault_axes.hpp"
#include "injectors/inject.hpp"
#include "injectors/site.hpp"
#include "protocol/episode.hpp"

namespace sdc {

// Why a combination of axis values is skipped, and which axis is to blame (a
// value of that axis that is skipped in every cell it appears in is an error).
struct skip_info {
  std::string axis;
  std::string reason;
};

// A workload's typed view of one cell: every axis value parsed once, by its
// own parser, when the suite loads (typed_workload.hpp). Each workload
// derives its own (gemm_cell, training_cell, ...).
struct typed_cell {
  virtual ~typed_cell() = default;
  uint64_t hash = 0;  // the cell's hash (cell::hash): its random streams' id
};

// One point of the axes' Cartesian product.
struct cell {
  size_t index = 0;
  std::vector<std::pair<std::string, std::string>> axes;  // workload axis order
  std::string key;    // "dtype=bf16;distribution=normal(1,1);..."
  uint64_t hash = 0;  // fnv1a64(key): the random streams' cell id
  std::string base_dir;  // folder of the suite file, for relative data paths
  // The clean set this cell's clean episodes belong to (clean_set_id), or
  // empty when the workload draws clean trials per cell: cells naming one set
  // share their clean episodes, run once per campaign and pooled once.
  std::string clean_set;
  // The workload's parse of the axes (workload::parse), set when the suite
  // loads; every entry point of the workload reads this, not the text.
  std::shared_ptr<const typed_cell> typed;
  // An axis value as text, for the workload's parser and for matching a
  // suite's references; std::out_of_range if the cell has no such axis.
  const std::string& at(const std::string& name) const;
  nlohmann::json axes_json() const;
};

// A detector (or recorder) as a suite lists it: which one, its label in
// results, its validated parameters (tolerances still unresolved), and the
// stateful windows wrapped around it (detectors/adapters.hpp).
struct detector_choice {
  const detector_info* info = nullptr;
  std::string label;
  nlohmann::json params;
  nlohmann::json wrap = nlohmann::json::array();
};

using metric_list = std::vector<std::pair<std::string, double>>;

// What the driver injects in an episode of the cell, where and when.
struct fault_plan {
  fault_spec spec;            // model, resolved bits, site rule (injectors/)
  int64_t count = 1;          // faults each time the plan fires
  bool distinct = false;      // count faults at distinct elements (inject_distinct), else independent draws
  step_schedule when;         // steps it fires at (default: every step; one-step episodes: step 0)
  int rank = 0;               // the rank it hits
};
// The plan's schedule in one faulty episode: a uniform(A,B) schedule's step
// drawn from the episode's own stream (seed, cell, trial, rank, purpose
// `when`), so the driver and a runner that needs the step draw the same one.
step_schedule episode_schedule(const fault_plan& p, uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind);

struct episode_shape {
  int ranks = 1;
  int64_t steps = 1;
};

// What a faulty training episode did, read off its loss and validation-loss
// trajectories against clean runs' noise band (the four failure modes of
// LLM-PRISM, 2026, plus masked and non_finite; thresholds in METHODOLOGY.md
// "Outcome labels", the rule in workloads/training/outcome_labels.hpp).
enum class trajectory_label { masked, spike_and_recover, spike_and_degrade, silent_degradation, gradual_drift, non_finite };
inline constexpr int k_trajectory_label_count = 6;
inline const char* trajectory_label_name(trajectory_label l) {
  constexpr const char* names[] = {"masked", "spike_and_recover", "spike_and_degrade", "silent_degradation", "gradual_drift", "non_finite"};
  return names[int(l)];
}

// How much a faulty episode's fault mattered: its significance band and the
// workload's declared ground-truth metrics; where the workload labels
// trajectories, the label and the per-step curves it read (series).
struct episode_truth {
  significance band = significance::masked;
  metric_list metrics;
  std::optional<trajectory_label> label;
  series_list series;
};

// The cell's fault plan, applied from inside a step: for runners whose fault
// sites exist only while the step runs (a training step's activations, its
// gradients before the all-reduce). The driver makes one per step; the runner
// calls apply() where and when its site's tensor exists.
class step_injector {
 public:
  virtual ~step_injector() = default;
  // The plan fires at this step on `rank`.
  virtual bool fires(int rank) const = 0;
  // Injects the plan's faults into t (count, distinct, model, site rule) from
  // the stream (seed, cell, trial, plan rank, step, fault); false when they
  // cannot be applied (the episode is then skipped).
  virtual bool apply(fault_target& t) = 0;
  // A uniform draw on [0, 1) from the same stream (a defective GEMM's probability).
  virtual double uniform01() = 0;
  // What apply() injected so far in this step, in order.
  virtual const std::vector<injection_record>& records() const = 0;
};

// One thread's runner of a cell's episodes. The driver calls, per episode:
// begin; per step: encode_views (detectors encode), run_step, and where the
// plan fires target + faulted; views (detectors observe); after the last step
// truth (faulty episodes), judge (per detector), end.
class episode_runner {
 public:
  virtual ~episode_runner() = default;
  // Makes the episode's clean data; returns its id (equal ids: equal data).
  virtual uint64_t begin(trial_kind kind, uint64_t trial) = 0;
  // The steps before the episode, the same for every episode of the cell (a
  // training run up to the checkpoint it forks from), one view per rank each:
  // detectors observe them after reset to warm up, as in a deployment where
  // they ran all along. No fault lands there and no verdict counts.
  virtual std::vector<std::vector<const step_view*>> history() { return {}; }
  // Clean inputs the detectors encode before step's kernel (one per rank), or none.
  virtual std::vector<const step_view*> encode_views(int64_t /*step*/) { return {}; }
  // Runs the step's kernels on clean data; the seconds they took, or a
  // negative number when the result was reused (no kernel ran).
  virtual double run_step(int64_t step) = 0;
  // Runners whose faults land inside the step say so, and run it with the
  // driver's step_injector instead of run_step + target + faulted.
  virtual bool injects_in_step() const { return false; }
  virtual double run_step_injecting(int64_t step, step_injector&) { return run_step(step); }
  // Of the last step's kernel seconds, those it spent on work a detector
  // asked of it (copies of the GEMMs, parameter hashes, a rerun's saved
  // state, a guard's checks inside the GEMMs): `total` counts each piece of
  // work once, `by_slot[k]` charges detector k with all the work it asked
  // for, as it would cost alone. The driver moves them from the kernel's
  // seconds to the detectors'.
  struct step_work {
    double total = 0;
    std::vector<double> by_slot;  // empty: none
  };
  virtual step_work detector_work() const { return {}; }
  // Where the plan injects at this step on this rank (a writable copy).
  virtual fault_target& target(int64_t step, int rank) = 0;
  // The step's faults were applied: propagate them to what detectors see.
  virtual void faulted(int64_t step, int rank, const std::vector<injection_record>& records) = 0;
  // A fault's true place, in the coordinates a verdict blames.
  virtual location truth_location(const injection_record& r) const { return {-1, r.row, r.col}; }
  // What detectors see at this step, one view per rank.
  virtual std::vector<const step_view*> views(int64_t step) = 0;
  // Ground truth of a faulty episode, after its last step.
  virtual episode_truth truth() = 0;
  // Workload metrics of one detector's deciding verdict (correction quality,
  // false-alarm attribution): beside the detector's own metrics.
  virtual void judge(const verdict&, trial_kind, metric_list&) {}
  // The episode is over: restore any clean state shared across episodes.
  virtual void end() {}
};

class workload {
 public:
  virtual ~workload() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // The kind of view its runners hand detectors: which detectors it can run.
  virtual view_kind view() const = 0;
  virtual const std::vector<axis_def>& axes() const = 0;
  // The cell's axis values typed (typed_workload.hpp), once, when the suite
  // loads: the engine keeps it in cell::typed for every entry point below.
  // A value its parser refuses is a value_error naming the axis.
  virtual std::shared_ptr<const typed_cell> parse(const cell& c) const = 0;
  // nullopt when the cell can run; else why the combination makes no sense.
  virtual std::optional<skip_info> skip_reason(const cell& c) const = 0;
  virtual detector_context context(const cell& c) const = 0;
  // The ground-truth metrics episode_truth fills, by name.
  virtual std::vector<std::string> truth_metrics() const = 0;
  virtual episode_shape shape(const cell&) const { return {}; }
  // The fault axes no clean episode depends on: the fault's site, bit,
  // lifetime, ... change only the faulty episodes, so the cells that differ
  // in them alone share one set of clean episodes (a clean set: run once,
  // stored with its id, pooled once; METHODOLOGY "Clean sets"). Empty (the
  // default): the workload draws its clean trials per cell, from streams of
  // the cell's own, and every cell's clean side is its own.
  virtual std::vector<std::string> clean_set_fault_axes() const { return {}; }
  virtual fault_plan plan(const cell& c) const = 0;
  // `needs`: what each detector (suite order) asks of the workload (detector::needs()).
  virtual std::unique_ptr<episode_runner> make_runner(const cell& c, uint64_t seed,
                                                      const std::vector<detector_needs>& needs) const = 0;
  // What the workload's bits depend on beyond sdcbench's own kernels (the
  // result set's provenance.numerics; null: nothing). Cells of two runs are
  // comparable across CPUs when these match (METHODOLOGY.md).
  virtual nlohmann::json numerics() const { return nullptr; }
  // The input files the cells read beyond the suite (the result set's
  // provenance.inputs: an array of {role, path, bytes, sha256}; null: none).
  virtual nlohmann::json inputs(const std::vector<cell>&) const { return nullptr; }
};

// A clean set's id: NAME=VALUE of every axis of `axes` that is not one of
// `fault_axes`, sorted by name, joined by ';' (result-set-4, "clean_set").
std::string clean_set_id(const std::vector<std::pair<std::string, std::string>>& axes,
                         const std::vector<std::string>& fault_axes);

// The cell's shared fault axes (injectors/fault_axes.hpp): for the parsers.
fault_axes cell_fault_axes(const cell& c, const fault_axis_names& names);

// The plan of a cell's fault axes for a target stored in format f: its spec
// (resolved bits, element rule), count, schedule and rank. value_error when
// the bits do not fit f (skip_reason says so first: fault_spec_for).
fault_plan plan_of(const fault_axes& a, const format& f);


bool register_workload(std::unique_ptr<workload> w);
const workload* find_workload(const std::string& name);
std::vector<const workload*> all_workloads();

}  // namespace sdc
