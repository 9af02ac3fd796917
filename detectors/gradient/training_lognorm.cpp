// 000_60f7924e74842bcb.txt before the collective: on each rank, the log-norms
// of its gradient vectors before the all-reduce (the rank's parameter
// gradients cut per_tensor, per_row or into block(N), as the gradient workload
// cuts its tensors: log_norms.hpp, the same vectorized pass), handed to every
// sample test (folding_w1 = Algorithm 1 at tau = 3, its ablations, the
// baselines, Appendix A's dip, Silverman and UU-test, the histogram recorder).
// Registered for `training` under the same names with one more parameter,
// `split`; per_rank() runs one per rank and blames the rank that fired.
#include "detectors/gradient/sample_detector.hpp"
#include "detectors/training_detectors.hpp"
#include "foundation/errors.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"

namespace sdc {
namespace {

class rank_log_norms final : public training_detector {
 public:
  rank_log_norms(std::unique_ptr<detector> test, split_rule split) : test_(std::move(test)), split_(split) {}
  void reset(const episode_context& e) override { test_->reset(e); }
  verdict check(const training_step& s) override {
    const auto& L = *s.layout;
    v_.clear();
    for (size_t t = 0; t < L.names.size(); ++t) {
      const int64_t begin = L.offsets[t], end = t + 1 < L.offsets.size() ? L.offsets[t + 1] : L.numel;
      const int64_t n = end - begin, len = vector_length(split_, n, L.shapes[t].empty() ? 1 : L.shapes[t].back());
      for (int64_t o = 0; o < n; o += len) {
        const double v = log_norm_fast(s.grads.data() + begin + o, std::min(len, n - o));
        if (v != -INFINITY) v_.push_back(v);  // zero vectors left out, as the gradient workload does
      }
    }
    sample_step view;
    view.rank = s.rank, view.step = s.step;
    view.data = {v_.data(), int64_t(v_.size())};
    verdict out = test_->observe(view);
    out.metrics.emplace_back("log_norms", double(v_.size()));
    return out;
  }

 private:
  std::unique_ptr<detector> test_;
  split_rule split_;
  std::vector<double> v_;
};

const bool training_lognorm_registered = [] {
  for (const detector_info& test : sample_tests()) {
    detector_info t = test;
    t.view = view_kind::training;
    t.summary = "000 before the all-reduce, on each rank's gradient log-norms: " + test.summary;
    t.params.push_back({"split", param_spec::type::text, "per_row", "cut each gradient per_tensor, per_row or into block(N)", {}});
    t.make = [make = test.make](const detector_params& p, const detector_context& ctx) -> std::unique_ptr<detector> {
      split_rule split;
      try {
        split = parse_split(p.json().at("split").get<std::string>());
      } catch (const value_error& e) {
        throw value_error(std::string("split: ") + e.what());
      }
      return std::make_unique<rank_log_norms>(make(p, ctx), split);
    };
    register_detector(std::move(t));
  }
  return true;
}();

}  // namespace
}  // namespace sdc
