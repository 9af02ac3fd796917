// Fault lifetimes (workloads/training/fault_lifetime.hpp): the axis's values,
// an intermittent fault's on/off chain, and a recurring fault in stored state
// as a stuck memory cell, alone and through a training run armed as the
// runner arms it (recompute_service).
#include <gtest/gtest.h>

#include "foundation/errors.hpp"
#include "injectors/inject.hpp"
#include "training_site_events.hpp"
#include "workloads/training/fault_lifetime.hpp"
#include "workloads/training/recompute_service.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "workloads/training/training_sites.hpp"

namespace {

using namespace sdc;
using namespace sdc::train;
using namespace sdc::testing;

// Trains c.steps steps on rank 1's site S with lifetime LIFE under the
// driver's recompute service (the plan fires at step 6, after clean steps
// from START), recording every event.
template <class Data>
std::vector<event> lifetime_run(const train_config& c, const Data& d, const fault_site& s, const char* life,
                                test_injector& inj, int64_t start_step) {
  inj.plan.rank = 1, inj.fire_at = 6;
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  replica start = fresh_replica(c.model, 3);
  start.step = start_step;
  t.start_from(start);
  while (t.global_step() < inj.fire_at) t.step(nullptr);  // clean steps up to the fault's
  site_injector site(s, c.model, 1.0);
  recompute_service svc(s, c.model, 1.0, parse_fault_lifetime(life), inj.plan.spec, false);
  svc.begin(&t, [](int64_t) { return 0.5; });
  recorder rec;
  rec.site = &site;
  for (int64_t k = 0; k < c.steps; ++k) {
    inj.step = t.global_step();
    site.arm(&svc.injector_for(inj, 1, k, t.global_step()));
    t.step(&rec);
  }
  return std::move(rec.events);
}

// Lifetimes (fault_lifetime.hpp): the axis's values parse and print back;
// an intermittent fault is on at its first step, then follows its two-state
// chain step to step; a permanent one is always on.
TEST(FaultLifetime, IntermittentBurstsFollowTheirChain) {
  for (const char* t : {"transient", "permanent", "intermittent(0.25,0.5)"}) EXPECT_EQ(parse_fault_lifetime(t).text(), t);
  for (const char* bad : {"intermittent(2,0)", "intermittent(0.1)", "intermittent(a,b)", "sometimes"})
    EXPECT_THROW(parse_fault_lifetime(bad), std::exception) << bad;
  const std::vector<double> u = {0.9, 0.3, 0.6, 0.05, 0.7, 0.2};  // step s draws u[s - 3]
  auto draw = [&](int64_t s) { return u[size_t(s - 3)]; };
  const fault_lifetime l = parse_fault_lifetime("intermittent(0.1,0.5)");
  // on at 2; 3: u=0.9 >= P_OFF stays on; 4: 0.3 < 0.5 turns off; 5: 0.6 >= P_ON stays off; 6: 0.05 < 0.1 on; 7: 0.7 stays on; 8: 0.2 off.
  EXPECT_EQ(l.states(2, 8, draw), (std::vector<bool>{true, true, false, false, true, true, false}));
  EXPECT_EQ(parse_fault_lifetime("permanent").states(2, 8, draw), std::vector<bool>(7, true));
  EXPECT_FALSE(parse_fault_lifetime("transient").recurs());
}


// A recurring fault in stored state is a stuck memory cell (fault_lifetime.hpp):
// replayed after the optimizer wrote the element, the bits the first firing
// changed get back the values it gave them; a computed site's broken lane
// flips again instead; a stuck_at cell is forced even where the first firing
// found its bit already there.
TEST(FaultLifetime, AStuckCellKeepsItsBitsAfterEveryWrite) {
  const uint32_t bit30 = 1u << 30;  // fp32's leading exponent bit (exp1)
  const float flipped = std::bit_cast<float>(std::bit_cast<uint32_t>(0.5f) ^ bit30);  // 0.5 x 2^128
  fault_recording rec;
  rec.device = 1;
  rec.events.push_back({false, 0, {{3, bit30, std::bit_cast<uint32_t>(flipped)}}});
  const fault_spec flip{parse_fault_model("bitflip"), {30}, site_rule{}};
  auto replay = [&](float written, const fault_spec& spec, bool stored) {
    torch::Tensor t = torch::full({8}, 0.25f);
    t[3] = written;
    torch_target target(t);
    replaying_injector r(rec, spec, stored);
    EXPECT_TRUE(r.fires(1));
    EXPECT_FALSE(r.fires(0));
    r.apply(target);
    EXPECT_EQ(t[2].item<float>(), 0.25f);  // no other element
    return t[3].item<float>();
  };
  const float kept = std::nextafter(flipped, 0.0f);  // AdamW's write keeps the huge exponent
  EXPECT_EQ(replay(kept, flip, true), kept);                                    // stuck: it stays huge
  EXPECT_EQ(replay(0.375f, flip, true), std::bit_cast<float>(std::bit_cast<uint32_t>(0.375f) | bit30));  // forced up again
  EXPECT_EQ(replay(kept, flip, false), std::bit_cast<float>(std::bit_cast<uint32_t>(kept) ^ bit30));    // a lane flips
  fault_recording masked = rec;  // stuck_at_1 whose first firing found the bit at 1: nothing changed
  masked.events[0].flips[0].mask = 0;
  rec = masked;
  const fault_spec stuck{parse_fault_model("stuck_at_1"), {30}, site_rule{}};
  EXPECT_EQ(replay(0.375f, stuck, true), std::bit_cast<float>(std::bit_cast<uint32_t>(0.375f) | bit30));
}


// The same through a training run: a weight fault at step 6 on rank 1, as
// the runner arms its sites (recompute_service). Step 6 and its writes are
// the same whatever the lifetime; as step 7 begins a permanent fault forces
// the recorded bits into what AdamW wrote and changes nothing else, and
// intermittent(0,1) (off from step 7) is the transient fault, bit for bit.
TEST(FaultLifetime, AStuckWeightIsForcedAsEachStepBegins) {
  torch::set_num_threads(1);
  train_config c = config(false);
  c.steps = 2, c.optim.total = 20;  // a learning rate above 0 at steps 6 and 7
  const auto d = load_train_data(c);
  const fault_site s = parse_fault_site("weight:blocks.0.mlp.fc1.weight");
  auto run_with = [&](const char* life, test_injector& inj) {
    inj.plan.spec = spec_for("bitflip", "mant23", fp32());
    std::vector<event> at7;
    for (auto& e : lifetime_run(c, d, s, life, inj, 5))
      if (e.step == 7 && e.what.rfind("weight:", 0) == 0) at7.push_back(e);
    return at7;
  };
  test_injector ti, pi, ii;
  const auto transient = run_with("transient", ti), permanent = run_with("permanent", pi), off = run_with("intermittent(0,1)", ii);
  ASSERT_EQ(pi.done.size(), 1u);
  const injection_record& f = pi.done[0];
  const uint64_t mask = f.old_bits ^ f.new_bits;
  ASSERT_NE(mask, 0u);
  ASSERT_EQ(transient.size(), permanent.size());
  for (size_t k = 0; k < transient.size(); ++k) {
    EXPECT_TRUE(torch::equal(transient[k].value, off[k].value)) << off[k].what << " rank " << off[k].rank;
    const bool cell = transient[k].what == s.text() && transient[k].rank == 1;
    if (!cell) {
      EXPECT_TRUE(torch::equal(transient[k].value, permanent[k].value)) << permanent[k].what << " rank " << permanent[k].rank;
      continue;
    }
    const torch_target a(transient[k].value), b(permanent[k].value);
    // AdamW's write at step 6 took the last mantissa bit off the stuck value: forcing it shows.
    ASSERT_NE(a.bits_at(f.index) & mask, f.new_bits & mask);
    for (int64_t i = 0; i < a.rows() * a.cols(); ++i)
      EXPECT_EQ(b.bits_at(i), i == f.index ? (a.bits_at(i) & ~mask) | (f.new_bits & mask) : a.bits_at(i)) << i;
  }
}


// Precision mxfp8: a broken unit that corrupts a weight block scale as rank 1
// quantizes blocks.0.mlp.fc1's weight recurs at step 7 at the same scale, the
// flip applied again to the scale step 7 computed; transient and
// intermittent(0,1) leave step 7's scale alone.
TEST(FaultLifetime, APermanentScaleFaultRecursAtTheSameBlock) {
  torch::set_num_threads(1);
  train_config c = config(true, true);
  c.steps = 2, c.optim.total = 20;
  const auto d = load_train_data(c);
  const fault_site s = parse_fault_site("wscale:blocks.0.mlp.fc1");
  const auto layers = linear_names(c.model);
  const std::string at = fmt::format("quant {} forward 1 block_scale", std::find(layers.begin(), layers.end(), s.name) - layers.begin());
  auto run_with = [&](const char* life, test_injector& inj) {
    inj.plan.spec = spec_for("bitflip", "exp8", e8m0());
    for (auto& e : lifetime_run(c, d, s, life, inj, 6))
      if (e.step == 7 && e.rank == 1 && e.what == at) return e.value;
    return torch::Tensor();
  };
  test_injector ti, pi, ii;
  const torch::Tensor transient = run_with("transient", ti), permanent = run_with("permanent", pi), off = run_with("intermittent(0,1)", ii);
  ASSERT_TRUE(transient.defined() && permanent.defined() && off.defined());
  ASSERT_EQ(pi.done.size(), 1u);
  const injection_record& f = pi.done[0];
  EXPECT_TRUE(torch::equal(transient, off));
  for (int64_t i = 0; i < transient.numel(); ++i) {
    const auto a = transient[i].item<uint8_t>(), b = permanent[i].item<uint8_t>();
    EXPECT_EQ(b, i == f.index ? uint8_t(a ^ (f.old_bits ^ f.new_bits)) : a) << i;
  }
}

}  // namespace
