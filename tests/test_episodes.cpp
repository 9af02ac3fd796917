// The trial driver on a scripted fake workload of several steps and ranks:
// outcome, location and latency bookkeeping; false alarms per clean step
// against an independent replay of the data; identical cells across thread
// counts, shards and an interrupted run resumed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/random/normal_distribution.hpp>
#include <filesystem>
#include <fstream>

#include "detectors/gradient/sample_detector.hpp"
#include "harness/campaign/engine.hpp"
#include "harness/campaign/suite.hpp"
#include "harness/results/result_set.hpp"
#include "protocol/typed_workload.hpp"
#include "scratch.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;
constexpr int64_t k_values = 8;

// Each rank's values at each step: k_values draws of N(0,1) from the stream
// (seed, cell, trial, rank, step, data). The plan sets one value of one rank to
// the largest double at the steps of `when`.
std::vector<double> values(uint64_t seed, uint64_t hash, trial_kind kind, uint64_t trial, int rank, int64_t step) {
  rng g = make_stream(seed, hash, trial, kind, rank, step, stream_purpose::data);
  boost::random::normal_distribution<double> n(0, 1);
  std::vector<double> v(k_values);
  for (auto& x : v) x = n(g);
  return v;
}

class fake_runner final : public episode_runner {
 public:
  fake_runner(uint64_t hash, uint64_t seed, int ranks) : hash_(hash), seed_(seed), x_(size_t(ranks)), views_(size_t(ranks)) {}
  uint64_t begin(trial_kind kind, uint64_t trial) override {
    kind_ = kind, trial_ = trial;
    return trial * 4 + uint64_t(kind);
  }
  // Scripted seconds: each step "took" k_step_seconds, k_work_seconds of them
  // on work the first detector asked for (episode_runner::detector_work).
  double run_step(int64_t step) override {
    for (size_t r = 0; r < x_.size(); ++r) x_[r] = values(seed_, hash_, kind_, trial_, int(r), step);
    return k_step_seconds;
  }
  step_work detector_work() const override { return {k_work_seconds, {k_work_seconds}}; }
  static constexpr double k_step_seconds = 1000, k_work_seconds = 250;
  fault_target& target(int64_t, int rank) override {
    t_.emplace(tensor_view{&fp64(), x_[size_t(rank)].data(), 1, k_values});
    return *t_;
  }
  void faulted(int64_t, int, const std::vector<injection_record>&) override {}
  location truth_location(const injection_record&) const override { return {}; }
  std::vector<const step_view*> views(int64_t step) override {
    std::vector<const step_view*> out;
    for (size_t r = 0; r < x_.size(); ++r) {
      views_[r].rank = int(r), views_[r].step = step;
      views_[r].data = {x_[r].data(), k_values};
      out.push_back(&views_[r]);
    }
    return out;
  }
  episode_truth truth() override { return {significance::large, {{"faults", 1.0}}}; }

 private:
  uint64_t hash_, seed_;
  trial_kind kind_ = trial_kind::clean;
  uint64_t trial_ = 0;
  std::vector<std::vector<double>> x_;
  std::vector<sample_step> views_;
  std::optional<tensor_target> t_;
};

// The fake workload's typed cell.
struct fake_cell : typed_cell {
  int ranks = 1;
  int64_t steps = 1;
  step_schedule when;
  int rank = 0;
};

class fake_workload final : public typed_workload<fake_cell> {
 public:
  fake_workload() {
    auto text = [](const std::string& v, const std::string&) { return v; };
    axes_ = {{"ranks", "ranks", {"3"}, text}, {"steps", "steps", {"6"}, text}, {"when", "schedule", {"specific(2)"}, text},
             {"rank", "faulty rank", {"1"}, text}};
  }
  std::string name() const override { return "fake_ranks"; }
  view_kind view() const override { return view_kind::sample; }
  std::string summary() const override { return "test: N(0,1) values on several ranks and steps"; }
  const std::vector<axis_def>& axes() const override { return axes_; }
  fake_cell parse_cell(const cell& c) const override {
    fake_cell g;
    g.ranks = std::stoi(c.at("ranks")), g.steps = std::stoll(c.at("steps"));
    g.when = parse_step_schedule(c.at("when")), g.rank = std::stoi(c.at("rank"));
    return g;
  }
  std::optional<skip_info> skip(const fake_cell&) const override { return std::nullopt; }
  detector_context context_of(const fake_cell&) const override { return {&fp64(), &fp64()}; }
  std::vector<std::string> truth_metrics() const override { return {"faults"}; }
  episode_shape shape_of(const fake_cell& g) const override { return {g.ranks, g.steps}; }
  fault_plan plan_for(const fake_cell& g) const override {
    fault_plan p;
    p.spec.model = parse_fault_model("set_max");
    p.when = g.when;
    p.rank = g.rank;
    return p;
  }
  std::unique_ptr<episode_runner> runner(const fake_cell& g, uint64_t seed, const std::vector<detector_needs>&) const override {
    return std::make_unique<fake_runner>(g.hash, seed, g.ranks);
  }

