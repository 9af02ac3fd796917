// The quantized GEMM workload of 004_0d1fcb03aeacfeeb.txt: C_temp (int32) =
// A (u8 activations, m x k) x B (s8 weights, k x n) through oneDNN's
// u8s8s32 GEMM (the requantization of Figure 1 stays outside, section IV-B).
//
// Every detector's extra checksum columns are packed with B into one
// B' = [B | extras] (section IV-A3), so one GEMM serves all detectors and each
// sees the same fault. Faults (section VI-B): in B after encoding (memory
// error in the weights; the checksum columns are not hit, as the paper
// assumes) or in the int32 result C; the fault's significance is exact
// (integers): masked when C is unchanged, else small/large by relative change.
//
// Axes: shape (MxKxN), a_distribution, b_distribution, fault, bit, target (B, C), site.
#include <fmt/format.h>

#include <cmath>

#include "foundation/errors.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "foundation/random/distributions.hpp"
#include "foundation/timing.hpp"
#include "injectors/inject.hpp"
#include "protocol/views/quantized_views.hpp"
#include "protocol/typed_workload.hpp"
#include "workloads/quantized/gemm_int8_cell.hpp"

namespace sdc {
namespace {

// Values drawn from a distribution, rounded to the nearest integer and
// saturated to the element type's range (what a quantizer does). A uniform_int
// over exactly 256 consecutive values (the default u8 and s8 ranges) takes the
// 8 bytes of each 64-bit draw: every byte of mt19937_64's output is uniform,
// and the weights of the large shapes are made 8x faster than one draw each.
template <class T>
void fill_saturated(std::vector<T>& v, const distribution& d, rng& g) {
  constexpr double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
  if (d.k == distribution::kind::uniform_int && d.p[1] - d.p[0] == 255 && d.p[0] >= lo && d.p[1] <= hi) {
    const int base = int(d.p[0]);
    for (size_t i = 0; i < v.size(); i += 8) {
      const uint64_t w = g();
      for (size_t b = 0; b < 8 && i + b < v.size(); ++b) v[i + b] = T(base + int((w >> (8 * b)) & 255));
    }
    return;
  }
  for (auto& x : v) x = T(std::clamp(std::nearbyint(d.sample(g)), lo, hi));
}

class int8_runner final : public episode_runner {
 public:
  int8_runner(const int8_cell& g, uint64_t seed, const std::vector<detector_needs>& needs)
      : g_(g), seed_(seed), hash_(g.hash) {
    spec_ = plan_of(g_.faults, target_format(g_)).spec;
    ldb_ = g_.shape.n;
    for (const auto& n : needs) {
      const int cols = n.extra_columns;
      extra_at_.push_back(cols ? ldb_ : -1);
      ldb_ += cols;
    }
    const auto& s = g_.shape;
    A_.resize(size_t(s.m * s.k)), B_.resize(size_t(s.k * s.n));
    Bp_.resize(size_t(s.k * ldb_)), C_.resize(size_t(s.m * ldb_));
  }

  uint64_t begin(trial_kind kind, uint64_t trial) override {
    const auto& s = g_.shape;
    faulty_ = false;
    rng data = make_stream(seed_, hash_, trial, kind, stream_purpose::data);
    fill_saturated(A_, g_.a_dist, data);
    fill_saturated(B_, g_.b_dist, data);
    for (int64_t i = 0; i < s.k; ++i) std::copy_n(B_.data() + i * s.n, s.n, Bp_.data() + i * ldb_);
    return trial * 4 + uint64_t(kind);
  }

  // Every detector packs its checksum columns with B (section IV-A3).
  std::vector<const step_view*> encode_views(int64_t) override {
    const auto& s = g_.shape;
    enc_.B = B_.data(), enc_.k = s.k, enc_.n = s.n, enc_.ldb = s.n, enc_.ld_ext = ldb_;
    enc_.ext.clear();
    for (int64_t at : extra_at_) enc_.ext.push_back(at >= 0 ? Bp_.data() + at : nullptr);
    return {&enc_};
  }

  double run_step(int64_t) override {
    const auto& s = g_.shape;
    const auto t0 = clock_type::now();
    gemm_u8s8s32(s.m, ldb_, s.k, A_.data(), s.k, Bp_.data(), ldb_, C_.data(), ldb_);
    return seconds_since(t0);
  }

  // The data part of B' (after encoding: the checksum columns are not hit, as
  // the paper assumes) or of the int32 C', in a copy.
  fault_target& target(int64_t, int) override {
    const auto& s = g_.shape;
    if (g_.target == int8_target::B) {
      Bp2_ = Bp_;
      target_.emplace(tensor_view{&s8(), Bp2_.data(), s.k, s.n, ldb_});
    } else {
      C2_ = C_;
      target_.emplace(tensor_view{&s32(), C2_.data(), s.m, s.n, ldb_});
    }
    return *target_;
  }

  void faulted(int64_t, int, const std::vector<injection_record>& recs) override {
    const auto& s = g_.shape;
    const injection_record& rec = recs.front();
    if (g_.target == int8_target::B) {
      C2_.resize(C_.size());
      gemm_u8s8s32(s.m, ldb_, s.k, A_.data(), s.k, Bp2_.data(), ldb_, C2_.data(), ldb_);
    }
    fctx_ = {g_.target, rec.row, rec.col, rec.old_bits, spec_.model, spec_.bits};
    faulty_ = true;
    label_significance();
  }

