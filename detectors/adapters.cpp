#include "detectors/adapters.hpp"

#include <fmt/format.h>

#include <cmath>
#include <deque>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;


class per_rank_detector final : public episode_detector {
 public:
  explicit per_rank_detector(std::function<std::unique_ptr<detector>()> make) : make_(std::move(make)) {
    ranks_.push_back(make_());
  }
  void reset(const episode_context& e) override {
    while (int(ranks_.size()) < e.ranks) ranks_.push_back(make_());
    blame_ranks_ = e.ranks > 1;
    for (int r = 0; r < e.ranks; ++r) ranks_[size_t(r)]->reset(e);
  }
  detector_needs needs() const override { return ranks_.front()->needs(); }
  void encode(const std::vector<const step_view*>& views, size_t slot) override {
    for (size_t r = 0; r < views.size(); ++r) ranks_[r]->encode(*views[r], slot);
  }
  verdict observe(const std::vector<const step_view*>& views) override {
    verdict best;
    int best_rank = -1;
    bool best_flagged = false;
    for (size_t r = 0; r < views.size(); ++r) {
      verdict v = ranks_[r]->observe(*views[r]);
      const bool better = best_rank < 0 || (v.flagged && !best_flagged) ||
                          (v.flagged == best_flagged && score_higher(v.score, best.score));
      if (better) best = std::move(v), best_rank = int(r), best_flagged = best.flagged;
    }
    if (blame_ranks_ && best.flagged) best.rank = best_rank;
    return best;
  }

 private:
  std::function<std::unique_ptr<detector>()> make_;
  std::vector<std::unique_ptr<detector>> ranks_;
  bool blame_ranks_ = false;
};

class window_detector final : public episode_detector {
 public:
  window_detector(std::unique_ptr<episode_detector> inner, json spec) : inner_(std::move(inner)), spec_(std::move(spec)) {}
  void reset(const episode_context& e) override {
    inner_->reset(e);
    ema_ = NAN, recent_.clear(), last_flagged_ = verdict{};
  }
  detector_needs needs() const override { return inner_->needs(); }
  void encode(const std::vector<const step_view*>& v, size_t slot) override { inner_->encode(v, slot); }
  verdict observe(const std::vector<const step_view*>& views) override {
    verdict in = inner_->observe(views);
    if (in.flagged) last_flagged_ = in;
    verdict out;
    out.metrics = in.metrics;
    out.series = in.series;
    out.diagnosis = in.diagnosis;
    if (spec_.contains("ema")) {
      const double beta = spec_["ema"]["beta"], thr = spec_["ema"]["threshold"];
      // A NaN score enters as Inf; a score not computed as 0, what the
      // detectors that compute none on some steps reported before issue 66,
      // so the window's verdicts stay as they were.
      const double s = is_not_computed(in.score) ? 0.0 : std::isnan(in.score) ? INFINITY : in.score;
      ema_ = std::isnan(ema_) ? s : beta * ema_ + (1 - beta) * s;
      out.flagged = !(ema_ <= thr);
      out.score = ema_ / thr;
      out.metrics.emplace_back("ema", std::isfinite(ema_) ? ema_ : 1e300);
    } else {
      const int64_t k = spec_["strikes"]["k"], n = spec_["strikes"]["n"];
      recent_.push_back(in.flagged);
      if (int64_t(recent_.size()) > n) recent_.pop_front();
      int64_t count = 0;
      for (bool f : recent_) count += f;
      out.flagged = count >= k;
      out.score = double(count) / double(k);
      out.metrics.emplace_back("strikes", double(count));
    }
    if (out.flagged) {
      out.located_row = last_flagged_.located_row, out.located_col = last_flagged_.located_col;
      out.rank = last_flagged_.rank, out.corrected_value = last_flagged_.corrected_value;
    }
    return out;
  }

 private:
  std::unique_ptr<episode_detector> inner_;
  json spec_;
  double ema_ = NAN;
  std::deque<bool> recent_;
  verdict last_flagged_;
};

}  // namespace

std::unique_ptr<episode_detector> per_rank(std::function<std::unique_ptr<detector>()> make) {
  return std::make_unique<per_rank_detector>(std::move(make));
}

json validate_wraps(const json& wraps) {
  if (!wraps.is_array()) throw value_error("wrap: expected an array of {\"ema\": {...}} or {\"strikes\": {...}}");
  json out = json::array();
  for (size_t i = 0; i < wraps.size(); ++i) {
    const json& w = wraps[i];
    const std::string at = fmt::format("wrap/{}", i);
    if (!w.is_object() || w.size() != 1 || !(w.contains("ema") || w.contains("strikes")) || !w.begin()->is_object())
      throw value_error(at + ": expected {\"ema\": {beta, threshold}} or {\"strikes\": {k, n}}; got " + w.dump());
    const json& p = *w.begin();
    if (w.contains("ema")) {
      for (auto it = p.begin(); it != p.end(); ++it)
        if (it.key() != "beta" && it.key() != "threshold") throw value_error(at + "/ema: unknown field '" + it.key() + "'; expected beta, threshold");
      const json beta = p.value("beta", json(0.9)), thr = p.value("threshold", json(1.0));
      if (!beta.is_number() || !(beta.get<double>() >= 0 && beta.get<double>() < 1))
        throw value_error(at + "/ema/beta: expected a number in [0, 1); got " + beta.dump());
      if (!thr.is_number() || !(thr.get<double>() > 0) || !std::isfinite(thr.get<double>()))
        throw value_error(at + "/ema/threshold: expected a finite number > 0; got " + thr.dump());
      out.push_back({{"ema", {{"beta", beta}, {"threshold", thr}}}});
    } else {
      for (auto it = p.begin(); it != p.end(); ++it)
        if (it.key() != "k" && it.key() != "n") throw value_error(at + "/strikes: unknown field '" + it.key() + "'; expected k, n");
      const json k = p.value("k", json(1)), n = p.value("n", json(1));
      if (!k.is_number_integer() || !n.is_number_integer() || k.get<int64_t>() < 1 || n.get<int64_t>() < k.get<int64_t>())
        throw value_error(at + "/strikes: expected integers 1 <= k <= n; got k " + k.dump() + ", n " + n.dump());
      out.push_back({{"strikes", {{"k", k}, {"n", n}}}});
    }
  }
  return out;
}

std::unique_ptr<episode_detector> wrap(std::unique_ptr<episode_detector> inner, const json& spec) {
  return std::make_unique<window_detector>(std::move(inner), spec);
}

}  // namespace sdc
