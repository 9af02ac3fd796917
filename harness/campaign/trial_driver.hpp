// The trial driver: the one protocol every workload's episodes run through.
// Built once per (thread, cell): it builds the suite's detectors and recorders
// (each per-rank test wrapped by per_rank(), then any windows), and a runner
// of the workload. run() plays one episode: reset every detector, then per
// step let them encode the clean inputs, run the kernels, apply the cell's
// fault plan through injectors/ with the stream (seed, cell, trial, rank,
// step, fault), feed every detector every rank's view and time it, and judge
// each detector's episode into one outcome of a closed set.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/workload.hpp"

namespace sdc {

// The closed set of ways an episode ends, per detector.
enum class outcome {
  detected_right_location,  // flagged at or after the fault, blaming where the fault is
  detected_wrong_location,  // flagged at or after the fault, blaming another place
  detected_unlocated,       // flagged at or after the fault, blaming no place
  missed,                   // a faulty episode never flagged after its fault
  false_alarm,              // a clean episode flagged at some step
  clean_pass,               // a clean episode never flagged
  skipped                   // the fault could not be applied: no episode
};
inline constexpr int k_outcome_count = 7;
const char* outcome_name(outcome o);
inline bool is_detection(outcome o) { return o == outcome::detected_right_location || o == outcome::detected_wrong_location || o == outcome::detected_unlocated; }

// One detector's episode.
struct detector_episode {
  outcome result = outcome::clean_pass;
  double score = 0;             // faulty: the deciding step's score; clean: the largest over steps
  int64_t latency = -1;         // steps from the first fault to the detection
  int64_t flagged_steps = 0;    // steps it flagged (clean episodes: false alarms per step)
  int64_t early_flags = 0;      // faulty episodes: flags before the first fault
  metric_list metrics;          // the detector's own, from the deciding (or last) step
  metric_list judged;           // the workload's judgement of that verdict
  series_list series;           // the detector's curves, from the same step
  double seconds = 0;           // encode + observe, all steps and ranks
};

// How one detector's verdicts over an episode's steps become its
// detector_episode, as every campaign scores them (the trial driver, and
// sdcbench's Python monitor, python/bind_monitor.cpp): on a clean episode
// each flagged step is a false alarm and the score is the highest; on a
// faulty one flags before the first fault are early, and the first flag at
// or after it decides the outcome by whether the place it blames matches a
// fault's (`truths`).
class detector_scoring {
 public:
  explicit detector_scoring(bool faulty) : faulty_(faulty) {}
  // `first_fault`: the step of the episode's first fault, -1 before it.
  void step(detector_episode& de, verdict v, int64_t step, int64_t first_fault, const std::vector<location>& truths);
  // After the last step: the outcome of an undecided episode, and the
  // deciding (or last) step's metrics and series.
  void finish(detector_episode& de);
  verdict& deciding() { return deciding_; }

 private:
  bool faulty_, decided_ = false;
  verdict deciding_;
};

// A recorder's episode: its last step's metrics and series (the whole curves).
struct recording {
  metric_list metrics;
  series_list series;
};

struct episode_result {
  bool skipped = false;
  std::string skip_reason;
  int64_t steps = 0;
  episode_truth truth;                      // faulty episodes
  std::vector<detector_episode> detectors;  // suite order
  std::vector<recording> recordings;        // per recorder
  double kernel_seconds = 0;
  bool kernel_ran = false;
  // A clean episode of the cell's clean set that ran in another cell
  // (clean_sets.hpp): its results are that run's, its seconds not this cell's.
  bool shared = false;
};

class trial_driver {
 public:
  trial_driver(const workload& w, const cell& c, const std::vector<detector_choice>& detectors,
               const std::vector<detector_choice>& recorders, uint64_t seed);
  ~trial_driver();
  episode_result run(trial_kind kind, uint64_t trial);

 private:
  const cell& cell_;
  uint64_t seed_;
  episode_shape shape_;
  fault_plan plan_;
  std::vector<std::unique_ptr<episode_detector>> detectors_, recorders_;
  std::unique_ptr<episode_runner> runner_;
};

// A detector as the driver runs it: built for the cell's context, per rank,
// inside its windows. value_error on a bad parameter.
std::unique_ptr<episode_detector> build_episode_detector(const detector_choice& d, const detector_context& ctx);

}  // namespace sdc
