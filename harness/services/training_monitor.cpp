#include "harness/services/training_monitor.hpp"

#include <fmt/format.h>

#include <cmath>

#include "foundation/errors.hpp"
#include "foundation/ground_truth/exact_dot.hpp"
#include "foundation/io/digest.hpp"
#include "foundation/io/json_file.hpp"
#include "harness/campaign/cell_summary.hpp"
#include "harness/results/result_set.hpp"

namespace sdc {
namespace {

using json = nlohmann::json;

// How much a monitored fault mattered, judged on the gradient element it
// changed against that element's own value (there is no clean twin of the
// step to judge the loss by): masked (the same value), within_noise (at most
// one fp32 ulp of the old value), small (relative change <= 1e-3), large
// (above, or not finite) -- the bands of foundation/ground_truth/exact_dot.hpp.
significance element_band(double old_value, double new_value) {
  if (new_value == old_value || (std::isnan(new_value) && std::isnan(old_value))) return significance::masked;
  if (!std::isfinite(new_value) || !std::isfinite(old_value)) return significance::large;
  const double diff = std::fabs(new_value - old_value);
  const float o = float(old_value);
  const double ulp = double(std::nextafter(std::fabs(o), INFINITY)) - std::fabs(double(o));
  if (diff <= ulp) return significance::within_noise;
  return old_value != 0 && diff / std::fabs(old_value) <= k_small_fault_rel ? significance::small : significance::large;
}

}  // namespace

training_monitor::training_monitor(const monitor_setup& s) : meta_(s.meta), detectors_json_(s.detectors), ranks_(s.ranks) {
  if (s.ranks < 1) throw input_error("Monitor", "ranks", "expected at least 1 rank");
  if (s.names.size() != s.shapes.size()) throw input_error("Monitor", "shapes", "expected one shape per parameter name");
  for (size_t i = 0; i < s.names.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : s.shapes[i]) n *= d;
    layout_.names.push_back(s.names[i]), layout_.shapes.push_back(s.shapes[i]), layout_.offsets.push_back(layout_.numel);
    layout_.numel += n;
  }
  const json list = json::parse(s.detectors);
  const detector_context ctx{&fp32(), &fp32(), meta_.value("axes", json::object()), std::nullopt};
  for (size_t i = 0; i < list.size(); ++i) {
    const json& d = list[i];
    const std::string at = fmt::format("detectors[{}]", i), name = d.value("name", std::string());
    detector_choice c;
    c.info = find_detector(view_kind::training, name);
    if (!c.info || c.info->recorder)
      throw input_error("Monitor", at + ".name", "a training detector (`sdcbench list detectors`, training/...); got \"" + name + "\"");
    try {
      c.params = validate_params(*c.info, d.value("params", json::object()));
    } catch (const value_error& e) {
      throw input_error("Monitor", at + ".params", e.what());
    }
    c.label = d.value("label", name);
    auto built = build_episode_detector(c, ctx);
    for (const std::string& more : built->needs().training_fields())
      throw input_error("Monitor", at, fmt::format("{} needs {}, which a monitored loop does not give (it sees losses and gradients)", name, more));
    choices_.push_back(std::move(c));
    detectors_.push_back(std::move(built));
  }
}

void training_monitor::begin(bool faulty, int64_t trial, int64_t steps) {
  if (open_) throw input_error("Monitor", "begin", "the previous episode was not ended");
  open_ = true, faulty_ = faulty, first_fault_ = -1, truths_.clear(), last_ = clock::now();
  episode_ = episode_result{};
  episode_.detectors.resize(detectors_.size());
  scoring_.assign(detectors_.size(), detector_scoring(faulty));
  for (auto& d : detectors_) d->reset(episode_context{faulty ? trial_kind::faulty : trial_kind::clean, uint64_t(trial), ranks_, steps, 0, 0});
}

