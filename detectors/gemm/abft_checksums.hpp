// The checksum engine shared by the ABFT threshold policies (vabft, aabft,
// higham, fixed_rel, fixed_abs), after 001_e8c16cbdc32a8eac.txt eqs. (1)-(11).
//
// encode (clean inputs, once per weight matrix): B r1, B r2 (row checksums,
// r1 = ones, r2 = position weights) and c1 A, c2 A (column checksums).
// verify: per row i, D1 = C_i r1 - A_i (B r1) and D2 = C_i r2 - A_i (B r2);
// per column j, the same with c1, c2. A check fails when |D1| exceeds the
// policy's threshold (times `threshold_scale`, for sweeps) or is not finite.
// The worst failing row, and either the worst failing column or the inverse of
// w(j) = D2/D1 (eq. (9)), localize the element; the correction is eq. (10).
//
// Every sum runs sequentially in the accumulator precision T (fp32, or fp64
// for fp64 GEMMs); the reference checksums use FMA. The checks read the stored
// output (point=offline) or the fp32 accumulator before output rounding
// (point=fused), the two verification points of section 3.6.
#pragma once
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"

namespace sdc {

enum class checksum_weights { linear, centred, sinh };
checksum_weights parse_checksum_weights(const std::string& s);
// w(j) for j in [0, n): linear j + 1 (eq. (1)); centred j - (n-1)/2;
// sinh: (n/2) sinh(2x) / sinh(2), x = (2j - (n-1)) / (n-1), steeper at the ends.
double checksum_weight(checksum_weights w, int64_t j, int64_t n);
// The continuous j with w(j) = value (eq. (9)).
double invert_checksum_weight(checksum_weights w, double value, int64_t n);

// A row of A's sum (in fp64), maximum and minimum, as the dispatched kernel
// computes them (foundation/simd/reductions.hpp, sum_max_min).
struct row_stats {
  double sum = 0, max = 0, min = 0;
};

// What a threshold policy sees when it sets a threshold.
template <class T>
struct check_context {
  const gemm_data<T>* d;
  const T* out;                    // the values checked (C or acc)
  const std::vector<T>* row_ref;   // A_i (B r1) per row
  const std::vector<T>* col_ref;   // (c1 A) B_j per column
  bool fused;
  const format* checked_fmt;       // format of the checked values (out_fmt offline, fp32 fused)
  const std::vector<row_stats>* a_rows;  // per row of A, when the policy asks for them (else null)
  bool ref_rounded;                // the reference checksums were rounded to checked_fmt (checksum_rounding: output)
};

// What a policy's thresholds depend on, so incremental verification knows
// which to recompute: row i's on row i of A, column j's on column j of B, and
// either on the checked output. row_stats: the row thresholds read row_stats
// of A, computed in the same read of A as the reference checksums.
struct policy_dependencies {
  bool rows_on_a = false, cols_on_b = false, on_output = false, row_stats = false;
};

// A threshold policy: one class per detector, with
//   template <class T> void encode(const gemm_data<T>& clean);
//   policy_dependencies depends() const;
//   template <class T> double row_threshold(const check_context<T>&, int64_t i);
//   template <class T> double col_threshold(const check_context<T>&, int64_t j);

// How a failing row's faulty column is found: weights (D2/D1, eq. (9)), the
// worst failing column check (classic 2D ABFT), or auto (columns when column
// checks run, else weights).
enum class localize_by { automatic, weights, columns };

struct abft_options {
  checksum_weights weights = checksum_weights::linear;
  localize_by localize = localize_by::automatic;
  bool fused = false;
  bool check_columns = true;
  double threshold_scale = 1.0;
  // Offline only: whether the reference checksums A(B r1) are rounded to the
  // output format, as when the checksum column is part of the encoded GEMM
  // C^f = A^c B^r with low-precision output (001 eqs. (2)-(3), section 3.6:
  // e_max ~ 2u of the output), or kept in the accumulator.
  bool round_reference_to_output = true;
  // Ask the runner for the MPFR-exact verification differences of clean runs
  // (tightness metrics); costs O(MK + KN) MPFR operations per clean trial.
  bool tightness = true;
};

template <class Policy>
class checksum_abft final : public gemm_detector_t<checksum_abft<Policy>> {
 public:
  checksum_abft(abft_options o, Policy p) : o_(o), policy_(std::move(p)) {}
  bool needs_exact_row_errors() const override { return o_.tightness; }
  nlohmann::json explain() const override;

  template <class T>
  void encode_t(const gemm_data<T>& d);
  template <class T>
  verdict verify_t(const gemm_data<T>& d);
  template <class T>
  void baseline_t(const gemm_data<T>& d);
  template <class T>
  verdict verify_change_t(const gemm_data<T>& d, const gemm_change& ch);
  template <class T>
  bool protected_gemm_t(const gemm_data<T>& d, T* C, verdict* v);

 private:
  // Every check's inputs and outcome: reference checksums, sums of the
  // checked values, thresholds.
  template <class T>
  struct checks {
    std::vector<T> row_ref, row_ref2, s1, s2, col_ref, col_ref2, c1;
    std::vector<double> row_T, col_T;
    std::vector<row_stats> a_rows;
  };
  template <class T>
  struct state {
    std::vector<T> br1, br2, ca1, ca2;  // encoded checksums
    std::vector<T> wn, wm;              // position weights w(j), j < n, and w(i), i < m
    checks<T> base, work;               // the clean pair's checks; the checks being patched
  };
  template <class T>
  state<T>& st() {
    if constexpr (std::is_same_v<T, float>) return sf_;
    else return sd_;
  }
  template <class T>
  void row_refs(const gemm_data<T>& d, checks<T>& c, int64_t i);
  template <class T>
  void row_sums(const gemm_data<T>& d, checks<T>& c, int64_t i);
  template <class T>
  void col_refs(const gemm_data<T>& d, checks<T>& c, int64_t j);
  template <class T>
  void col_sums(const gemm_data<T>& d, checks<T>& c, int64_t j);
  template <class T>
  check_context<T> context(const gemm_data<T>& d, const checks<T>& c) const;
  template <class T>
  void compute_all(const gemm_data<T>& d, checks<T>& c);
  template <class T>
  verdict finish(const gemm_data<T>& d, const checks<T>& c) const;
  template <class T>
  void remember(const checks<T>& c);
  template <class T>
  const T* checked(const gemm_data<T>& d) const { return o_.fused ? d.acc : d.C; }

  abft_options o_;
  Policy policy_;
  state<float> sf_;
  state<double> sd_;
  // The last full verification's differences D1 and thresholds (times
  // threshold_scale), per row and column; explain() turns them into JSON
  // only when asked, so verification does not pay for it.
  struct explained {
    std::vector<double> row_diff, row_thr, col_diff, col_thr;
    bool on_output = false, valid = false;
  } last_;
};

// Parameters every checksum-ABFT detector takes, and reading them.
std::vector<param_spec> abft_common_params();
abft_options read_abft_options(const detector_params& p);

}  // namespace sdc

#include "detectors/gemm/abft_checksums_impl.hpp"
#include "detectors/gemm/abft_checksums_fast_impl.hpp"
