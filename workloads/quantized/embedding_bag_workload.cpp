// The quantized EmbeddingBag workload of 004_0d1fcb03aeacfeeb.txt (section
// III-C, Algorithm 2): a row-wise quantized table (8-bit codes, or 4-bit packed
// two per byte) with fp32 alpha/beta per row and the ABFT row sums stored with
// each row; a batch of bags (torch.nn.EmbeddingBag offsets), plain or weighted
// sum; our vectorized kernel with prefetch (embedding_bag_fast).
//
// The table is made once per cell (values from `values`, then quantized row by
// row); each trial draws its own indices (uniform over rows) and weights.
// Faults (section VI-B2: "randomly choose an element ... flip a random bit"):
// in a code of a row the batch reads (a table element no bag reads cannot
// change the result; drawn uniformly over the (position, column) pairs of
// the batch), in that row's alpha or beta, or in an output element.
// The precomputed row sums are those of the clean table.
//
// Ground truth: each changed output element is classified against its exact
// value (MPFR), and on clean trials each bag's exact sum lets a false alarm be
// attributed to rounding in RSum or in CSum (metrics rsum_err_rel_max,
// csum_err_rel_max, false_alarm_from_rsum).
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <regex>

#include "foundation/errors.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"
#include "foundation/random/distributions.hpp"
#include "foundation/timing.hpp"
#include "injectors/inject.hpp"
#include "protocol/views/quantized_views.hpp"
#include "protocol/typed_workload.hpp"
#include "workloads/quantized/embedding_bag_cell.hpp"
#include "workloads/quantized/embedding_table_target.hpp"

namespace sdc {
namespace {

const std::vector<std::string> k_targets(std::begin(k_eb_target_names), std::end(k_eb_target_names));

class eb_runner final : public episode_runner {
 public:
  eb_runner(const eb_cell& g, uint64_t seed) : g_(g), seed_(seed), hash_(g.hash) {
    // The table: one per cell, from its own stream (trial id past any trial's).
    rng tg = make_stream(seed_, hash_, ~uint64_t(0), trial_kind::clean, stream_purpose::data);
    std::vector<float> x(size_t(g_.rows * g_.dim));
    for (auto& v : x) v = float(g_.values.sample(tg));
    table_ = quantize_rowwise(x.data(), g_.rows, g_.dim, g_.bits, true);
    out_.resize(size_t(g_.bags * g_.dim));
  }

  uint64_t begin(trial_kind kind, uint64_t trial) override {
    faulty_ = false;
    rng data = make_stream(seed_, hash_, trial, kind, stream_purpose::data);
    batch_.indices.resize(size_t(g_.bags * g_.pool));
    batch_.offsets.resize(size_t(g_.bags));
    boost::random::uniform_int_distribution<int64_t> row(0, g_.rows - 1);
    for (auto& i : batch_.indices) i = row(data);
    for (int64_t b = 0; b < g_.bags; ++b) batch_.offsets[size_t(b)] = b * g_.pool;
    batch_.weights.clear();
    if (g_.weighted) {
      boost::random::uniform_real_distribution<float> w(0.0f, 1.0f);
      batch_.weights.resize(batch_.indices.size());
      for (auto& x : batch_.weights) x = w(data);
    }
    return trial * 4 + uint64_t(kind);
  }

  double run_step(int64_t) override {
    const auto t0 = clock_type::now();
    embedding_bag_fast(table_, batch_, out_.data());
    return seconds_since(t0);
  }

  // A code of a row the batch reads (a table element no bag reads cannot
  // change the result), that row's alpha or beta, or an output element.
  fault_target& target(int64_t, int) override {
    if (g_.target == eb_target::output) {
      faulty_out_ = out_;
      target_ = std::make_unique<tensor_target>(tensor_view{&fp32(), faulty_out_.data(), g_.bags, g_.dim});
      table_target_ = nullptr;
    } else {
      auto t = std::make_unique<table_target>(table_, batch_, g_.target, target_format(g_));
      table_target_ = t.get();
      target_ = std::move(t);
    }
    return *target_;
  }

  // A table fault reruns the kernel on the faulty table (restored in end()).
  void faulted(int64_t, int, const std::vector<injection_record>&) override {
    faulty_ = true;
    if (table_target_) {
      faulty_out_.resize(out_.size());
      embedding_bag_fast(table_, batch_, faulty_out_.data());
    }
    label_significance();
  }

  location truth_location(const injection_record& r) const override {
    if (g_.target == eb_target::output) return {-1, r.row, r.col};
    return {};  // a table element: the bags that read the row are all changed
  }

