#include "harness/services/demo003_study.hpp"

#include <cmath>
#include <functional>

namespace sdc::demo003 {
namespace {

// One fact the paper's log states, measured on every run.
struct fact {  // the paper's log shows it holding
  std::string name;
  std::function<bool(const script_run&)> holds;
};

const log_line* first(const script_run& r, const std::function<bool(const log_line&)>& f) {
  for (const auto& l : r.lines)
    if (f(l)) return &l;
  return nullptr;
}
bool is_error(const log_line& l) { return l.level == "ERROR"; }
bool is_strike(const log_line& l) { return l.text.find("strike detected") != std::string::npos; }

std::vector<fact> silent_check_facts(int level) {
  auto error_on = [](int dev, int64_t step) {
    return [dev, step](const script_run& r) { return first(r, [&](const log_line& l) { return is_error(l) && l.device == dev && l.step == step; }) != nullptr; };
  };
  std::vector<fact> f;
  if (level == 1) {
    f.push_back({"device 0 logs an ERROR at step 5", error_on(0, 5)});
    f.push_back({"device 0 logs an ERROR at step 6", error_on(0, 6)});
    f.push_back({"device 0 logs an ERROR at step 7", error_on(0, 7)});
    f.push_back({"no ERROR before step 5", [](const script_run& r) { return !first(r, [](const log_line& l) { return is_error(l) && l.step < 5; }); }});
    f.push_back({"every ERROR value on device 0 at steps 5-7 is NaN", [](const script_run& r) {
                   return !first(r, [](const log_line& l) { return is_error(l) && l.device == 0 && l.step <= 7 && !std::isnan(l.value); });
                 }});
    f.push_back({"training runs to the end", [](const script_run& r) { return !r.stopped; }});
    return f;
  }
  f.push_back({"the first ERROR is on device 2 at step 5", [](const script_run& r) {
                 const log_line* l = first(r, is_error);
                 return l && l->device == 2 && l->step == 5;
               }});
  f.push_back({"exactly one ERROR line", [](const script_run& r) {
                 int n = 0;
                 for (const auto& l : r.lines) n += is_error(l);
                 return n == 1;
               }});
  f.push_back({"its value is NaN", [](const script_run& r) {
                 const log_line* l = first(r, is_error);
                 return l && std::isnan(l->value);
               }});
  f.push_back({"training stops at step 5", [](const script_run& r) { return r.stopped && r.steps_done == 5; }});
  return f;
}

std::vector<fact> silent_detect_facts() {
  auto worker0 = [](const script_run& r) { return first(r, [](const log_line& l) { return is_strike(l) && l.device == 0; }); };
  std::vector<fact> f;
  f.push_back({"worker 0's first strike: fc1.weight", [=](const script_run& r) { const log_line* l = worker0(r); return l && l->where == "fc1.weight"; }});
  f.push_back({"worker 0's first strike: value inf", [=](const script_run& r) { const log_line* l = worker0(r); return l && std::isinf(l->value); }});
  f.push_back({"worker 0's first strike: count 6", [=](const script_run& r) {
                 const log_line* l = worker0(r);
                 return l && l->text.find("count: 6, none_zero_count") != std::string::npos;
               }});
  f.push_back({"Global CheckSum result is 0", [](const script_run& r) {
                 return first(r, [](const log_line& l) { return l.text.find("Global CheckSum result is 0") != std::string::npos; }) != nullptr;
               }});
  f.push_back({"the verdict 60-70 s after worker 0's first strike (paper 62 s)", [=](const script_run& r) {
                 const log_line* s = worker0(r);
                 const log_line* v = first(r, [](const log_line& l) { return l.text.find("Global CheckSum result") != std::string::npos; });
                 return s && v && v->time - s->time >= 60 && v->time - s->time <= 70;
               }});
  return f;
}

}  // namespace

study run_study(const study_request& q) {
  const bool check = q.which == script::silent_check;
  auto run = [&](uint32_t seed) { return check ? run_silent_check(q.npu_asd_enable, seed, q.steps) : run_silent_detect(seed, q.steps); };
  const std::vector<fact> facts = check ? silent_check_facts(q.npu_asd_enable) : silent_detect_facts();
  study out;
  for (const auto& f : facts) out.facts.push_back(f.name);
  out.holds.assign(facts.size() + 1, 0);
  for (int64_t s = 0; s < q.seeds; ++s) {
    script_run r = run(uint32_t(int64_t(q.init_seed) + s));
    run_facts rf{int64_t(q.init_seed) + s, r.steps_done, r.stopped, r.lines.size(), {}};
    bool all = true;
    for (size_t i = 0; i < facts.size(); ++i) {
      const bool h = facts[i].holds(r);
      out.holds[i] += h, rf.holds.push_back(h), all &= h;
    }
    out.holds.back() += all;
    out.runs.push_back(std::move(rf));
    if (s == 0) out.first = std::move(r);
  }
  return out;
}

}  // namespace sdc::demo003
