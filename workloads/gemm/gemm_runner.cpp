// The GEMM workload's trials (gemm_runner.hpp): a pair of matrices, the
// kernel, the fault in a copy of its target, the views detectors see, and the
// ground truth of the changed outputs against MPFR.
#include "workloads/gemm/gemm_runner.hpp"

#include <cmath>
#include <limits>
#include <optional>

#include "foundation/timing.hpp"
#include "injectors/inject.hpp"
#include "protocol/views/gemm_view.hpp"
#include "workloads/gemm/gemm_cell.hpp"
#include "workloads/gemm/gemm_truth.hpp"

namespace sdc {
namespace {

template <class T>
class gemm_runner final : public episode_runner {
 public:
  gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs)
      : g_(g), seed_(seed), hash_(g.hash) {
    for (const auto& n : needs) needs_exact_rows_ |= n.exact_row_errors;
    const auto& s = g_.shape;
    A_.resize(size_t(s.m * s.k)), B_.resize(size_t(s.k * s.n));
    acc_.resize(size_t(s.m * s.n)), C_.resize(acc_.size());
    rounds_ = g_.out_fmt->bits != int(sizeof(T) * 8);
    incremental_ = g_.faults_per_pair > 1;
  }

  // Faulty trial t uses matrix pair t / faults_per_pair (its data stream is
  // keyed by the pair, its fault stream by the trial); each clean trial its own
  // pair. A pair already in this runner is reused: the results do not depend
  // on which thread ran which trial.
  uint64_t begin(trial_kind kind, uint64_t trial) override {
    kind_ = kind, faulty_ = false;
    const uint64_t pair = kind == trial_kind::faulty ? trial / uint64_t(g_.faults_per_pair) : trial;
    new_pair_ = !(have_pair_ && pair_kind_ == kind && pair_ == pair);
    if (new_pair_) {
      rng data = make_stream(seed_, hash_, pair, kind, stream_purpose::data);
      fill(A_, data);
      if (g_.weights)
        for (size_t i = 0; i < B_.size(); ++i) B_[i] = round_into<T>(*g_.dtype, g_.weights->values[i]);
      else
        fill(B_, data);
      have_pair_ = true, pair_kind_ = kind, pair_ = pair;
    }
    return pair * 4 + uint64_t(kind);
  }

  std::vector<const step_view*> encode_views(int64_t) override {
    if (!new_pair_) return {};
    enc_.clean = view(A_.data(), B_.data(), acc_.data(), C_.data());
    return {&enc_};
  }

  double run_step(int64_t) override {
    if (!new_pair_) return -1;
    new_pair_ = false;
    const auto t0 = clock_type::now();
    gemm_run(A_.data(), B_.data(), acc_.data(), g_.shape, g_.order);
    round_output(acc_, C_);
    return seconds_since(t0);
  }

  fault_target& target(int64_t, int) override {
    const auto& s = g_.shape;
    acc2_ = acc_, C2_ = C_;
    if (g_.target == gemm_target::A || g_.target == gemm_target::B) {
      auto& dst = g_.target == gemm_target::A ? A2_ : B2_;
      dst = g_.target == gemm_target::A ? A_ : B_;
      const auto [rows, cols] = target_dims(g_);
      target_.emplace(tensor_view{g_.dtype, dst.data(), rows, cols});
    } else if (g_.target == gemm_target::C) {
      target_.emplace(tensor_view{g_.out_fmt, (rounds_ ? C2_ : acc2_).data(), s.m, s.n});
    } else {  // acc: the fp32 accumulator before output rounding
      target_.emplace(tensor_view{&fp32(), acc2_.data(), s.m, s.n});
    }
    return *target_;
  }

  void faulted(int64_t, int, const std::vector<injection_record>& recs) override {
    rec_ = recs.front();
    faulty_ = true;
    propagate(rec_);
    label_significance(rec_);
  }

  location truth_location(const injection_record& r) const override {
    if (g_.target == gemm_target::A) return {-1, r.row, -1};  // row i of C
    if (g_.target == gemm_target::B) return {-1, -1, r.col};  // column j of C
    return {-1, r.row, r.col};
  }

  std::vector<const step_view*> views(int64_t) override {
    step_.clean = view(A_.data(), B_.data(), acc_.data(), C_.data());
    step_.checked = faulty_ ? view(g_.target == gemm_target::A ? A2_.data() : A_.data(),
                                   g_.target == gemm_target::B ? B2_.data() : B_.data(), acc2_.data(), C2_.data())
                            : step_.clean;
    step_.incremental = faulty_ && incremental_;
    if (g_.target == gemm_target::A) step_.change = {gemm_change::kind::a_row, rec_.row, -1};
    else if (g_.target == gemm_target::B) step_.change = {gemm_change::kind::b_col, -1, rec_.col};
    else step_.change = {gemm_change::kind::output_element, rec_.row, rec_.col};
    step_.exact_row_errors = nullptr;
    if (kind_ == trial_kind::clean && needs_exact_rows_) {
      // The MPFR ground truth, once per step and here, outside the detectors'
      // timed observe (it had been computed inside it, once per detector,
      // and charged to the campaign's overhead column).
      const auto& s = g_.shape;
      row_errors_.resize(size_t(s.m));
      exact_row_check_errors(A_.data(), B_.data(), rounds_ ? C_.data() : acc_.data(), s.m, s.k, s.n, row_errors_.data());
      step_.exact_row_errors = row_errors_.data();
    }
    return {&step_};
  }

  episode_truth truth() override { return truth_; }

