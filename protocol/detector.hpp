// What a detector is, and the registry that finds one by (view kind, name).
//
// Every detector is a `detector`: reset at the start of an episode, shown one
// rank's view of each step (protocol/episode.hpp), returning a verdict that
// may blame a location. Families give typed interfaces on top of it, one
// header each: gemm_detector.hpp (GEMM), quantized_detectors.hpp (int8 GEMM,
// EmbeddingBag), sample_detector.hpp (samples of values: gradient log-norms,
// mixtures). The trial driver runs `episode_detector`s: a per-rank test is
// wrapped by per_rank() (adapters.hpp), which blames the rank it fired on.
//
// Add a detector by writing one .cpp (and .hpp if others need the class) in
// this folder and registering it with SDCBENCH_REGISTER_DETECTOR and its typed
// parameter list. See HACKING.md, "Adding a detector".
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "foundation/formats/block_scaled.hpp"
#include "foundation/formats/format.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "protocol/episode.hpp"

namespace sdc {

// One check's answer. score = measured / threshold where the detector has one
// (flagged iff score > 1), so a whole threshold sweep can be read off one run.
// `metrics` are named per-trial numbers (thresholds, tightness, ...;
// not_computed, below, where a detector did not compute one); the engine
// reports their median, mean and max over clean and over faulty trials;
// `series` the same per point of a curve or histogram.
// A detector that localizes a faulty output element reports it in
// `located_row/col` (one of them alone: a row or a column) with the value it
// would write there (`corrected_value`, eq. (10) of 001_e8c16cbdc32a8eac.txt);
// `rank` is the rank it blames (per_rank() sets it). The trial driver judges
// the location against the injection record; the workload judges the
// correction against the exact result. `evidence` carries what a workload's
// ground truth may inspect afterwards (EmbeddingBag: each bag's two sums).
// One point of a series a detector or recorder reports beside its scalar
// metrics: a curve over the episode's steps (over = step) or a histogram
// (over = bin), of all ranks or of one (rank >= 0). Result sets store each
// series as typed arrays (schema 3), never as names to be parsed back.
enum class series_axis { step, bin };
inline const char* series_axis_name(series_axis a) { return a == series_axis::step ? "step" : "bin"; }
struct series_point {
  std::string name;
  series_axis over = series_axis::step;
  int32_t index = 0;
  int32_t rank = -1;  // -1: not one rank's
  double value = 0;
};
using series_list = std::vector<series_point>;

// "Not computed" (issue 66): a score or metric a detector did not compute on
// this step (W1 when the folding test says unimodal, a ratio while its
// reference is still sampling, a window not yet full, a step not checked).
// Result sets, tables and the Python API show it as null, never 0. It is a
// NaN with its own payload, as R's NA is (payload 1954), so it is kept apart
// from a NaN the detector computed from its data (which score_higher ranks
// highest and the summaries count in `nan`) while passing unchanged through
// everything that carries a verdict's doubles: the trial driver, the episode
// codec's msgpack (float64 bits) and journal, and whatever writes NaN as
// null (finite_or_null, the Python monitor). Assign it; never compute with
// it (arithmetic need not keep a NaN's payload). A verdict's score starts
// as not computed: a detector sets it when it computes one.
inline constexpr double not_computed = std::bit_cast<double>(uint64_t(0x7ff8'0000'0000'07a2));  // 1954
inline bool is_not_computed(double x) { return std::bit_cast<uint64_t>(x) == std::bit_cast<uint64_t>(not_computed); }

// What a rerun of a rejected step concluded: Megatron-LM's RerunDiagnostic
// (rerun_state_machine.py: CORRECT_RESULT, TRANSIENT_ERROR, PERSISTENT_ERROR),
// and `undiagnosed` for a non-fatal rejection that reproduced in place and
// continues without a second rerun. Carried beside the verdict (and written
// as the metric rerun_label, its number); the workload judges it against
// what was injected (episode_runner::judge).
enum class rerun_diagnosis : int { none = -1, correct_result = 0, transient_error = 1, persistent_error = 2, undiagnosed = 3 };

struct verdict {
  bool flagged = false;
  double score = not_computed;
  std::vector<std::pair<std::string, double>> metrics;
  int64_t located_row = -1, located_col = -1;
  double corrected_value = std::numeric_limits<double>::quiet_NaN();
  int rank = -1;
  nlohmann::json evidence;  // null unless the detector leaves some
  series_list series;       // curves and histograms (recorders)
  rerun_diagnosis diagnosis = rerun_diagnosis::none;  // a rerun's, when the detector reruns
  location where() const { return {rank, located_row, located_col}; }
};

// Scores compared so that NaN (a detector that saw NaN) ranks above every
// number, and a score not computed below every number: the largest over
// steps (or ranks) is not computed only when none was computed.
inline bool score_higher(double a, double b) {
  if (is_not_computed(a) || is_not_computed(b)) return !is_not_computed(a);
  return std::isnan(a) ? !std::isnan(b) : (!std::isnan(b) && a > b);
}
// The larger of two scores as score_higher ranks them.
inline double higher_score(double a, double b) { return score_higher(b, a) ? b : a; }

// A parameter a detector takes, with its type and default.
//   number:    a JSON number
//   integer:   a JSON integer
//   boolean:   true/false
//   choice:    one of `choices`
//   tolerance: a number, or a string "Ku" = K times the unit roundoff of the
//              cell's output format (so one suite serves bf16 and fp32)
//   number_or: a number, or one of `choices` (e.g. e_max: 8e-3 or "table")
//   text:      any string (a file path)
//   object:    a JSON object (a Python detector's keyword arguments)
struct param_spec {
  enum class type { number, integer, boolean, choice, tolerance, number_or, text, object };
  std::string name;
  type t = type::number;
  nlohmann::json default_value;
  std::string help;
  std::vector<std::string> choices;
};

// What a detector factory is told about the cell it will run in.
// What a GEMM cell is, typed once by the workload (detectors read these, not
// axis strings).
struct gemm_context {
  gemm_shape shape;
  accumulation_order order;
  const block_format* block = nullptr;  // a block-scaled GEMM's format (its checks see the dequantized values in fp32)
};

struct detector_context {
  const format* dtype = nullptr;    // element format of the inputs
  const format* out_fmt = nullptr;  // format the result is stored in
  nlohmann::json axes = nlohmann::json::object();  // the cell's canonical axis values (for recording only)
  std::optional<gemm_context> gemm;  // the gemm workload's cells
};

// What a detector asks of the workload beyond its views, typed: each workload
// serves the fields of its own view kind (the GEMM runner exact_row_errors;
// the int8 GEMM extra_columns; training the rest, training_view.hpp), and a
// detector is registered for one view kind, so it asks only what its
// workload serves.
struct detector_needs {
  bool exact_row_errors = false;  // gemm: C's MPFR-exact row errors
  int extra_columns = 0;          // gemm_int8: checksum columns packed with B
  // training: the linear layers' GEMM records, the attention products'
  // records, a guard inside the GEMMs, a step_recomputer, each rank's
  // reduced gradient, and the replicas' hashes of the model copy or of the
  // fp32 master weights after the optimizer step.
  bool gemms = false, attention_gemms = false, gemm_guard = false, recompute = false, reduced_grads = false;
  enum class hashes { none, model, master } param_hashes = hashes::none;
  // The training fields set, by name ("gemms", "param_hashes", ...): what a
  // monitored PyTorch loop (the Python module), which has none of them, refuses.
  std::vector<std::string> training_fields() const {
    std::vector<std::string> out;
    if (gemms) out.push_back("gemms");
    if (attention_gemms) out.push_back("attention_gemms");
    if (gemm_guard) out.push_back("gemm_guard");
    if (recompute) out.push_back("recompute");
    if (reduced_grads) out.push_back("reduced_grads");
    if (param_hashes != hashes::none) out.push_back("param_hashes");
    return out;
  }
};

// A per-rank test: sees one rank's view at a time.
class detector {
 public:
  virtual ~detector() = default;
  // Start of an episode: drop all verdict state.
  virtual void reset(const episode_context&) {}
  // What the detector asks of the workload (detector_needs).
  virtual detector_needs needs() const { return {}; }
  // Before a step's kernel, on its clean inputs (encoding reused weights);
  // `slot` is the detector's index in the suite (where its encodings go).
  virtual void encode(const step_view&, size_t /*slot*/) {}
  // After the kernel (and any fault): the verdict for this rank and step.
  virtual verdict observe(const step_view& v) = 0;
  // Per-check details of the last verification (thresholds, differences,
  // verdicts), for `sdcbench check-gemm`; null when a detector has none.
  virtual nlohmann::json explain() const { return nullptr; }
};

// What the trial driver runs: sees every rank's view of a step.
class episode_detector {
 public:
  virtual ~episode_detector() = default;
  virtual void reset(const episode_context& e) = 0;
  virtual detector_needs needs() const = 0;
  virtual void encode(const std::vector<const step_view*>& ranks, size_t slot) = 0;
  virtual verdict observe(const std::vector<const step_view*>& ranks) = 0;
};

// Parameters after validation against the spec, defaults filled in, and
// tolerances resolved to numbers for the cell's output format.
class detector_params {
 public:
  detector_params(nlohmann::json values, const format* out_fmt) : v_(std::move(values)), out_(out_fmt) {}
  double number(const std::string& name) const;
  int64_t integer(const std::string& name) const { return v_.at(name).get<int64_t>(); }
  bool boolean(const std::string& name) const { return v_.at(name).get<bool>(); }
  std::string choice(const std::string& name) const { return v_.at(name).get<std::string>(); }
  // number_or parameters: the number, or nullopt when a named choice was given.
  bool is_number(const std::string& name) const { return v_.at(name).is_number(); }
  const nlohmann::json& json() const { return v_; }

 private:
  nlohmann::json v_;
  const format* out_;
};

struct detector_info {
  view_kind view = view_kind::gemm;  // the view it reads; every workload handing that kind can run it
  std::string name;
  std::string summary;   // one line, with the paper/equation it implements
  std::vector<param_spec> params;
  std::function<std::unique_ptr<detector>(const detector_params&, const detector_context&)> make;
  // A recorder never flags: it records metrics (a histogram) and is listed
  // under the suite's "recorders", reported without rates.
  bool recorder = false;
  // Names of per-trial metrics that are the detector's closed-form detection
  // probabilities ("paper_formula_detect", "theory_detect"): `show` prints
  // their means beside the measured rate.
  std::vector<std::string> closed_forms = {};
  // A test across ranks (it sees every rank's view at once); when absent the
  // driver runs `make` per rank through per_rank().
  std::function<std::unique_ptr<episode_detector>(const detector_params&, const detector_context&)> make_episode = {};
};

// The detector as its family's interface; a clear error (naming the detector
// and the interface) instead of an unchecked downcast.
template <class Family>
std::unique_ptr<Family> detector_cast(std::unique_ptr<detector> d, const std::string& name, const char* family) {
  auto* f = dynamic_cast<Family*>(d.get());
  if (!f) throw std::logic_error("detector '" + name + "' is not a " + family + " detector");
  d.release();
  return std::unique_ptr<Family>(f);
}

bool register_detector(detector_info info);
// For a registration that reads other detectors' entries (a wrapper taking a
// family's parameters): runs once, at the first look-up, after every file's
// static registration.
bool register_detector_late(std::function<void()> registration);
const detector_info* find_detector(view_kind view, const std::string& name);
std::vector<const detector_info*> all_detectors();

// Checks `given` (a JSON object) against the spec; throws value_error naming the
// parameter and what was expected. Returns the object with defaults filled in.
nlohmann::json validate_params(const detector_info& info, const nlohmann::json& given);

#define SDCBENCH_CONCAT_INNER(a, b) a##b
#define SDCBENCH_CONCAT(a, b) SDCBENCH_CONCAT_INNER(a, b)
#define SDCBENCH_REGISTER_DETECTOR(...) \
  static const bool SDCBENCH_CONCAT(sdcbench_registered_, __COUNTER__) = ::sdc::register_detector(__VA_ARGS__)

}  // namespace sdc
