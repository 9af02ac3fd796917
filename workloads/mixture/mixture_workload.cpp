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
#include <regex>

#include "protocol/workload.hpp"
#include "foundation/errors.hpp"
#include "foundation/random/distributions.hpp"
#include "foundation/theory/critical_shift.hpp"
#include "protocol/views/sample_view.hpp"

namespace sdc {
namespace {

using clock_type = std::chrono::steady_clock;

struct shift_spec {
  bool relative = false;  // crit(R)
  double value = 0;
  std::string text() const { return relative ? fmt::format("crit({})", value) : fmt::format("{}", value); }
};
shift_spec parse_shift(const std::string& v) {
  static const std::regex crit(R"(crit\(([0-9.eE+-]+)\))");
  std::smatch m;
  try {
    if (std::regex_match(v, m, crit)) return {true, std::stod(m[1])};
    size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size()) return {false, x};
  } catch (const std::exception&) {
  }
  throw value_error("expected a shift: a number (Delta) or crit(R) (R x Delta_crit); got '" + v + "'");
}

double parse_fraction(const std::string& v) {
  size_t used = 0;
  double p = -1;
  try {
    p = std::stod(v, &used);
  } catch (const std::exception&) {
  }
  if (!(p > 0 && p < 1) || used != v.size()) throw value_error("p: expected a number in (0, 1); got '" + v + "'");
  return p;
}

struct mix_cell {
  distribution base;
  int64_t n = 0;
  double p = 0;
  shift_spec shift;
  std::optional<critical_shift> crit;  // normal base only
  double delta = 0;                    // the shift applied
};

mix_cell parse_mix_cell(const cell& c) {
  mix_cell g;
  g.base = parse_distribution(c.at("base"), c.base_dir);
  g.n = std::stoll(c.at("n"));
  g.p = parse_fraction(c.at("p"));
  g.shift = parse_shift(c.at("shift"));
  if (g.base.k == distribution::kind::normal) g.crit = delta_crit(g.base.p[1], g.p);
  g.delta = g.shift.relative ? (g.crit ? g.shift.value * g.crit->delta : NAN) : g.shift.value;
  return g;
}

class mixture_runner final : public episode_runner {
 public:
  mixture_runner(const cell& c, uint64_t seed) : g_(parse_mix_cell(c)), seed_(seed), hash_(c.hash) {
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

class mixture_workload final : public workload {
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
  std::optional<skip_info> skip_reason(const cell& c) const override {
    const mix_cell g = parse_mix_cell(c);
    if (g.shift.relative && g.base.k != distribution::kind::normal)
      return skip_info{"shift", "crit(R) needs a normal(mu,sigma) base (Appendix B.2)"};
    if (g.shift.relative && !g.crit)
      return skip_info{"shift", fmt::format("Appendix B.2 has no solution for p = {} (p must be below 1/2)", g.p)};
    return std::nullopt;
  }
  detector_context context(const cell& c) const override { return {&fp64(), &fp64(), c.axes_json()}; }
  std::vector<std::string> truth_metrics() const override { return {"delta", "delta_crit", "position"}; }
  // round(p n) (at least 1) distinct positions, each shifted by Delta.
  fault_plan plan(const cell& c) const override {
    const mix_cell g = parse_mix_cell(c);
    fault_plan p;
    p.spec.model.k = fault_model::kind::add;
    p.spec.model.factor = g.delta;
    p.count = std::max<int64_t>(1, std::llround(g.p * double(g.n)));
    p.distinct = true;
    return p;
  }
  std::unique_ptr<episode_runner> make_runner(const cell& c, uint64_t seed, const std::vector<detector_needs>&) const override {
    return std::make_unique<mixture_runner>(c, seed);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool mixture_workload_registered = register_workload(std::make_unique<mixture_workload>());

}  // namespace
}  // namespace sdc
