// The gradient workload of 000_60f7924e74842bcb.txt: one device's gradient
// tensors before a collective, cut into vectors whose log-norms
// V = {log ||g_i||} the detectors test (Algorithm 1).
//
// Tensors: synthetic (`tensors` tensors of `shape`, values from
// `distribution`: log_magnitude(mu,sigma) = sign * 2^N(mu, sigma^2) as in
// Table 3, normal(0,1) as in Figure 2, ...), or read from a file: `source`
// file(PATH) (.npy), file(PATH#NAME) (one .safetensors tensor) or
// file(PATH#*) (every tensor of a .safetensors file). Values are rounded to
// `dtype` (bf16, fp16, fp32) and held exactly in float.
// Split (`split`, the paper leaves it open): per_tensor, per_row (the last
// dimension is a row), or block(N) (consecutive N elements, the last block
// shorter). Zero vectors have no log-norm and are left out of V.
// Faults: `fault_count` elements, each drawn uniformly over all elements of all
// tensors, changed by the fault model (the paper's type-1/2/3 are bitflip with
// bit exp1/exp2/exp3). Trials of one data set (`faults_per_pair`) share the
// clean tensors; each fault recomputes only the vectors it touched (with the
// same kernel, so V equals a full recompute bit for bit).
// Significance: the worst change of a touched vector's norm: masked if V is
// unchanged, small if |norm'/norm - 1| <= 1e-3, large otherwise (or non-finite);
// ground-truth metrics log_norm_shift (|change of log-norm|) and norm_rel_change.
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>

#include "foundation/errors.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"
#include "foundation/random/distributions.hpp"
#include "foundation/timing.hpp"
#include "injectors/inject.hpp"
#include "injectors/tensor_view.hpp"
#include "protocol/views/sample_view.hpp"
#include "protocol/typed_workload.hpp"
#include "workloads/gradient/gradient_cell.hpp"

namespace sdc {
namespace {

struct vector_ref {
  int64_t tensor, offset, length;
};

class gradient_runner final : public episode_runner {
 public:
  gradient_runner(const grad_cell& g, uint64_t seed) : g_(g), seed_(seed), hash_(g.hash) {
    // Tensor shapes and the vectors they are cut into.
    if (g_.file) {
      for (const auto& t : *g_.file) shapes_.push_back(t.shape.empty() ? std::vector<int64_t>{1} : t.shape);
    } else {
      for (int64_t t = 0; t < g_.tensors; ++t) shapes_.push_back(g_.shape);
    }
    std::vector<tensor_view> views;
    for (size_t t = 0; t < shapes_.size(); ++t) {
      int64_t n = 1;
      for (int64_t d : shapes_[t]) n *= d;
      data_.emplace_back(static_cast<size_t>(n));
      const int64_t len = vector_length(g_.split, n, shapes_[t].back());
      for (int64_t o = 0; o < n; o += len) vectors_.push_back({int64_t(t), o, std::min(len, n - o)});
      first_vector_.push_back(int64_t(vectors_.size()));  // one past this tensor's last vector
    }
    for (auto& x : data_) views.push_back({g_.dtype, x.data(), 1, int64_t(x.size())});
    all_ = std::make_unique<tensor_list_target>(std::move(views));
    undo_ = std::make_unique<undo_log_target>(*all_);
  }

  // Trials of one data set (faults_per_pair) share the clean tensors.
  uint64_t begin(trial_kind kind, uint64_t trial) override {
    faulty_ = false;
    const uint64_t pair = kind == trial_kind::faulty ? trial / uint64_t(g_.faults_per_pair) : trial;
    new_pair_ = !(have_pair_ && pair_kind_ == kind && pair_ == pair);
    if (new_pair_) {
      rng data = make_stream(seed_, hash_, pair, kind, stream_purpose::data);
      for (size_t t = 0; t < data_.size(); ++t) {
        auto& x = data_[t];
        if (g_.file) {
          const auto& src = (*g_.file)[t].values;
          for (size_t i = 0; i < x.size(); ++i) x[i] = round_into<float>(*g_.dtype, src[i]);
        } else {
          for (auto& v : x) v = round_into<float>(*g_.dtype, g_.dist.sample(data));
        }
      }
      have_pair_ = true, pair_kind_ = kind, pair_ = pair;
    }
    return pair * 4 + uint64_t(kind);
  }