  std::vector<const step_view*> views(int64_t) override {
    step_.data = {&table_, &batch_, faulty_ ? faulty_out_.data() : out_.data()};
    return {&step_};
  }

  episode_truth truth() override { return truth_; }

  void judge(const verdict& v, trial_kind kind, metric_list& out) override {
    if (kind == trial_kind::clean) attribute(v, out);
  }

  void end() override {
    if (table_target_ && table_target_->undo_ptr)
      std::memcpy(table_target_->undo_ptr, table_target_->undo, table_target_->undo_n);  // the table is clean again
    table_target_ = nullptr;
    target_.reset();
  }

 private:
  // Exact value of output element (bag, j) of the table as it stands (the
  // clean one, during labelling): sum_i w_i alpha_i q_ij + w_i beta_i.
  void exact_element(mpfr_ptr out, int64_t bag, int64_t j) {
    std::vector<double> a, b;
    for (int64_t p = batch_.offsets[size_t(bag)]; p < batch_.end(bag); ++p) {
      const int64_t i = batch_.indices[size_t(p)];
      const double w = batch_.weights.empty() ? 1.0 : double(batch_.weights[size_t(p)]);
      a.push_back(w * double(table_.alpha(i))), b.push_back(double(table_.code(i, j)));
      a.push_back(w * double(table_.beta(i))), b.push_back(1.0);
    }
    exact_dot(out, a.data(), 1, b.data(), 1, int64_t(a.size()));
  }


  void label_significance() {
    episode_truth r;
    double err_rel = 0, err_ulps = 0, err_over_noise = 0;
    // The exact values are the clean table's: put its bytes back while labelling.
    uint8_t faulty[4];
    table_target* u = table_target_ && table_target_->undo_ptr ? table_target_ : nullptr;
    if (u) std::memcpy(faulty, u->undo_ptr, u->undo_n), std::memcpy(u->undo_ptr, u->undo, u->undo_n);
    mp_value exact;
    for (int64_t b = 0; b < g_.bags; ++b)
      for (int64_t j = 0; j < g_.dim; ++j) {
        const size_t idx = size_t(b * g_.dim + j);
        const float c = out_[idx], f = faulty_out_[idx];
        if (std::memcmp(&c, &f, 4) == 0) continue;
        exact_element(exact.get(), b, j);
        const auto e = classify_element(fp32(), exact.get(), double(c), double(f));
        if (int(e.band) > int(r.band)) r.band = e.band;
        err_rel = std::max(err_rel, e.err_rel);
        err_ulps = std::max(err_ulps, e.err_ulps);
        const double noise_floor = std::max(e.noise, 0.5 * ulp_of(fp32(), e.exact));
        err_over_noise = std::max(err_over_noise, e.err_ulps * ulp_of(fp32(), e.exact) / noise_floor);
      }
    if (u) std::memcpy(u->undo_ptr, faulty, u->undo_n);
    r.metrics = {{"err_ulps", err_ulps}, {"err_rel", err_rel}, {"err_over_noise", err_over_noise}};
    truth_ = r;
  }

  // Clean trial: each bag's exact sum E = sum_i w_i (alpha_i C_T[i] + d beta_i)
  // (MPFR); how far RSum and CSum are from it, and, for a false alarm, which
  // side's rounding caused it (the bag with the largest score).
  void attribute(const verdict& v, metric_list& out) {
    if (!v.evidence.is_object()) return;
    const auto& ev = v.evidence;
    mp_value exact;
    double r_max = 0, c_max = 0, worst = -1;
    bool from_rsum = false;
    for (int64_t b = 0; b < g_.bags; ++b) {
      std::vector<double> a, x;
      for (int64_t p = batch_.offsets[size_t(b)]; p < batch_.end(b); ++p) {
        const int64_t i = batch_.indices[size_t(p)];
        const double w = batch_.weights.empty() ? 1.0 : double(batch_.weights[size_t(p)]);
        a.push_back(w * double(table_.alpha(i))), x.push_back(double(table_.row_sum(i)));
        a.push_back(w * double(table_.beta(i))), x.push_back(double(g_.dim));
      }
      exact_dot(exact.get(), a.data(), 1, x.data(), 1, int64_t(a.size()));
      const double e = exact.to_double(), mag = std::max(std::fabs(e), 1e-300);
      const double rsum = ev["rsum"][size_t(b)], csum = ev["csum"][size_t(b)];
      const bool flagged = ev["flagged"][size_t(b)];
      const double er = std::fabs(rsum - e) / mag, ec = std::fabs(csum - e) / mag;
      r_max = std::max(r_max, er), c_max = std::max(c_max, ec);
      const double score = std::fabs(rsum - csum) / std::max(std::fabs(csum), 1e-300);
      if (flagged && score > worst) worst = score, from_rsum = er >= ec;
    }
    out.emplace_back("rsum_err_rel_max", r_max);
    out.emplace_back("csum_err_rel_max", c_max);
    if (v.flagged && worst >= 0) out.emplace_back("false_alarm_from_rsum", from_rsum ? 1.0 : 0.0);
  }