 private:
  std::vector<axis_def> axes_;
};

// Per rank: flags when max |x| > threshold (score max|x| / threshold).
class max_abs final : public gradient_detector {
 public:
  explicit max_abs(double t) : t_(t) {}
  verdict verify(const gradient_data& d) override {
    double m = 0;
    for (int64_t i = 0; i < d.m; ++i) m = std::max(m, std::fabs(d.log_norms[i]));
    verdict v;
    v.flagged = m > t_, v.score = m / t_;
    return v;
  }

 private:
  double t_;
};

// Across ranks: flags like max_abs on any rank, but always blames rank 0.
class blame_rank0 final : public episode_detector {
 public:
  void reset(const episode_context&) override {}
  detector_needs needs() const override { return {}; }
  void encode(const std::vector<const step_view*>&, size_t) override {}
  verdict observe(const std::vector<const step_view*>& ranks) override {
    verdict v;
    for (auto* r : ranks) v.flagged |= max_abs(100).observe(*r).flagged;
    if (v.flagged) v.rank = 0;
    return v;
  }
};

const bool test_episodes_registered = [] {
  register_workload(std::make_unique<fake_workload>());
  register_detector({view_kind::sample, "max_abs", "test", {{"threshold", param_spec::type::number, 100.0, "", {}}},
                     [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                       return std::make_unique<max_abs>(p.number("threshold"));
                     }});
  detector_info b{view_kind::sample, "blame_rank0", "test", {}, nullptr};
  b.make = [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> { return std::make_unique<max_abs>(100); };
  b.make_episode = [](const detector_params&, const detector_context&) -> std::unique_ptr<episode_detector> {
    return std::make_unique<blame_rank0>();
  };
  return register_detector(b);
}();

const std::filesystem::path k_dir = sdc::testing::scratch_dir("episodes");

std::string write_suite() {
  const json s = {{"schema", "sdcbench.suite/1"},
                  {"name", "fake_episodes"},
                  {"workload", "fake_ranks"},
                  {"seed", 11},
                  {"trials", {{"faulty", 12}, {"clean", 10}}},
                  {"presets", {{"smoke", json::object()}, {"full", json::object()}}},
                  {"axes", {{"when", {"specific(2)", "specific(2,3)"}}}},
                  {"detectors",
                   {{{"name", "max_abs"}},
                    {{"name", "max_abs"}, {"label", "strikes"}, {"wrap", {{{"strikes", {{"k", 2}, {"n", 3}}}}}}},
                    {{"name", "max_abs"}, {"label", "ema"}, {"wrap", {{{"ema", {{"beta", 0.5}, {"threshold", 0.5}}}}}}},
                    {{"name", "blame_rank0"}},
                    {{"name", "max_abs"}, {"label", "low"}, {"params", {{"threshold", 2.5}}}}}}};
  const std::string path = (k_dir / "fake.json").string();
  std::ofstream(path) << s.dump(1);
  return path;
}

json run(const std::string& suite, int threads, const std::string& out, int shard = 0, int shards = 1) {
  run_options o;
  o.suite_path = suite, o.threads = threads, o.out = (k_dir / out).string();
  o.shard_index = shard, o.shard_count = shards;
  std::filesystem::remove(o.out + ".journal");
  return run_campaign(o);
}

const json& record(const json& r, const std::string& when, const std::string& label) {
  for (const auto& c : r["cells"])
    if (c["axes"]["when"] == when && c["detector"]["label"] == label) return c;
  throw std::runtime_error("no record " + when + " " + label);
}

TEST(Episodes, OutcomesLocationsAndLatency) {
  const json r = run(write_suite(), 2, "one.json");
  EXPECT_TRUE(validate_result_set(r).empty()) << validate_result_set(r).front();
  for (const char* when : {"specific(2)", "specific(2,3)"}) {
    const auto& m = record(r, when, "max_abs")["faulty"];
    EXPECT_EQ(m["outcome_counts"]["detected_right_location"], 12) << when;  // blames rank 1, where the fault is
    EXPECT_EQ(m["latency_steps"]["max"], 0.0);
    EXPECT_EQ(record(r, when, "max_abs")["clean"]["outcome_counts"]["clean_pass"], 10);
    EXPECT_EQ(record(r, when, "max_abs")["clean"]["steps"]["trials"], 60);  // 10 episodes x 6 steps
    EXPECT_EQ(record(r, when, "blame_rank0")["faulty"]["outcome_counts"]["detected_wrong_location"], 12);
    EXPECT_EQ(record(r, when, "ema")["faulty"]["outcome_counts"]["detected_right_location"], 12);
    EXPECT_EQ(record(r, when, "ema")["clean"]["flagged"], 0);
  }
  // Two strikes in a window of three: a fault at step 2 alone never strikes
  // out; at steps 2 and 3 it does at step 3, one step after the first fault.
  EXPECT_EQ(record(r, "specific(2)", "strikes")["faulty"]["outcome_counts"]["missed"], 12);
  const auto& s = record(r, "specific(2,3)", "strikes")["faulty"];
  EXPECT_EQ(s["outcome_counts"]["detected_right_location"], 12);
  EXPECT_EQ(s["latency_steps"]["p50"], 1.0);
  EXPECT_EQ(s["latency_steps"]["max"], 1.0);
}

// What a step did for a detector is the detector's time, not the kernel's:
// each cell's kernel seconds are the scripted steps' less that work, exactly,
// and the first detector (max_abs, slot 0) carries it on top of its own.
TEST(Episodes, WorkTheStepDidForADetectorIsItsTimeNotTheKernels) {
  const json r = run(write_suite(), 2, "work.json");
  const double steps = 6 * (12 + 10);  // per cell: 6 steps x 22 episodes, none skipped
  int first = 0;
  for (const auto& t : r["timing"]) {
    EXPECT_EQ(t["kernel_seconds"].get<double>(), steps * (fake_runner::k_step_seconds - fake_runner::k_work_seconds))
        << t;
    const double d = t["detector_seconds"].get<double>();
    if (t["detector"] == "max_abs") {
      ++first;
      EXPECT_GE(d, steps * fake_runner::k_work_seconds) << t;
    } else {
      EXPECT_LT(d, steps * fake_runner::k_work_seconds) << t;  // its own calls only: far below a scripted 250 s a step
    }
  }
  EXPECT_EQ(first, 2);  // one cell per schedule
}

TEST(Episodes, FalseAlarmsPerStepMatchAReplayOfTheData) {
  const json r = run(write_suite(), 1, "replay.json");
  for (const auto& c : r["cells"]) {
    if (c["detector"]["label"] != "low") continue;
    const uint64_t hash = fnv1a64(c["key"].get<std::string>());
    int64_t flagged_steps = 0, flagged_episodes = 0, early = 0;
    for (uint64_t t = 0; t < 10; ++t) {
      bool any = false;
      for (int64_t step = 0; step < 6; ++step) {
        bool f = false;
        for (int rank = 0; rank < 3; ++rank)
          for (double x : values(11, hash, trial_kind::clean, t, rank, step)) f |= std::fabs(x) > 2.5;
        flagged_steps += f, any |= f;
      }
      flagged_episodes += any;
    }
    for (uint64_t t = 0; t < 12; ++t)
      for (int64_t step = 0; step < 2; ++step) {  // before the fault at step 2
        bool f = false;
        for (int rank = 0; rank < 3; ++rank)
          for (double x : values(11, hash, trial_kind::faulty, t, rank, step)) f |= std::fabs(x) > 2.5;
        early += f;
      }
    EXPECT_EQ(c["clean"]["steps"]["flagged"], flagged_steps);
    EXPECT_EQ(c["clean"]["flagged"], flagged_episodes);
    EXPECT_EQ(c["faulty"]["early_flags"], early);
    EXPECT_GT(flagged_steps, 0);  // 48 values per step at |x| > 2.5: about 44 % of steps flag
  }
}

TEST(Episodes, SameCellsWhateverThreadsShardsAndResumption) {
  const std::string suite = write_suite();
  const json one = run(suite, 1, "t1.json"), two = run(suite, 2, "t2.json");
  EXPECT_EQ(one["cells"], two["cells"]);
  const json s0 = run(suite, 2, "s0.json", 0, 2), s1 = run(suite, 1, "s1.json", 1, 2);
  const json merged = merge_result_sets({s1, s0}, {"s1.json", "s0.json"}, {});
  EXPECT_EQ(merged["cells"], one["cells"]);
  // Kill a run after its first cell, then resume it.
  run_options o;
  o.suite_path = suite, o.threads = 2, o.out = (k_dir / "resumed.json").string();
  std::filesystem::remove(o.out + ".journal");
  o.stop_after_cells = 1;
  const pid_t child = fork();
  if (child == 0) {
    run_campaign(o);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  ASSERT_TRUE(std::filesystem::exists(o.out + ".journal"));
  o.stop_after_cells = -1, o.resume = true;
  EXPECT_EQ(run_campaign(o)["cells"], one["cells"]);
}

}  // namespace
}  // namespace sdc