  // The log-norm pass (000 Algorithm 1's first step) on a new data set.
  double run_step(int64_t) override {
    double seconds = -1;
    if (new_pair_) {
      const auto t0 = clock_type::now();
      clean_v_.resize(vectors_.size());
      for (size_t i = 0; i < vectors_.size(); ++i) clean_v_[i] = log_norm(vectors_[i]);
      seconds = seconds_since(t0);
      new_pair_ = false;
    }
    v_ = clean_v_;
    return seconds;
  }

  // An element uniform over all elements of all tensors (in place; end() restores).
  fault_target& target(int64_t, int) override { return *undo_; }

  // Each fault recomputes only the vector it touched (with the same kernel,
  // so V equals a full recompute bit for bit).
  void faulted(int64_t, int, const std::vector<injection_record>& recs) override {
    faulty_ = true;
    std::vector<int64_t> touched;
    for (const auto& r : recs) {
      const auto [t, e] = all_->locate(r.index);
      touched.push_back(vector_of(int64_t(t), e));
    }
    for (int64_t i : touched) v_[size_t(i)] = log_norm(vectors_[size_t(i)]);
    label_significance(touched);
  }

  location truth_location(const injection_record&) const override { return {}; }

  std::vector<const step_view*> views(int64_t) override {
    // V without zero vectors (no log-norm).
    compact_.clear();
    for (double x : v_)
      if (x != -INFINITY) compact_.push_back(x);
    step_.data = {compact_.data(), int64_t(compact_.size())};
    return {&step_};
  }

  episode_truth truth() override { return truth_; }
  void end() override { undo_->restore(); }

 private:
  double log_norm(const vector_ref& v) const { return log_norm_fast(data_[size_t(v.tensor)].data() + v.offset, v.length); }

  int64_t vector_of(int64_t t, int64_t e) const {
    const int64_t base = t == 0 ? 0 : first_vector_[size_t(t - 1)];
    const int64_t len = vectors_[size_t(base)].length;  // every vector of a tensor but its last has this length
    return base + e / len;
  }

  void label_significance(const std::vector<int64_t>& touched) {
    episode_truth r;
    double rel_max = 0, shift_max = 0;
    for (int64_t i : touched) {
      const double a = clean_v_[size_t(i)], b = v_[size_t(i)];
      if (a == b || (std::isnan(a) && std::isnan(b))) continue;
      const double rel = std::isfinite(b) ? std::fabs(std::expm1(b - a)) : INFINITY;
      const significance band = rel <= k_small_fault_rel ? significance::small : significance::large;
      if (int(band) > int(r.band)) r.band = band;
      rel_max = std::max(rel_max, std::isfinite(rel) ? rel : 1e300);
      shift_max = std::max(shift_max, std::isfinite(b) ? std::fabs(b - a) : 1e300);
    }
    r.metrics = {{"log_norm_shift", shift_max}, {"norm_rel_change", rel_max}};
    truth_ = r;
  }

