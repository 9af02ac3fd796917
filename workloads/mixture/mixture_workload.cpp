// The mixture workload of 000_60f7924e74842bcb.txt (Theorem 1, Appendix A and
// B.2): samples of n values from a unimodal `base` distribution, of which a
// fraction p (round(p n), at least 1, at random positions) is shifted by Delta.
// Faulty trials are such mixtures; clean trials are the base alone, so the
// clean false-alarm rate is each test's false-positive rate on unimodal data.
// `shift` is a number (Delta in the values' units) or crit(R): R times
// Delta_crit(p, sigma) of Appendix B.2, for a normal(mu, sigma) base, so a
// suite can walk across the theorem's threshold. Detectors are the sample
// tests of detectors/gradient/gradient_tests.cpp. The ground truth of each faulty
// episode carries Delta, the cell's delta_crit and its exponent position
// (bf16/fp32, n = 8) as workload metrics, so Table 3 and Figure 5 read off a
// result set.
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <chrono>
#include <cmath>

#include "protocol/typed_workload.hpp"
#include "workloads/mixture/mixture_cell.hpp"
#include "foundation/errors.hpp"
#include "foundation/random/distributions.hpp"
#include "foundation/theory/critical_shift.hpp"
#include "protocol/views/sample_view.hpp"

namespace sdc {
namespace {

using clock_type = std::chrono::steady_clock;

class mixture_runner final : public episode_runner {
 public:
  mixture_runner(const mix_cell& g, uint64_t seed) : g_(g), seed_(seed), hash_(g.hash) {
    x_.resize(size_t(g_.n));
  }

  uint64_t begin(trial_kind kind, uint64_t trial) override {
    kind_ = kind, trial_ = trial;
    return trial * 4 + uint64_t(kind);
  }
  double run_step(int64_t) override {
    rng data = make_stream(seed_, hash_, trial_, kind_, stream_purpose::data);
    const auto t0 = clock_type::now();
    for (auto& v : x_) v = g_.base.sample(data);
    return std::chrono::duration<double>(clock_type::now() - t0).count();
  }
  fault_target& target(int64_t, int) override {
    target_.emplace(tensor_view{&fp64(), x_.data(), 1, g_.n});
    return *target_;
  }
  void faulted(int64_t, int, const std::vector<injection_record>&) override {}
  location truth_location(const injection_record&) const override { return {}; }
  std::vector<const step_view*> views(int64_t) override {
    step_.data = {x_.data(), g_.n};
    return {&step_};
  }
  episode_truth truth() override {
    episode_truth t;
    t.band = g_.delta != 0 ? significance::large : significance::masked;
    t.metrics.emplace_back("delta", g_.delta);
    if (g_.crit) {
      t.metrics.emplace_back("delta_crit", g_.crit->delta);
      t.metrics.emplace_back("position", exponent_position(g_.crit->delta, 8));
    }
    return t;
  }

 private:
  mix_cell g_;
  uint64_t seed_, hash_;
  trial_kind kind_ = trial_kind::clean;
  uint64_t trial_ = 0;
  std::vector<double> x_;
  std::optional<tensor_target> target_;
  sample_step step_;
};

class mixture_workload final : public typed_workload<mix_cell> {
 public:
  mixture_workload() {
    auto simple = [](auto parse) { return [parse](const std::string& v, const std::string&) { return parse(v); }; };
    axes_ = {
        {"base", "the unimodal distribution: normal(mu,sigma) (Theorem 1), lognormal(mu,sigma), gamma(k,theta), ...",
         {"normal(0,1)"}, [](const std::string& v, const std::string& dir) { return parse_distribution(v, dir).text(); }},
        {"n", "sample size", {"1000"},
         simple([](const std::string& v) { return std::to_string(parse_integer_at_least(v, 3, "n")); })},
        {"p", "fraction of the sample shifted (Theorem 1's p)", {"0.05"},
         simple([](const std::string& v) { return fmt::format("{}", parse_fraction(v)); })},
        {"shift", "Delta: a number, or crit(R) = R x Delta_crit(p, sigma) (normal base)", {"crit(1)"},
         simple([](const std::string& v) { return parse_shift(v).text(); })},
    };
  }
  std::string name() const override { return "mixture"; }
  view_kind view() const override { return view_kind::sample; }
  std::string summary() const override { return "samples with a fraction p shifted by Delta: Theorem 1 and Appendix A of 000"; }
  const std::vector<axis_def>& axes() const override { return axes_; }
  mix_cell parse_cell(const cell& c) const override { return parse_mix_cell(c); }
  std::optional<skip_info> skip(const mix_cell& g) const override {
    if (g.shift.relative && g.base.k != distribution::kind::normal)
      return skip_info{"shift", "crit(R) needs a normal(mu,sigma) base (Appendix B.2)"};
    if (g.shift.relative && !g.crit)
      return skip_info{"shift", fmt::format("Appendix B.2 has no solution for p = {} (p must be below 1/2)", g.p)};
    return std::nullopt;
  }
  detector_context context_of(const mix_cell&) const override { return {&fp64(), &fp64()}; }
  std::vector<std::string> truth_metrics() const override { return {"delta", "delta_crit", "position"}; }
  // round(p n) (at least 1) distinct positions, each shifted by Delta.
  fault_plan plan_for(const mix_cell& g) const override {
    fault_plan p;
    p.spec.model.k = fault_model::kind::add;
    p.spec.model.factor = g.delta;
    p.count = std::max<int64_t>(1, std::llround(g.p * double(g.n)));
    p.distinct = true;
    return p;
  }
  std::unique_ptr<episode_runner> runner(const mix_cell& g, uint64_t seed, const std::vector<detector_needs>&) const override {
    return std::make_unique<mixture_runner>(g, seed);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool mixture_workload_registered = register_workload(std::make_unique<mixture_workload>());

}  // namespace
}  // namespace sdc
