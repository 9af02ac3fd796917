// The mixture workload of 000_60f7924e74842bcb.txt (Theorem 1, Appendix A and
// B.2): samples of n values from a unimodal `base` distribution, of which a
// fraction p (round(p n), at least 1, at random positions) is shifted by Delta.
// Faulty trials are such mixtures; clean trials are the base alone, so the
// clean false-alarm rate is each test's false-positive rate on unimodal data.
// `shift` is a number (Delta in the values' units) or crit(R): R times
// Delta_crit(p, sigma) of Appendix B.2, for a normal(mu, sigma) base, so a
// suite can walk across the theorem's threshold. Detectors are the sample
// tests of detectors/gradient_tests.cpp; every verdict carries the cell's
// delta_crit and exponent position (bf16/fp32, n = 8) as metrics, so Table 3
// and Figure 5 read off a result set.
#include <fmt/format.h>

#include <boost/random/uniform_int_distribution.hpp>
#include <chrono>
#include <cmath>
#include <regex>

#include "harness/campaign/workload.hpp"
#include "harness/errors.hpp"
#include "harness/random/distributions.hpp"
#include "harness/theory/critical_shift.hpp"

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

mix_cell parse_cell(const cell& c) {
  mix_cell g;
  g.base = parse_distribution(c.at("base"), c.base_dir);
  g.n = std::stoll(c.at("n"));
  g.p = parse_fraction(c.at("p"));
  g.shift = parse_shift(c.at("shift"));
  if (g.base.k == distribution::kind::normal) g.crit = delta_crit(g.base.p[1], g.p);
  g.delta = g.shift.relative ? (g.crit ? g.shift.value * g.crit->delta : NAN) : g.shift.value;
  return g;
}

class mixture_runner final : public cell_runner {
 public:
  mixture_runner(const cell& c, const std::vector<detector_choice>& detectors, uint64_t seed)
      : g_(parse_cell(c)), seed_(seed), hash_(c.hash) {
    const detector_context ctx{&fp64(), &fp64(), c.axes_json()};
    for (const auto& d : detectors)
      detectors_.emplace_back(dynamic_cast<gradient_detector*>(d.info->make(detector_params(d.params, &fp64()), ctx).release()));
    x_.resize(size_t(g_.n));
  }

  trial_result run_trial(trial_kind kind, uint64_t trial) override {
    trial_result r;
    r.detector_seconds.assign(detectors_.size(), 0.0);
    r.verdicts.resize(detectors_.size());
    rng data = make_stream(seed_, hash_, trial, kind, stream_purpose::data);
    const auto t0 = clock_type::now();
    for (auto& v : x_) v = g_.base.sample(data);
    r.kernel_seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    r.kernel_ran = true;
    if (kind == trial_kind::faulty) {
      // k distinct positions (partial Fisher-Yates over an index list).
      const int64_t k = std::max<int64_t>(1, std::llround(g_.p * double(g_.n)));
      rng frng = make_stream(seed_, hash_, trial, kind, stream_purpose::fault);
      idx_.resize(size_t(g_.n));
      for (int64_t i = 0; i < g_.n; ++i) idx_[size_t(i)] = i;
      for (int64_t i = 0; i < k; ++i) {
        const int64_t j = boost::random::uniform_int_distribution<int64_t>(i, g_.n - 1)(frng);
        std::swap(idx_[size_t(i)], idx_[size_t(j)]);
        x_[size_t(idx_[size_t(i)])] += g_.delta;
      }
      r.band = g_.delta != 0 ? significance::large : significance::masked;
      r.err_ulps = std::fabs(g_.delta);
    }
    const gradient_data d{x_.data(), g_.n};
    for (size_t k = 0; k < detectors_.size(); ++k) {
      const auto t1 = clock_type::now();
      r.verdicts[k] = detectors_[k]->verify(d);
      r.detector_seconds[k] += std::chrono::duration<double>(clock_type::now() - t1).count();
      if (g_.crit) {
        r.verdicts[k].metrics.emplace_back("delta_crit", g_.crit->delta);
        r.verdicts[k].metrics.emplace_back("position", exponent_position(g_.crit->delta, 8));
      }
      r.verdicts[k].metrics.emplace_back("delta", g_.delta);
    }
    return r;
  }

 private:
  mix_cell g_;
  uint64_t seed_, hash_;
  std::vector<std::unique_ptr<gradient_detector>> detectors_;
  std::vector<double> x_;
  std::vector<int64_t> idx_;
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
  std::string summary() const override { return "samples with a fraction p shifted by Delta: Theorem 1 and Appendix A of 000"; }
  const std::vector<axis_def>& axes() const override { return axes_; }
  std::optional<skip_info> skip_reason(const cell& c) const override {
    const mix_cell g = parse_cell(c);
    if (g.shift.relative && g.base.k != distribution::kind::normal)
      return skip_info{"shift", "crit(R) needs a normal(mu,sigma) base (Appendix B.2)"};
    if (g.shift.relative && !g.crit)
      return skip_info{"shift", fmt::format("Appendix B.2 has no solution for p = {} (p must be below 1/2)", g.p)};
    return std::nullopt;
  }
  detector_context context(const cell& c) const override { return {&fp64(), &fp64(), c.axes_json()}; }
  std::unique_ptr<cell_runner> make_runner(const cell& c, const std::vector<detector_choice>& detectors,
                                           uint64_t seed) const override {
    return std::make_unique<mixture_runner>(c, detectors, seed);
  }

 private:
  std::vector<axis_def> axes_;
};

const bool registered = register_workload(std::make_unique<mixture_workload>());

}  // namespace
}  // namespace sdc
