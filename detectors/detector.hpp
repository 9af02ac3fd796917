// What a detector is, and the registry that finds one by (workload, name).
//
// Add a detector by writing one .hpp/.cpp pair in this folder: implement the
// interface of the workload it guards (gemm_detector below for GEMM) and
// register it with SDCBENCH_REGISTER_DETECTOR and its typed parameter list.
// Nothing else changes: CMake globs this folder, `sdcbench list` shows it, and
// suites name it. See HACKING.md, "Adding a detector".
#pragma once
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/formats/format.hpp"
#include "harness/workloads/gemm_kernels.hpp"
#include "harness/workloads/int8_kernels.hpp"
#include "injectors/fault_model.hpp"

namespace sdc {

// One check's answer. score = measured / threshold where the detector has one
// (flagged iff score > 1), so a whole threshold sweep can be read off one run.
// `metrics` are named per-trial numbers (thresholds, tightness, ...); the engine
// reports their median, mean and max over clean and over faulty trials.
// A detector that localizes a single faulty output element reports it in
// `located_row/col` with the value it would write there (`corrected_value`,
// eq. (10) of 001_e8c16cbdc32a8eac.txt); the runner judges location and
// correction against the injection record and the exact result.
struct verdict {
  bool flagged = false;
  double score = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, double>> metrics;
  int64_t located_row = -1, located_col = -1;
  double corrected_value = std::numeric_limits<double>::quiet_NaN();
};

// A parameter a detector takes, with its type and default.
//   number:    a JSON number
//   integer:   a JSON integer
//   boolean:   true/false
//   choice:    one of `choices`
//   tolerance: a number, or a string "Ku" = K times the unit roundoff of the
//              cell's output format (so one suite serves bf16 and fp32)
//   number_or: a number, or one of `choices` (e.g. e_max: 8e-3 or "table")
//   text:      any string (a file path)
struct param_spec {
  enum class type { number, integer, boolean, choice, tolerance, number_or, text };
  std::string name;
  type t = type::number;
  nlohmann::json default_value;
  std::string help;
  std::vector<std::string> choices;
};

// What a detector factory is told about the cell it will run in.
struct detector_context {
  const format* dtype = nullptr;    // element format of the inputs
  const format* out_fmt = nullptr;  // format the result is stored in
  nlohmann::json axes = nlohmann::json::object();  // the cell's canonical axis values
};

class detector {
 public:
  virtual ~detector() = default;
  // Per-check details of the last verification (thresholds, differences,
  // verdicts), for `sdcbench check-gemm`; null when a detector has none.
  virtual nlohmann::json explain() const { return nullptr; }
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
  std::string workload;  // "gemm", ...
  std::string name;
  std::string summary;   // one line, with the paper/equation it implements
  std::vector<param_spec> params;
  std::function<std::unique_ptr<detector>(const detector_params&, const detector_context&)> make;
};

bool register_detector(detector_info info);
const detector_info* find_detector(const std::string& workload, const std::string& name);
std::vector<const detector_info*> all_detectors();

// Checks `given` (a JSON object) against the spec; throws value_error naming the
// parameter and what was expected. Returns the object with defaults filled in.
nlohmann::json validate_params(const detector_info& info, const nlohmann::json& given);

#define SDCBENCH_CONCAT_INNER(a, b) a##b
#define SDCBENCH_CONCAT(a, b) SDCBENCH_CONCAT_INNER(a, b)
#define SDCBENCH_REGISTER_DETECTOR(...) \
  static const bool SDCBENCH_CONCAT(sdcbench_registered_, __LINE__) = ::sdc::register_detector(__VA_ARGS__)

// ---- GEMM ----------------------------------------------------------------

// What a GEMM detector sees. T is the accumulator type (float, or double for fp64).
template <class T>
struct gemm_data {
  const format* dtype = nullptr;    // inputs' format (values held exactly in T)
  const format* out_fmt = nullptr;  // output format (== dtype here)
  gemm_shape shape;
  accumulation_order order;
  const T* A = nullptr;  // m x k, as the kernel read it
  const T* B = nullptr;  // k x n
  const T* C = nullptr;  // m x n, as stored (rounded to out_fmt)
  const T* acc = nullptr;  // m x n accumulator before output rounding (== C when none)
  // For clean trials when a detector asks for it (needs_exact_row_errors):
  // per row i, |sum_j C_ij (sequential, accumulator precision) - exact(A_i B 1)|
  // with the exact value from MPFR: the actual verification difference that
  // threshold tightness is measured against.
  const double* exact_row_errors = nullptr;
};

// What a fault changed, for incremental verification: one element of C (or
// of the accumulator), a row of A (so row i of C), or a column of B (so column j of C).
struct gemm_change {
  enum class kind { output_element, a_row, b_col };
  kind k = kind::output_element;
  int64_t i = -1, j = -1;
};

class gemm_detector : public detector {
 public:
  virtual bool needs_exact_row_errors() const { return false; }
  // Called once per trial on the clean inputs, before any fault: encoding that
  // a deployment does once for reused weights (checksums of B).
  virtual void encode(const gemm_data<float>& d) = 0;
  virtual void encode(const gemm_data<double>& d) = 0;
  // Called on the (possibly faulty) inputs and output.
  virtual verdict verify(const gemm_data<float>& d) = 0;
  virtual verdict verify(const gemm_data<double>& d) = 0;
  // Incremental verification: `baseline` sees the clean pair once; then
  // `verify_change` sees faulty data that differs from it only where `change`
  // says, and must return exactly what `verify` would. The defaults verify in full.
  virtual void baseline(const gemm_data<float>&) {}
  virtual void baseline(const gemm_data<double>&) {}
  virtual verdict verify_change(const gemm_data<float>& d, const gemm_change&) { return verify(d); }
  virtual verdict verify_change(const gemm_data<double>& d, const gemm_change&) { return verify(d); }
};

// Implements both precisions from one template pair in Derived:
//   template <class T> void encode_t(const gemm_data<T>&);
//   template <class T> verdict verify_t(const gemm_data<T>&);
// and, if Derived verifies incrementally, baseline_t and verify_change_t.
template <class Derived>
class gemm_detector_t : public gemm_detector {
 public:
  void encode(const gemm_data<float>& d) override { self()->encode_t(d); }
  void encode(const gemm_data<double>& d) override { self()->encode_t(d); }
  verdict verify(const gemm_data<float>& d) override { return self()->verify_t(d); }
  verdict verify(const gemm_data<double>& d) override { return self()->verify_t(d); }
  void baseline(const gemm_data<float>& d) override { baseline_any(d); }
  void baseline(const gemm_data<double>& d) override { baseline_any(d); }
  verdict verify_change(const gemm_data<float>& d, const gemm_change& c) override { return change_any(d, c); }
  verdict verify_change(const gemm_data<double>& d, const gemm_change& c) override { return change_any(d, c); }

