#include "workloads/training/recompute_service.hpp"

namespace sdc::train {

recompute_service::recompute_service(const fault_site& site, const model_config& m, double gemm_q, fault_lifetime life,
                                     const fault_spec& spec, bool keep_state)
    : life_(life), spec_(spec), stored_(site.stored()), keep_(keep_state), replay_sites_(site, m, gemm_q) {}

void recompute_service::begin(dp_trainer* t, std::function<double(int64_t)> lifetime_u) {
  trainer_ = t;
  rec_ = {};
  before_.assign(t->replicas().size(), {});
  step_ = episode_step_ = first_step_ = -1;
  u_ = std::move(lifetime_u);
  on_.clear();
}

bool recompute_service::active(int device) const {
  return life_.recurs() && rec_.device >= 0 && device == rec_.device && episode_step_ >= first_step_ &&
         on_[size_t(episode_step_ - first_step_)];
}

step_injector& recompute_service::injector_for(step_injector& driver, int plan_rank, int64_t episode_step, int64_t global_step) {
  step_ = global_step, episode_step_ = episode_step;
  if (rec_.device >= 0 && life_.recurs()) {
    on_ = life_.states(first_step_, episode_step, u_);
    if (episode_step > first_step_) {
      if (active(rec_.device)) return replaying_.emplace(rec_, spec_, stored_);
      return recording_.emplace(driver, nullptr);
    }
  }
  fault_recording* into = nullptr;
  if (rec_.device < 0 && driver.fires(plan_rank)) {
    rec_.device = plan_rank, rec_.step = global_step, first_step_ = episode_step;
    on_ = {true};
    into = &rec_;
  }
  return recording_.emplace(driver, into);
}

void recompute_service::step_begins(int rank, const replica& rep, int64_t global_step) {
  step_ = global_step;
  if (keep_) before_[size_t(rank)] = rep.params.clone();
}

recomputed_step recompute_service::recompute(int data_rank, int state_of, int device) {
  step_observer* obs = nullptr;
  std::optional<replaying_injector> replay;
  if (active(device)) {
    replay_sites_.arm(&replay.emplace(rec_, spec_, stored_));
    obs = &replay_sites_;
  }
  const recomputation r = trainer_->recompute(data_rank, device, before_.at(size_t(state_of)), step_, obs);
  replay_sites_.arm(nullptr);
  recomputed_step out;
  out.loss = r.loss;
  const torch::Tensor g = r.grads.contiguous();
  out.grads.assign(g.data_ptr<float>(), g.data_ptr<float>() + g.numel());
  return out;
}

std::vector<float> recompute_service::all_reduce(const std::vector<std::vector<float>>& local, int device) {
  std::vector<torch::Tensor> flat;
  for (const auto& g : local) flat.push_back(torch::tensor(g, torch::kFloat));
  torch::Tensor mine = trainer_->all_reduce(std::move(flat)).to(torch::kFloat, false, true);
  if (active(device)) {  // a recurring fault in the device's copy of the bucket
    std::optional<replaying_injector> replay;
    replay_sites_.arm(&replay.emplace(rec_, spec_, stored_));
    replay_sites_.reduced(step_, device, mine);
    replay_sites_.arm(nullptr);
  }
  const torch::Tensor c = mine.contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

}  // namespace sdc::train