std::vector<monitor_verdict> training_monitor::observe(int64_t step, std::span<const double> losses, std::span<const float> grads,
                                                       const std::vector<monitored_fault>& faults) {
  if (!open_) throw input_error("Monitor", "observe", "begin an episode first");
  const auto t_user = clock::now();
  episode_.kernel_seconds += std::chrono::duration<double>(t_user - last_).count(), episode_.kernel_ran = true;
  if (int64_t(grads.size()) != int64_t(ranks_) * layout_.numel || int64_t(losses.size()) != ranks_)
    throw input_error("Monitor", "observe", fmt::format("expected {} losses and a {} x {} fp32 gradient array", ranks_, ranks_, layout_.numel));
  for (const auto& f : faults) {
    truths_.push_back({f.rank, -1, -1});  // the rank it hit: a rank's blame is right for it
    if (first_fault_ < 0) first_fault_ = step;
    const significance b = element_band(f.old_value, f.new_value);
    if (int(b) > int(episode_.truth.band)) episode_.truth.band = b;
  }
  const int64_t numel = layout_.numel;
  std::vector<training_step> views(static_cast<size_t>(ranks_));
  std::vector<const step_view*> ptrs;
  double reduced_sq = 0;  // what each rank's optimizer sees: the mean over ranks, summed in rank order
  for (int64_t i = 0; i < numel; ++i) {
    float sum = 0;
    for (int r = 0; r < ranks_; ++r) sum += grads[size_t(r * numel + i)];
    const double mean = double(sum / float(ranks_));
    reduced_sq += mean * mean;
  }
  for (int r = 0; r < ranks_; ++r) {
    auto& v = views[size_t(r)];
    v.loss = losses[size_t(r)], v.layout = &layout_, v.reduced_grad_norm = std::sqrt(reduced_sq);
    v.grads.assign(grads.begin() + r * numel, grads.begin() + (r + 1) * numel);
    ptrs.push_back(&v);
  }
  std::vector<monitor_verdict> out;
  for (size_t k = 0; k < detectors_.size(); ++k) {
    const auto t0 = clock::now();
    verdict v = detectors_[k]->observe(ptrs);
    episode_.detectors[k].seconds += std::chrono::duration<double>(clock::now() - t0).count();
    out.push_back({choices_[k].label, v.flagged, v.rank, v.score});
    scoring_[k].step(episode_.detectors[k], std::move(v), step, first_fault_, truths_);
  }
  episode_.steps = step + 1;
  last_ = clock::now();
  return out;
}

void training_monitor::end() {
  if (!open_) throw input_error("Monitor", "end", "no episode is open");
  open_ = false;
  if (faulty_ && first_fault_ < 0) episode_.skipped = true, episode_.skip_reason = "the fault never fired in this episode";
  for (size_t k = 0; k < detectors_.size(); ++k) scoring_[k].finish(episode_.detectors[k]);
  (faulty_ ? faulty_eps_ : clean_eps_).push_back(std::move(episode_));
}

json training_monitor::result_set(const std::vector<std::string>& argv, const std::string& started) const {
  suite s;
  s.name = meta_.value("name", "monitor"), s.description = meta_.value("description", ""), s.scale = "full";
  s.seed = meta_.value("seed", uint64_t(0)), s.detectors = choices_;
  s.faulty_trials = int64_t(faulty_eps_.size()), s.clean_trials = int64_t(clean_eps_.size());
  cell c;
  json axes = meta_.value("axes", json::object());
  for (const auto& [k, v] : axes.items()) c.axes.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  for (const auto& [k, v] : c.axes) c.key += (c.key.empty() ? "" : ";") + k + "=" + v;
  std::vector<episode_result> all = faulty_eps_;
  all.insert(all.end(), clean_eps_.begin(), clean_eps_.end());
  cell_records recs = summarize_cell(s, c, all);
  json cells = json::array(), timing = json::array(), dets = json::array(), suite_axes = json::object();
  for (auto& r : recs.records) cells.push_back(r);
  for (auto& t : recs.timing) timing.push_back(t);
  for (const auto& d : choices_) dets.push_back({{"label", d.label}, {"name", d.info->name}, {"params", d.params}});
  for (const auto& [k, v] : c.axes) suite_axes[k] = json::array({v});
  const json block = {{"name", s.name}, {"file", "(a monitored PyTorch loop)"}, {"sha256", sha256_hex(meta_.dump() + detectors_json_)}, {"scale", "full"},
                      {"workload", "pytorch_monitor"}, {"description", s.description}, {"seed", s.seed},
                      {"trials", {{"faulty", s.faulty_trials}, {"clean", s.clean_trials}}}, {"axes", suite_axes},
                      {"fault_axes", json::array()},  // one monitored loop: its clean episodes are its own
                      {"axis_overrides", json::array()}, {"detectors", dets}, {"recorders", json::array()},
                      {"truth_metrics", json::array()}, {"reproduces", nullptr}};
  const json set = make_result_set(block, 0, 1, cells, json::array(), timing,
                                   provenance(argv, 1, s.seed, started, "not used by the monitor"));
  if (const auto problems = validate_result_set(set); !problems.empty())
    throw std::logic_error("the monitor's result set is not valid: " + problems.front());
  return set;
}

}  // namespace sdc