  void judge(const verdict& v, trial_kind kind, metric_list& out) override {
    if (kind == trial_kind::faulty && (g_.target == gemm_target::C || g_.target == gemm_target::acc) && v.flagged &&
        v.located_row >= 0)
      judge_correction(rec_, v, out);
  }

 private:
  gemm_data<T> view(const T* A, const T* B, const T* acc, const T* C) const {
    gemm_data<T> d;
    d.dtype = g_.dtype, d.out_fmt = g_.out_fmt, d.shape = g_.shape, d.order = g_.order;
    d.A = A, d.B = B, d.acc = acc, d.C = rounds_ ? C : acc;
    return d;
  }

  void fill(std::vector<T>& v, rng& g) const {
    for (auto& x : v) x = round_into<T>(*g_.dtype, g_.dist.sample(g));
  }

  void round_output(const std::vector<T>& acc, std::vector<T>& out) const {
    if (!rounds_) return;
    if constexpr (std::is_same_v<T, float>) {
      if (g_.out_fmt == &bf16()) {
        for (size_t i = 0; i < acc.size(); ++i) out[i] = fp32_from_bf16(bf16_from_fp32(acc[i]));
        return;
      }
      if (g_.out_fmt == &fp16()) {
        for (size_t i = 0; i < acc.size(); ++i) out[i] = fp32_from_fp16(fp16_from_fp32(acc[i]));
        return;
      }
    }
    for (size_t i = 0; i < acc.size(); ++i) out[i] = T(round_to(*g_.out_fmt, double(acc[i])));
  }

  // What the fault changed, propagated to the output: a fault in A or B
  // recomputes the row or column of C it feeds; one in acc is rounded into C.
  void propagate(const injection_record& rec) {
    const auto& s = g_.shape;
    if (g_.target == gemm_target::A || g_.target == gemm_target::B) {
      const T* a = g_.target == gemm_target::A ? A2_.data() : A_.data();
      const T* b = g_.target == gemm_target::B ? B2_.data() : B_.data();
      if (g_.order.k == accumulation_order::kind::openblas) {
        gemm_run(a, b, acc2_.data(), s, g_.order);  // OpenBLAS's order is unknown: recompute it all
        round_output(acc2_, C2_);
      } else if (g_.target == gemm_target::A) {
        // Only row i of C depends on A[i][k]; the fixed order makes the
        // recomputed elements bit-identical to a full recompute (tested).
        gemm_row_fixed_order(a, b, acc2_.data(), s, g_.order, rec.row);
        for (int64_t j = 0; j < s.n; ++j) round_element(rec.row, j);
      } else {
        gemm_col_fixed_order(a, b, acc2_.data(), s, g_.order, rec.col);
        for (int64_t i = 0; i < s.m; ++i) round_element(i, rec.col);
      }
    } else if (g_.target == gemm_target::acc) {
      round_output(acc2_, C2_);
    }
  }

  void round_element(int64_t i, int64_t j) {
    const size_t idx = size_t(i * g_.shape.n + j);
    if (rounds_) C2_[idx] = round_into<T>(*g_.out_fmt, double(acc2_[idx]));
  }

  // Worst significance over the output elements the fault changed, against
  // the exact (MPFR) result of the clean inputs (gemm_truth.hpp).
  void label_significance(const injection_record& rec) {
    const auto& s = g_.shape;
    int64_t r0 = 0, r1 = s.m, c0 = 0, c1 = s.n;
    if (g_.target == gemm_target::A) r0 = rec.row, r1 = rec.row + 1;
    else if (g_.target == gemm_target::B) c0 = rec.col, c1 = rec.col + 1;
    else r0 = rec.row, r1 = rec.row + 1, c0 = rec.col, c1 = rec.col + 1;
    truth_ = output_significance(*g_.out_fmt, A_.data(), B_.data(), (rounds_ ? C_ : acc_).data(), (rounds_ ? C2_ : acc2_).data(),
                                 s, {r0, r1, c0, c1});
  }

  // A located single-element fault's proposed correction (eq. (10) of 001),
  // judged against the exact result (gemm_truth.hpp).
  void judge_correction(const injection_record& rec, const verdict& v, metric_list& out) {
    if (v.located_row != rec.row || v.located_col != rec.col || !std::isfinite(v.corrected_value)) return;
    const size_t idx = size_t(rec.row * g_.shape.n + rec.col);
    // A fused check corrects the accumulator, which is then rounded like the output.
    const double corrected = rounds_ ? round_to(*g_.out_fmt, v.corrected_value) : v.corrected_value;
    judge_element_correction(*g_.out_fmt, rounds_, A_.data(), B_.data(), g_.shape, rec.row, rec.col,
                             double((rounds_ ? C_ : acc_)[idx]), corrected, out);
  }

  gemm_cell g_;
  bool incremental_ = false;  // patch the clean pair's checks (tested bit-identical to full verification)
  bool have_pair_ = false, new_pair_ = false, faulty_ = false;
  trial_kind kind_ = trial_kind::clean;
  injection_record rec_;
  episode_truth truth_;
  std::optional<tensor_target> target_;
  gemm_step<T> enc_, step_;
  trial_kind pair_kind_ = trial_kind::clean;
  uint64_t pair_ = 0;
  bool needs_exact_rows_ = false;
  std::vector<double> row_errors_;
  uint64_t seed_, hash_;
  bool rounds_ = false;
  std::vector<T> A_, B_, acc_, C_, A2_, B2_, acc2_, C2_;
};

}  // namespace

std::unique_ptr<episode_runner> make_gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs) {
  if (g.dtype == &fp64()) return std::make_unique<gemm_runner<double>>(g, seed, needs);
  return std::make_unique<gemm_runner<float>>(g, seed, needs);
}

}  // namespace sdc
