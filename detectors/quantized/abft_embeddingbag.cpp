// ABFT for the quantized EmbeddingBag of 004_0d1fcb03aeacfeeb.txt (Algorithm 2).
//
// Each table row carries its precomputed code sum C_T[i] (int32, stored with
// the row: quantized_table::with_row_sums). For every bag of the batch:
//   RSum = sum_j R[j]                                  (the result's elements, in order)
//   CSum = sum_{i in bag} (w_i alpha_i C_T[i] + d w_i beta_i)   (eq. (5); w_i = 1 for plain sums)
// and the bag is flagged when |RSum - CSum| > bound * |CSum| (the paper's relative
// round-off bound, 1e-5). Both sums run in `sum` precision (fp32 as in the
// paper's operator, or fp64 to show how much of the false-alarm rate is the
// check's own rounding). Score = max over bags of |RSum - CSum| / (bound |CSum|).
#include <cmath>
#include <limits>

#include "detectors/quantized/quantized_detectors.hpp"

namespace sdc {
namespace {

template <class S>
bag_check check_bag(const embedding_bag_data& d, int64_t bag) {
  const auto& t = *d.table;
  const auto& b = *d.batch;
  const float* r = d.out + bag * t.dim;
  S rsum = 0;
  for (int64_t j = 0; j < t.dim; ++j) rsum += S(r[j]);
  S csum = 0;
  const bool weighted = !b.weights.empty();
  for (int64_t p = b.offsets[size_t(bag)]; p < b.end(bag); ++p) {
    const int64_t i = b.indices[size_t(p)];
    const float w = weighted ? b.weights[size_t(p)] : 1.0f;
    const S s = S(w * t.alpha(i)), c = S(w * t.beta(i));
    const S a = s * S(t.row_sum(i));
    const S e = S(t.dim) * c;
    csum += a + e;
  }
  return {double(rsum), double(csum), false};
}

class abft_embeddingbag final : public embedding_bag_detector {
 public:
  abft_embeddingbag(double bound, bool fp64) : bound_(bound), fp64_(fp64) {}
  verdict verify(const embedding_bag_data& d) override {
    checks_.resize(size_t(d.batch->bags()));
    double score = 0, worst_rel = 0;
    int64_t bad = 0;
    for (int64_t b = 0; b < d.batch->bags(); ++b) {
      bag_check c = fp64_ ? check_bag<double>(d, b) : check_bag<float>(d, b);
      const double diff = std::fabs(c.rsum - c.csum), lim = bound_ * std::fabs(c.csum);
      c.flagged = !(diff <= lim);  // NaN flags
      bad += c.flagged;
      const double ratio = lim > 0 ? diff / lim : (diff > 0 || std::isnan(diff) ? INFINITY : 0.0);
      score = std::max(score, std::isnan(ratio) ? INFINITY : ratio);
      worst_rel = std::max(worst_rel, c.csum != 0 ? diff / std::fabs(c.csum) : (diff > 0 ? INFINITY : 0.0));
      checks_[size_t(b)] = c;
    }
    verdict v{bad > 0, score};
    v.metrics.emplace_back("bags_flagged", double(bad));
    v.metrics.emplace_back("rel_diff_max", worst_rel);
    return v;
  }

 private:
  double bound_;
  bool fp64_;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::embedding_bag, "abft_embeddingbag",
                            "004 Algorithm 2: sum of each bag's result vs sum of alpha_i C_T[i] + d beta_i, "
                            "relative bound (score = worst |RSum - CSum| / (bound |CSum|))",
                            {{"bound", param_spec::type::number, 1e-5, "relative round-off bound (the paper: 1e-5)", {}},
                             {"sum", param_spec::type::choice, "fp32", "precision of RSum and CSum", {"fp32", "fp64"}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              return std::make_unique<abft_embeddingbag>(p.number("bound"), p.choice("sum") == "fp64");
                            }});

}  // namespace
}  // namespace sdc
