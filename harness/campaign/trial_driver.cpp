#include "harness/campaign/trial_driver.hpp"

#include <boost/random/uniform_01.hpp>
#include <cmath>
#include <functional>
#include <optional>

#include "detectors/adapters.hpp"
#include "foundation/timing.hpp"

namespace sdc {
namespace {

// The plan at one step of one episode: its stream, what it injected, whether
// it could. Used after the kernels (target()) or from inside the step.
class plan_injector final : public step_injector {
 public:
  // The stream is made on first use: most steps of most episodes inject nothing.
  plan_injector(const fault_plan& p, bool fires, std::function<rng()> stream)
      : plan_(p), fires_(fires), make_(std::move(stream)) {}
  bool fires(int rank) const override { return fires_ && rank == plan_.rank; }
  // Each call stands alone: a call that cannot apply (a directed flip with no
  // element in its source state) injects nothing and marks the step.
  bool apply(fault_target& t) override {
    if (!fires_) return false;
    rng& g_ = stream();
    std::vector<injection_record> recs;
    if (plan_.spec.site.multi()) {
      recs = inject_pattern(t, plan_.spec, g_);
    } else if (plan_.distinct) {
      recs = inject_distinct(t, plan_.spec, plan_.count, g_);
    } else {
      for (int64_t f = 0; f < plan_.count; ++f) {
        recs.push_back(inject(t, plan_.spec, g_));
        if (!recs.back().applied) break;
      }
    }
    for (const auto& r : recs)
      if (!r.applied) {
        skipped_ = true, skip_reason_ = r.skip_reason;
        return false;
      }
    records_.insert(records_.end(), recs.begin(), recs.end());
    return true;
  }
  double uniform01() override { return boost::random::uniform_01<double>()(stream()); }
  bool skipped() const { return skipped_; }
  const std::string& skip_reason() const { return skip_reason_; }
  const std::vector<injection_record>& records() const override { return records_; }