  grad_cell g_;
  uint64_t seed_, hash_;
  std::vector<std::vector<int64_t>> shapes_;
  std::vector<std::vector<float>> data_;
  std::vector<vector_ref> vectors_;
  std::vector<int64_t> first_vector_;
  std::unique_ptr<tensor_list_target> all_;
  std::unique_ptr<undo_log_target> undo_;
  bool have_pair_ = false, new_pair_ = false, faulty_ = false;
  episode_truth truth_;
  sample_step step_;
  trial_kind pair_kind_ = trial_kind::clean;
  uint64_t pair_ = 0;
  std::vector<double> clean_v_, v_, compact_;
};

class gradient_workload final : public typed_workload<grad_cell> {
 public:
  gradient_workload() {
    auto simple = [](auto parse) { return [parse](const std::string& v, const std::string&) { return parse(v); }; };
    axes_ = {
        {"dtype", "element format of the gradients: bf16, fp16, fp32", {"bf16"},
         simple([](const std::string& v) { return std::string(format_by_name(v).name); })},
        {"source", "synthetic, or file(PATH) (.npy), file(PATH#TENSOR), file(PATH#*) (.safetensors)", {"synthetic"},
         [](const std::string& v, const std::string& dir) {
           if (v != "synthetic") load_gradient_source(v, dir);  // fails early on a bad file
           return v;
         }},
        {"shape", "shape of each synthetic tensor, D1xD2x... (the last dimension is a row); file for a file source",
         {"2560x2560"}, simple([](const std::string& v) {
           if (v == "file") return v;
           const auto d = parse_dims(v);
           std::string s;
           for (auto x : d) {
             if (!s.empty()) s += 'x';
             s += std::to_string(x);
           }
           return s;
         })},
        {"tensors", "number of synthetic tensors of that shape", {"1"},
         simple([](const std::string& v) { return std::to_string(parse_integer_at_least(v, 1, "tensors")); })},
        {"distribution", "synthetic values: log_magnitude(mu,sigma) (sign * 2^N(mu, sigma^2), 000 Table 3), normal(0,1), ...",
         {"log_magnitude(-12,2)"}, [](const std::string& v, const std::string& dir) { return parse_distribution(v, dir).text(); }},
        {"split", "how tensors are cut into vectors: per_tensor, per_row, block(N)", {"per_row"},
         simple([](const std::string& v) { return parse_split(v).text(); })},
        fault_axis({"bitflip"}),
        bit_axis("000's types: exp1 (type-1), exp2, exp3", {"exp1"}),
        count_axis("fault_count", "elements changed per faulty trial", {"1"}),
        {"faults_per_pair", "faulty trials that share one set of clean tensors", {"1"},
         simple([](const std::string& v) { return std::to_string(parse_integer_at_least(v, 1, "faults_per_pair")); })},
    };
  }
  std::string name() const override { return "gradient"; }
  view_kind view() const override { return view_kind::sample; }
  std::string summary() const override {
    return "log-norms of one device's gradient vectors before a collective (000); bf16/fp16/fp32, synthetic or from files";
  }
  const std::vector<axis_def>& axes() const override { return axes_; }

  grad_cell parse_cell(const cell& c) const override { return parse_gradient_cell(c); }
  std::optional<skip_info> skip(const grad_cell& g) const override {
    if (g.dtype != &bf16() && g.dtype != &fp16() && g.dtype != &fp32())
      return skip_info{"dtype", fmt::format("gradients are bf16, fp16 or fp32, not {}", g.dtype->name)};
    if (g.file && !g.shape_from_file)
      return skip_info{"shape", "a file source takes its shapes from the file: use shape=file"};
    if (!g.file && g.shape_from_file) return skip_info{"shape", "shape=file needs a file source"};
    if (g.file && g.tensors != 1) return skip_info{"tensors", "a file source gives its own tensors: use tensors=1"};
    std::string why, axis;
    if (!fault_spec_for(g.faults, *g.dtype, &why, &axis)) return skip_info{axis, why};
    return std::nullopt;
  }
  detector_context context_of(const grad_cell& g) const override { return {g.dtype, g.dtype}; }
  std::vector<std::string> truth_metrics() const override { return {"log_norm_shift", "norm_rel_change"}; }
  // fault_count faults, each an element uniform over all tensors (000's type-1/2/3 flips).
  fault_plan plan_for(const grad_cell& g) const override { return plan_of(g.faults, *g.dtype); }
  std::unique_ptr<episode_runner> runner(const grad_cell& g, uint64_t seed, const std::vector<detector_needs>&) const override {
    return std::make_unique<gradient_runner>(g, seed);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool gradient_workload_registered = register_workload(std::make_unique<gradient_workload>());

}  // namespace
}  // namespace sdc