  eb_cell g_;
  uint64_t seed_, hash_;
  quantized_table table_;
  bag_batch batch_;
  std::vector<float> out_, faulty_out_;
  bool faulty_ = false;
  std::unique_ptr<fault_target> target_;
  table_target* table_target_ = nullptr;
  episode_truth truth_;
  embedding_bag_step step_;
};

class embedding_bag_workload final : public typed_workload<eb_cell> {
 public:
  embedding_bag_workload() {
    auto simple = [](auto parse) { return [parse](const std::string& v, const std::string&) { return parse(v); }; };
    auto one_of = [](std::vector<std::string> ok, std::string what) {
      return [ok, what](const std::string& v, const std::string&) {
        if (std::find(ok.begin(), ok.end(), v) == ok.end())
          throw value_error(fmt::format("expected {}: {}; got '{}'", what, fmt::join(ok, ", "), v));
        return v;
      };
    };
    axes_ = {
        {"table", "ROWSxDIM: embedding rows and dimension d", {"100000x64"},
         simple([](const std::string& v) {
           const auto [r, d] = parse_axb(v, "ROWSxDIM");
           return fmt::format("{}x{}", r, d);
         })},
        {"code_bits", "8 (one u8 code per element) or 4 (two per byte)", {"8"}, one_of({"8", "4"}, "code bits")},
        {"values", "the float table before row-wise quantization: normal(mu,sigma), uniform(a,b), ...", {"normal(0,1)"},
         [](const std::string& v, const std::string& dir) { return parse_distribution(v, dir).text(); }},
        {"batch", "BAGSxPOOLING: bags per call and indices per bag (Table I: 10x100)", {"10x100"},
         simple([](const std::string& v) {
           const auto [b, p] = parse_axb(v, "BAGSxPOOLING");
           return fmt::format("{}x{}", b, p);
         })},
        {"pooling", "sum or weighted_sum (per-sample weights uniform on [0, 1))", {"sum"},
         one_of({"sum", "weighted_sum"}, "a pooling mode")},
        fault_axis({"bitflip_random(1,all)"}),
        bit_axis("a code takes bits 0-7 (0-3 when 4-bit), alpha, beta and the output those of fp32", {"none"}),
        {"target", "code (a table code of a row the batch reads), alpha, beta (that row's fp32 scale/bias), output", {"code"},
         one_of(k_targets, "a target")},
    };
  }
  std::string name() const override { return "embedding_bag"; }
  view_kind view() const override { return view_kind::embedding_bag; }
  std::string summary() const override {
    return "row-wise quantized EmbeddingBag (8/4-bit codes, fp32 alpha/beta), sum or weighted sum (004)";
  }
  const std::vector<axis_def>& axes() const override { return axes_; }

  eb_cell parse_cell(const cell& c) const override { return parse_embedding_bag_cell(c); }

  std::optional<skip_info> skip(const eb_cell& g) const override {
    std::string why, axis;
    if (!eb_fault_spec(g, &why, &axis)) return skip_info{axis, why};
    return std::nullopt;
  }
  detector_context context_of(const eb_cell&) const override { return {&u8(), &fp32()}; }
  std::vector<std::string> truth_metrics() const override { return {"err_ulps", "err_rel", "err_over_noise"}; }
  fault_plan plan_for(const eb_cell& g) const override {
    std::string why, axis;
    fault_plan p = plan_of(g.faults, target_format(g));
    p.spec = *eb_fault_spec(g, &why, &axis);  // skip_reason refused the cells where it is none
    return p;
  }
  std::unique_ptr<episode_runner> runner(const eb_cell& g, uint64_t seed, const std::vector<detector_needs>&) const override {
    return std::make_unique<eb_runner>(g, seed);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool embedding_bag_workload_registered = register_workload(std::make_unique<embedding_bag_workload>());

}  // namespace
}  // namespace sdc