 private:
  rng& stream() {
    if (!g_) g_.emplace(make_());
    return *g_;
  }
  const fault_plan& plan_;
  bool fires_;
  std::function<rng()> make_;
  std::optional<rng> g_;
  bool skipped_ = false;
  std::string skip_reason_;
  std::vector<injection_record> records_;
};

}  // namespace

const char* outcome_name(outcome o) {
  switch (o) {
    case outcome::detected_right_location: return "detected_right_location";
    case outcome::detected_wrong_location: return "detected_wrong_location";
    case outcome::detected_unlocated: return "detected_unlocated";
    case outcome::missed: return "missed";
    case outcome::false_alarm: return "false_alarm";
    case outcome::clean_pass: return "clean_pass";
    case outcome::skipped: return "skipped";
  }
  return "?";
}

void detector_scoring::step(detector_episode& de, verdict v, int64_t step, int64_t first_fault, const std::vector<location>& truths) {
  de.flagged_steps += v.flagged;
  if (!faulty_) {
    if (step == 0 || score_higher(v.score, de.score)) de.score = v.score;
    deciding_ = std::move(v);  // the last step's metrics
    return;
  }
  if (decided_) return;
  if (v.flagged && first_fault < 0) ++de.early_flags;
  if (v.flagged && first_fault >= 0) {
    decided_ = true;
    de.latency = step - first_fault;
    const location blamed = v.where();
    bool right = false;
    for (const auto& t : truths) right |= location_matches(blamed, t);
    de.result = !blamed.stated() ? outcome::detected_unlocated
                : right          ? outcome::detected_right_location
                                 : outcome::detected_wrong_location;
  }
  de.score = v.score;
  deciding_ = std::move(v);
}

void detector_scoring::finish(detector_episode& de) {
  if (faulty_ && !decided_) de.result = outcome::missed;
  if (!faulty_) de.result = de.flagged_steps > 0 ? outcome::false_alarm : outcome::clean_pass;
  de.metrics = std::move(deciding_.metrics);
  de.series = std::move(deciding_.series);
}

std::unique_ptr<episode_detector> build_episode_detector(const detector_choice& d, const detector_context& ctx) {
  const detector_params p(d.params, ctx.out_fmt);
  std::unique_ptr<episode_detector> e;
  if (d.info->make_episode) {
    e = d.info->make_episode(p, ctx);
  } else {
    d.info->make(p, ctx);  // parameter errors surface here, at build time
    e = per_rank([info = d.info, p, ctx] { return info->make(p, ctx); });
  }
  for (const auto& w : d.wrap) e = wrap(std::move(e), w);
  return e;
}

trial_driver::trial_driver(const workload& w, const cell& c, const std::vector<detector_choice>& detectors,
                           const std::vector<detector_choice>& recorders, uint64_t seed)
    : cell_(c), seed_(seed), shape_(w.shape(c)), plan_(w.plan(c)) {
  const detector_context ctx = w.context(c);
  std::vector<detector_needs> needs;
  for (const auto& d : detectors) {
    detectors_.push_back(build_episode_detector(d, ctx));
    needs.push_back(detectors_.back()->needs());
  }
  for (const auto& r : recorders) recorders_.push_back(build_episode_detector(r, ctx));
  runner_ = w.make_runner(c, seed, needs);
}

trial_driver::~trial_driver() = default;

episode_result trial_driver::run(trial_kind kind, uint64_t trial) {
  episode_result r;
  const bool faulty = kind == trial_kind::faulty;
  episode_context ctx{kind, trial, shape_.ranks, shape_.steps, runner_->begin(kind, trial)};
  const auto history = runner_->history();
  ctx.history = int64_t(history.size());
  for (auto& d : detectors_) d->reset(ctx);
  for (auto& d : recorders_) d->reset(ctx);
  for (const auto& views : history)
    for (auto& d : detectors_) d->observe(views);  // warm-up on the run so far: untimed, never scored
  r.detectors.resize(detectors_.size());
  std::vector<detector_scoring> scoring(detectors_.size(), detector_scoring(faulty));
  std::vector<location> truths;
  int64_t first_fault = -1;
  const step_schedule when = faulty ? episode_schedule(plan_, seed_, cell_.hash, trial, kind) : plan_.when;
  for (int64_t step = 0; step < shape_.steps; ++step) {
    if (auto enc = runner_->encode_views(step); !enc.empty())
      for (size_t k = 0; k < detectors_.size(); ++k) {
        const auto t0 = clock_type::now();
        detectors_[k]->encode(enc, k);
        r.detectors[k].seconds += seconds_since(t0);
      }
    const bool fires = faulty && when.fires(step);
    plan_injector inj(plan_, fires, [&] { return make_stream(seed_, cell_.hash, trial, kind, plan_.rank, step, stream_purpose::fault); });
    const double ks = runner_->injects_in_step() ? runner_->run_step_injecting(step, inj) : runner_->run_step(step);
    if (ks >= 0) {
      const episode_runner::step_work work = runner_->detector_work();
      r.kernel_seconds += ks - work.total, r.kernel_ran = true;
      for (size_t k = 0; k < work.by_slot.size() && k < r.detectors.size(); ++k)
        r.detectors[k].seconds += work.by_slot[k];
    }
    if (fires && !runner_->injects_in_step() && inj.apply(runner_->target(step, plan_.rank)))
      runner_->faulted(step, plan_.rank, inj.records());
    // A plan that could not apply is skipped, unless it already injected in
    // this episode: a later firing of a cycle on data the first one made NaN
    // (no exponent bit left to set) is a no-op, not a reason to drop the episode.
    if (inj.skipped() && first_fault < 0 && inj.records().empty()) {
      r.skipped = true, r.skip_reason = inj.skip_reason();
      runner_->end();
      return r;
    }
    for (const auto& rec : inj.records()) {
      location l = runner_->truth_location(rec);
      if (shape_.ranks > 1) l.rank = plan_.rank;
      truths.push_back(l);
    }
    if (!inj.records().empty() && first_fault < 0) first_fault = step;
    const auto views = runner_->views(step);
    for (size_t k = 0; k < detectors_.size(); ++k) {
      auto& de = r.detectors[k];
      const auto t0 = clock_type::now();
      verdict v = detectors_[k]->observe(views);
      de.seconds += seconds_since(t0);
      scoring[k].step(de, std::move(v), step, first_fault, truths);
    }
    for (auto& rec : recorders_) {
      verdict v = rec->observe(views);
      if (step + 1 == shape_.steps) r.recordings.push_back({std::move(v.metrics), std::move(v.series)});
    }
  }
  r.steps = shape_.steps;
  if (faulty && first_fault < 0) {  // the plan never found its moment (a defective GEMM that drew no fault)
    r.skipped = true, r.skip_reason = "the fault plan injected nothing in this episode";
    runner_->end();
    return r;
  }
  if (faulty) r.truth = runner_->truth();
  for (size_t k = 0; k < detectors_.size(); ++k) {
    auto& de = r.detectors[k];
    runner_->judge(scoring[k].deciding(), kind, de.judged);  // before its metrics move out: a judge may read them
    scoring[k].finish(de);
  }
  runner_->end();
  return r;
}

}  // namespace sdc
