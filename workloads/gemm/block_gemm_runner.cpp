// A block-scaled GEMM cell's trials (issue 69; METHODOLOGY "Block-scaled
// GEMM"): fp32 A and B drawn from the distribution, quantized along K (A's
// rows, B's columns), the hardware's product (block_gemm.hpp), the output
// optionally re-quantized along N; a fault in a part of the quantized A or B
// (codes, block scales, tensor scale) recomputes the rows or columns of C it
// feeds. The checks see fp32 values: the inputs their checksums are encoded
// on (the unquantized ones, or the dequantized ones: `encode`) and the output
// checked (the fp32 accumulator, or the re-quantized output: `check_at`).
// Ground truth: the worst changed output element against MPFR's exact
// product of the dequantized clean inputs (gemm_truth.hpp), and how far it
// moved from the fault-free quantized GEMM and from the unquantized one.
#include <algorithm>
#include <cmath>
#include <optional>

#include "foundation/kernels/block_gemm/block_gemm.hpp"
#include "foundation/timing.hpp"
#include "injectors/block_target.hpp"
#include "protocol/views/gemm_view.hpp"
#include "workloads/gemm/gemm_cell.hpp"
#include "workloads/gemm/gemm_runner.hpp"
#include "workloads/gemm/gemm_truth.hpp"

namespace sdc {
namespace {

class block_gemm_runner final : public episode_runner {
 public:
  block_gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs) : g_(g), seed_(seed) {
    for (const auto& n : needs) needs_exact_rows_ |= n.exact_row_errors;
    const auto& s = g_.shape;
    A_.resize(size_t(s.m * s.k)), B_.resize(size_t(s.k * s.n));
    acc_.resize(size_t(s.m * s.n)), C_.resize(acc_.size());
  }

  uint64_t begin(trial_kind kind, uint64_t trial) override {
    kind_ = kind, faulty_ = false;
    rng data = make_stream(seed_, g_.hash, trial, kind, stream_purpose::data);
    for (auto& x : A_) x = float(g_.dist.sample(data));
    for (auto& x : B_) x = float(g_.dist.sample(data));
    const auto& s = g_.shape;
    Aq_ = quantize(A_, s.m, s.k, 1, *g_.block);
    Bq_ = quantize(B_, s.k, s.n, 0, *g_.block);
    Ad_ = dequantize(Aq_), Bd_ = dequantize(Bq_);
    return trial * 4 + uint64_t(kind);
  }

  std::vector<const step_view*> encode_views(int64_t) override {
    enc_.clean = view(enc_a(Ad_), enc_b(Bd_), acc_, C_, &Aq_, &Bq_);
    return {&enc_};
  }

  double run_step(int64_t) override {
    const auto t0 = clock_type::now();
    block_gemm(Aq_, Bq_, acc_.data());
    requantize(acc_, C_);
    return seconds_since(t0);
  }

  fault_target& target(int64_t, int) override {
    Aq2_ = Aq_, Bq2_ = Bq_, acc2_ = acc_, C2_ = C_;
    target_.emplace(g_.target == gemm_target::A ? Aq2_ : Bq2_, g_.part);
    return *target_;
  }

  void faulted(int64_t, int, const std::vector<injection_record>& recs) override {
    rec_ = recs.front();
    faulty_ = true;
    const auto& s = g_.shape;
    const bool a = g_.target == gemm_target::A;
    if (a) Ad2_ = dequantize(Aq2_);
    else Bd2_ = dequantize(Bq2_);
    // A code or block scale of A feeds one row of C, of B one column (B's
    // scales are blocks x n: the fault's column is its column); a tensor scale all of C.
    if (g_.part == block_part::tensor_scale) blk_ = {0, s.m, 0, s.n};
    else if (a) blk_ = {rec_.row, rec_.row + 1, 0, s.n};
    else blk_ = {0, s.m, rec_.col, rec_.col + 1};
    block_gemm_part(Aq2_, Bq2_, acc2_.data(), blk_.r0, blk_.r1, blk_.c0, blk_.c1);
    requantize(acc2_, C2_);
    label();
  }

  location truth_location(const injection_record& r) const override {
    if (g_.part == block_part::tensor_scale) return {-1, -1, -1};
    return g_.target == gemm_target::A ? location{-1, r.row, -1} : location{-1, -1, r.col};
  }