 private:
  Derived* self() { return static_cast<Derived*>(this); }
  template <class T>
  void baseline_any(const gemm_data<T>& d) {
    if constexpr (requires { self()->baseline_t(d); }) self()->baseline_t(d);
  }
  template <class T>
  verdict change_any(const gemm_data<T>& d, const gemm_change& c) {
    if constexpr (requires { self()->verify_change_t(d, c); }) return self()->verify_change_t(d, c);
    else return self()->verify_t(d);
  }
};

// ---- int8 GEMM (004_0d1fcb03aeacfeeb.txt, Algorithm 1) ---------------------
//
// C' = A x B' with A u8 (m x k) and B' = [B | extra columns] s8: a detector
// that packs checksums with B (section IV-A3) asks for extra columns, fills them
// in `encode`, and finds their products in `extra` beside the data columns of C'.
struct int8_gemm_data {
  int64_t m = 0, n = 0, k = 0;
  const uint8_t* A = nullptr;
  int64_t lda = 0;
  const int8_t* B = nullptr;  // data columns of B', as the GEMM read them
  int64_t ldb = 0;
  const int32_t* C = nullptr;  // data columns of C'
  int64_t ldc = 0;
  const int32_t* extra = nullptr;  // this detector's columns of C' (leading dimension ldc); null without any
};

// The fault a trial injects, for detectors that can state their detection
// probability in closed form (section IV-C): where it lands (target "B" or
// "C", element row/col), the element's clean bits, and the model that changes them.
struct int8_fault_context {
  std::string target;
  int64_t row = -1, col = -1;
  uint64_t old_bits = 0;
  fault_model model;
  std::vector<int> bits;  // resolved: the bit axis, or bitflip_random's field
};

class int8_gemm_detector : public detector {
 public:
  virtual int extra_columns() const { return 0; }
  // Once per weight matrix, on the clean B (k x n): checksums; writes this
  // detector's extra columns into `ext` (k rows, leading dimension ld_ext).
  virtual void encode(const int8_t* B, int64_t k, int64_t n, int64_t ldb, int8_t* ext, int64_t ld_ext) = 0;
  virtual verdict verify(const int8_gemm_data& d) = 0;
  // Named probabilities that this check detects the fault, given the clean data
  // and the fault's site, averaged over the model's random outcome; empty when
  // the detector has no closed form for the model.
  virtual std::vector<std::pair<std::string, double>> detection_theory(const int8_gemm_data&,
                                                                       const int8_fault_context&) const {
    return {};
  }
};

// ---- EmbeddingBag (004, Algorithm 2) ---------------------------------------

struct embedding_bag_data {
  const quantized_table* table = nullptr;  // as the kernel read it; C_T[i] stored with each row
  const bag_batch* batch = nullptr;
  const float* out = nullptr;  // bags x dim
};

// One bag's check: the two sides of eq. (5) as the detector computed them.
struct bag_check {
  double rsum = 0, csum = 0;
  bool flagged = false;
};

class embedding_bag_detector : public detector {
 public:
  virtual verdict verify(const embedding_bag_data& d) = 0;
  // The per-bag sums of the last verify (empty for detectors without them), so
  // the runner can attribute a false alarm to RSum or CSum with MPFR.
  const std::vector<bag_check>& checks() const { return checks_; }

 protected:
  std::vector<bag_check> checks_;
};

// ---- Gradients before a collective (000_60f7924e74842bcb.txt) --------------

// What a gradient detector sees: V = {log ||g_i||} over the vectors the
// device's gradient tensors are cut into (natural log; zero vectors left out).
// An Inf/NaN element makes its entry non-finite; detectors flag that.
struct gradient_data {
  const double* log_norms = nullptr;
  int64_t m = 0;
};

class gradient_detector : public detector {
 public:
  virtual verdict verify(const gradient_data& d) = 0;
};

}  // namespace sdc