  std::vector<const step_view*> views(int64_t) override {
    const auto& s = g_.shape;
    const int32_t* C = faulty_ ? C2_.data() : C_.data();
    const int8_t* B = (faulty_ && g_.target == int8_target::B ? Bp2_ : Bp_).data();
    step_.checked.clear(), step_.clean.clear();
    for (int64_t at : extra_at_) {
      step_.checked.push_back({s.m, s.n, s.k, A_.data(), s.k, B, ldb_, C, ldb_, at >= 0 ? C + at : nullptr});
      step_.clean.push_back({s.m, s.n, s.k, A_.data(), s.k, Bp_.data(), ldb_, C_.data(), ldb_, at >= 0 ? C_.data() + at : nullptr});
    }
    step_.fault = faulty_ ? &fctx_ : nullptr;
    return {&step_};
  }

  episode_truth truth() override { return truth_; }

 private:
  // Integers are exact: the fault's error is the change of C itself.
  void label_significance() {
    const auto& s = g_.shape;
    episode_truth r;
    double max_diff = 0, max_rel = 0;
    for (int64_t i = 0; i < s.m; ++i)
      for (int64_t j = 0; j < s.n; ++j) {
        const size_t idx = size_t(i * ldb_ + j);
        if (C_[idx] == C2_[idx]) continue;
        const double diff = std::fabs(double(C2_[idx]) - double(C_[idx]));
        const double rel = diff / std::max(1.0, std::fabs(double(C_[idx])));
        max_diff = std::max(max_diff, diff);
        max_rel = std::max(max_rel, rel);
        const significance b = rel > 1e-3 ? significance::large : significance::small;
        if (int(b) > int(r.band)) r.band = b;
      }
    r.metrics = {{"int_diff", max_diff}, {"rel_diff", max_rel}};
    truth_ = r;
  }

  int8_cell g_;
  uint64_t seed_, hash_;
  fault_spec spec_;
  int64_t ldb_ = 0;                 // columns of B' and C': n + all detectors' extra columns
  std::vector<int64_t> extra_at_;   // first extra column of each detector (-1: none)
  bool faulty_ = false;
  int8_fault_context fctx_;
  episode_truth truth_;
  std::optional<tensor_target> target_;
  int8_encode_step enc_;
  int8_gemm_step step_;
  std::vector<uint8_t> A_;
  std::vector<int8_t> B_, Bp_, Bp2_;
  std::vector<int32_t> C_, C2_;
};

class gemm_int8_workload final : public typed_workload<int8_cell> {
 public:
  gemm_int8_workload() {
    auto simple = [](auto parse) { return [parse](const std::string& v, const std::string&) { return parse(v); }; };
    auto dist = [](const std::string& v, const std::string& dir) { return parse_distribution(v, dir).text(); };
    axes_ = {
        {"shape", "MxKxN: A is MxK (u8), B is KxN (s8); 004 writes shapes as (m, n, k)", {"64x512x256"},
         simple([](const std::string& v) { return parse_gemm_shape(v).text(); })},
        {"a_distribution", "A's values (rounded, saturated to u8): uniform_int(0,255), sparse_int(p0,a,b), ...",
         {"uniform_int(0,255)"}, dist},
        {"b_distribution", "B's values (rounded, saturated to s8)", {"uniform_int(-128,127)"}, dist},
        fault_axis({"bitflip_random(1,all)"}),
        bit_axis("int8 B takes bits 0-7, int32 C bits 0-31", {"none"}),
        {"target", "where the fault lands: B (weights, after encoding) or C (int32 result)", {"B"},
         simple([](const std::string& v) { return parse_int8_target(v) == int8_target::B ? std::string("B") : std::string("C"); })},
        element_axis("site", false, {"uniform"}),
    };
  }
  std::string name() const override { return "gemm_int8"; }
  view_kind view() const override { return view_kind::int8_gemm; }
  std::string summary() const override { return "C (int32) = A (u8) x B (s8), oneDNN u8s8s32 GEMM (004)"; }
  const std::vector<axis_def>& axes() const override { return axes_; }

  int8_cell parse_cell(const cell& c) const override { return parse_int8_cell(c); }

  std::optional<skip_info> skip(const int8_cell& g) const override {
    std::string why, axis;
    if (!fault_spec_for(g.faults, target_format(g), &why, &axis)) return skip_info{axis, why};
    const int64_t rows = g.target == int8_target::B ? g.shape.k : g.shape.m;
    if (auto w = g.faults.element.check(rows, g.shape.n); !w.empty()) return skip_info{"site", w};
    if (g.shape.k * 255 * 128 > int64_t(INT32_MAX))
      return skip_info{"shape", fmt::format("K = {} can overflow the int32 result (K * 255 * 128 > 2^31 - 1)", g.shape.k)};
    return std::nullopt;
  }

  detector_context context_of(const int8_cell&) const override { return {&s8(), &s32()}; }
  std::vector<std::string> truth_metrics() const override { return {"int_diff", "rel_diff"}; }
  fault_plan plan_for(const int8_cell& g) const override { return plan_of(g.faults, target_format(g)); }
  std::unique_ptr<episode_runner> runner(const int8_cell& g, uint64_t seed,
                                         const std::vector<detector_needs>& needs) const override {
    return std::make_unique<int8_runner>(g, seed, needs);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool gemm_int8_workload_registered = register_workload(std::make_unique<gemm_int8_workload>());

}  // namespace
}  // namespace sdc