  std::vector<const step_view*> views(int64_t) override {
    step_.clean = view(enc_a(Ad_), enc_b(Bd_), acc_, C_, &Aq_, &Bq_);
    const bool a = g_.target == gemm_target::A;
    step_.checked = faulty_ ? view(enc_a(a ? Ad2_ : Ad_), enc_b(a ? Bd_ : Bd2_), acc2_, C2_, a ? &Aq2_ : &Aq_, a ? &Bq_ : &Bq2_)
                            : step_.clean;
    step_.incremental = false;
    step_.change = a ? gemm_change{gemm_change::kind::a_row, rec_.row, -1} : gemm_change{gemm_change::kind::b_col, -1, rec_.col};
    step_.exact_row_errors = nullptr;
    if (kind_ == trial_kind::clean && needs_exact_rows_) {
      const auto& s = g_.shape;
      row_errors_.resize(size_t(s.m));
      exact_row_check_errors(step_.clean.A, step_.clean.B, step_.clean.C, s.m, s.k, s.n, row_errors_.data());
      step_.exact_row_errors = row_errors_.data();
    }
    return {&step_};
  }

  episode_truth truth() override { return truth_; }
  void judge(const verdict&, trial_kind, metric_list&) override {}

 private:
  // The checksums' inputs: the unquantized fp32 values (before_quant: a
  // fault in the quantized tensors is invisible to them) or the dequantized ones.
  const std::vector<float>& enc_a(const std::vector<float>& deq) const { return g_.encode == encode_point::before_quant ? A_ : deq; }
  const std::vector<float>& enc_b(const std::vector<float>& deq) const { return g_.encode == encode_point::before_quant ? B_ : deq; }
  const std::vector<float>& stored(const std::vector<float>& acc, const std::vector<float>& C) const {
    return g_.out_quant ? C : acc;
  }

  gemm_data<float> view(const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& acc,
                        const std::vector<float>& C, const block_tensor* aq, const block_tensor* bq) const {
    gemm_data<float> d;
    d.dtype = g_.dtype, d.out_fmt = g_.out_fmt, d.shape = g_.shape, d.order = g_.order;
    d.A = A.data(), d.B = B.data(), d.acc = acc.data();
    d.C = g_.check_at == check_point::after_output_quant ? C.data() : acc.data();
    d.a_blocks = aq, d.b_blocks = bq;
    return d;
  }

  // The output re-quantized along N and dequantized (out_quant), else untouched.
  void requantize(const std::vector<float>& acc, std::vector<float>& out) const {
    if (!g_.out_quant) return;
    out = dequantize(quantize(acc, g_.shape.m, g_.shape.n, 1, *g_.out_quant));
  }

  void label() {
    const auto& s = g_.shape;
    const auto& clean = stored(acc_, C_);
    const auto& faulty = stored(acc2_, C2_);
    truth_ = output_significance(fp32(), Ad_.data(), Bd_.data(), clean.data(), faulty.data(), s, blk_);
    // The unquantized GEMM (fp32 inputs, the fixed-order fp32 kernel) over the block the fault could move.
    unq_.resize(acc_.size());
    gemm_run(A_.data(), B_.data(), unq_.data(), s, g_.order);
    double dev_q = 0, err_u = 0, over_q = 0;
    for (int64_t i = blk_.r0; i < blk_.r1; ++i)
      for (int64_t j = blk_.c0; j < blk_.c1; ++j) {
        const size_t x = size_t(i * s.n + j);
        const double c = clean[x], f = faulty[x], u = unq_[x];
        if (c == f && std::signbit(c) == std::signbit(f)) continue;
        // Not finite: the worst (a NaN compares false with every max).
        auto worst = [](double& m, double v) { m = std::isnan(v) ? INFINITY : std::max(m, v); };
        worst(dev_q, std::fabs(f - c) / std::fabs(c));
        worst(err_u, std::fabs(f - u) / std::fabs(u));
        // The fault's distance from the unquantized result over the clean
        // quantized output's own (floored at an fp32 ulp of u, so an exact clean output does not divide by zero).
        worst(over_q, std::fabs(f - u) / std::max(std::fabs(c - u), double(ulp_of(fp32(), u))));
      }
    truth_.metrics.emplace_back("dev_rel_quantized", dev_q);
    truth_.metrics.emplace_back("err_rel_unquantized", err_u);
    truth_.metrics.emplace_back("err_over_quant_error", over_q);
  }

  gemm_cell g_;
  uint64_t seed_;
  bool needs_exact_rows_ = false, faulty_ = false;
  trial_kind kind_ = trial_kind::clean;
  injection_record rec_;
  output_block blk_{0, 0, 0, 0};
  episode_truth truth_;
  std::optional<block_part_target> target_;
  gemm_step<float> enc_, step_;
  std::vector<double> row_errors_;
  block_tensor Aq_, Bq_, Aq2_, Bq2_;
  std::vector<float> A_, B_, Ad_, Bd_, Ad2_, Bd2_, acc_, C_, acc2_, C2_, unq_;
};

}  // namespace

std::unique_ptr<episode_runner> make_block_gemm_runner(const gemm_cell& g, uint64_t seed, const std::vector<detector_needs>& needs) {
  return std::make_unique<block_gemm_runner>(g, seed, needs);
}

}  // namespace sdc
