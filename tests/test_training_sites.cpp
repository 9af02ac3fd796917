// Every fault site of a training step, with every kind of fault model: the
// promised elements change, and nothing else, at the promised step and rank.
// Each run is compared event by event with a clean run of the same steps; an
// event is a tensor at a site's moment (a rank's weights and moments as its
// step begins, every GEMM output, its gradients before the all-reduce, its
// copy of the reduced bucket). Up to the injection every event is
// bit-identical; at the injection only the recorded elements differ, with the
// recorded new bits. (After it the fault propagates, as it should.)
#include <gtest/gtest.h>

#include <bit>
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "injectors/inject.hpp"
#include "workloads/training/training_run.hpp"
#include "workloads/training/fault_lifetime.hpp"
#include "workloads/training/recompute_service.hpp"
#include "workloads/training/training_sites.hpp"

namespace {

using namespace sdc;
using namespace sdc::train;

struct event {
  std::string what;
  int64_t step;
  int rank;
  torch::Tensor value;
};

// Applies the plan like the trial driver does, recording what it did.
struct test_injector final : step_injector {
  fault_plan plan;
  int64_t step = -1, fire_at = 0;
  rng g{7};
  std::vector<injection_record> done;
  std::vector<size_t> per_apply;  // records each apply() made
  bool fires(int rank) const override { return step == fire_at && rank == plan.rank; }
  bool apply(fault_target& t) override {
    auto r = plan.spec.site.multi() ? inject_pattern(t, plan.spec, g)
                                                           : std::vector<injection_record>{inject(t, plan.spec, g)};
    for (const auto& x : r)
      if (!x.applied) return false;
    done.insert(done.end(), r.begin(), r.end());
    per_apply.push_back(r.size());
    return true;
  }
  double uniform01() override { return 0.0; }  // q > 0: every GEMM of the faulty rank is hit
  const std::vector<injection_record>& records() const override { return done; }
};

// The site first, then a copy of the tensor as the site left it.
struct recorder final : step_observer, gemm_hook {
  site_injector* site = nullptr;
  std::vector<event> events;
  int64_t step = 0;
  int rank = 0;
  void step_begins(int64_t s, int r, replica& rep) override {
    if (site) site->step_begins(s, r, rep);
    step = s, rank = r;
    for (size_t i = 0; i < rep.params.tensors.size(); ++i) {
      events.push_back({"weight:" + rep.params.names[i], s, r, rep.params.tensors[i].detach().clone()});
      events.push_back({"adam_m:" + rep.params.names[i], s, r, rep.exp_avg[i].clone()});
      events.push_back({"adam_v:" + rep.params.names[i], s, r, rep.exp_avg_sq[i].clone()});
    }
  }
  gemm_hook* gemm_hook_for(int64_t, int) override { return this; }
  void after_gemm(int linear, gemm_pass pass, const torch::Tensor& a, const torch::Tensor& b, torch::Tensor& out) override {
    if (site && site->gemm_hook_for(step, rank)) site->after_gemm(linear, pass, a, b, out);
    events.push_back({fmt::format("gemm {} {}", linear, gemm_pass_name(pass)), step, rank, out.detach().clone()});
  }
  void grads_ready(int64_t s, int r, replica& rep) override {
    if (site) site->grads_ready(s, r, rep);
    for (size_t i = 0; i < rep.params.tensors.size(); ++i)
      events.push_back({"grad:" + rep.params.names[i], s, r, rep.params.tensors[i].grad().clone()});
  }
  void reduced(int64_t s, int r, torch::Tensor& b) override {
    if (site) site->reduced(s, r, b);
    events.push_back({"bucket", s, r, b.clone()});
  }
};

train_config config(bool bf16) {
  train_config c;
  c.model.layers = 2, c.model.width = 16, c.model.heads = 2, c.model.seq = 64, c.model.bf16 = bf16;
  c.dp.ranks = 3, c.dp.micro_batch = 2;
  c.examples = 60, c.eval_examples = 4, c.steps = 3, c.optim.total = 3, c.optim.warmup = 1;
  return c;
}

std::vector<event> run(const train_config& c, const train_data& d, site_injector* site, test_injector* inj) {
  dp_trainer t(c.model, c.optim, c.dp, &d.train);
  replica start = fresh_replica(c.model, 3);
  {  // nonzero moments, so that moment faults see real values
    torch::NoGradGuard ng;
    for (size_t i = 0; i < start.exp_avg.size(); ++i) start.exp_avg[i].fill_(1e-3), start.exp_avg_sq[i].fill_(1e-6);
  }
  start.step = 5;
  t.start_from(start);
  recorder rec;
  rec.site = site;
  for (int64_t k = 0; k < c.steps; ++k) {
    if (inj) inj->step = t.global_step();
    if (site) site->arm(inj);
    t.step(&rec);
  }
  return rec.events;
}

bool expected_event(const fault_site& s, const model_config& m, const event& e) {
  const auto layers = linear_names(m);
  auto layer_of = [&](const std::string& name) { return std::to_string(std::find(layers.begin(), layers.end(), name) - layers.begin()); };
  switch (s.k) {
    case fault_site::kind::weight:
    case fault_site::kind::adam_m:
    case fault_site::kind::adam_v:
    case fault_site::kind::grad: return e.what == s.text();
    case fault_site::kind::bucket: return e.what == "bucket";
    case fault_site::kind::act: return e.what == "gemm " + layer_of(s.name) + " forward";
    case fault_site::kind::actgrad: return e.what == "gemm " + layer_of(s.name) + " grad_input";
    case fault_site::kind::gemm: return e.what.rfind("gemm " + (s.name == "all" ? std::string() : layer_of(s.name)), 0) == 0;
  }
  return false;
}

void check_site(const std::string& site_text, const std::string& model_text, const std::string& bit, bool bf16,
                const std::string& element = "uniform") {
  SCOPED_TRACE(site_text + " / " + model_text + " / " + bit + (bf16 ? " / bf16" : " / fp32") + " / " + element);
  const train_config c = config(bf16);
  const auto d = load_train_data(c);
  const fault_site s = parse_fault_site(site_text);
  ASSERT_EQ(check_site(s, c.model), "");
  test_injector inj;
  std::string why, axis;
  const auto model = parse_fault_model(model_text);
  inj.plan.spec = {model, *resolve_fault_bits(model, parse_bit_choice(bit), site_format(s, c.model), &why, &axis),
                   parse_site_rule(element)};
  inj.plan.rank = 1, inj.fire_at = 6;  // the second step: run() starts from a replica at step 5
  site_injector site(s, c.model, 1.0);
  const auto clean = run(c, d, nullptr, nullptr);
  const auto faulty = run(c, d, &site, &inj);
  ASSERT_EQ(clean.size(), faulty.size());
  ASSERT_FALSE(inj.done.empty()) << "nothing injected";
  size_t rec = 0, hit = 0;
  for (size_t k = 0; k < clean.size() && rec < inj.done.size(); ++k) {
    const event& a = clean[k];
    const event& b = faulty[k];
    ASSERT_EQ(a.what, b.what);
    const bool target = b.step == inj.fire_at && b.rank == inj.plan.rank && expected_event(s, c.model, b);
    if (!target) {
      if (hit == 0)
        ASSERT_TRUE(torch::equal(a.value, b.value)) << b.what << " step " << b.step << " rank " << b.rank << " changed before the fault";
      continue;
    }
    const torch_target ta(a.value.contiguous()), tb(b.value.contiguous());
    // A multi-element rule (max_abs, a pattern) records several elements at
    // once; a defective rank's GEMMs record one fault per GEMM.
    ASSERT_LT(hit, inj.per_apply.size()) << b.what << ": changed without an apply";
    const size_t n_here = inj.per_apply[hit];
    if (hit++ == 0) {
      // The first fault: exactly the recorded elements differ from the clean run, with the recorded bits.
      const int64_t n = ta.rows() * ta.cols();
      for (int64_t i = 0; i < n; ++i) {
        if (ta.bits_at(i) == tb.bits_at(i)) continue;
        bool recorded = false;
        for (size_t r = rec; r < rec + n_here && !recorded; ++r)
          recorded = inj.done[r].index == i && inj.done[r].old_bits == ta.bits_at(i) && inj.done[r].new_bits == tb.bits_at(i);
        EXPECT_TRUE(recorded) << b.what << ": element " << i << " changed without a record";
      }
    } else {
      // Later GEMMs of a defective rank see inputs the first fault already changed:
      // their records must hold what the tensor holds.
      for (size_t r = rec; r < rec + n_here; ++r) EXPECT_EQ(tb.bits_at(inj.done[r].index), inj.done[r].new_bits) << b.what;
    }
    rec += n_here;
  }
  EXPECT_EQ(rec, inj.done.size()) << "every record found at its site";
  EXPECT_GE(hit, 1u);
}

TEST(TrainingSites, EverySiteEveryKindOfFaultModel) {
  torch::set_num_threads(1);
  for (const char* site : {"weight:blocks.0.mlp.fc1.weight", "adam_m:blocks.1.attn.qkv.weight", "adam_v:tok_emb",
                           "grad:blocks.0.norm1.weight", "grad:pos_emb", "bucket", "act:blocks.0.mlp.fc1",
                           "actgrad:blocks.1.attn.proj", "gemm:blocks.1.mlp.fc2"}) {
    check_site(site, "bitflip", "exp1", false);
    check_site(site, "bitflip_designed", "none", false);
    check_site(site, "multiply(1000)", "none", false);
    check_site(site, "multiply(1000)", "none", false, "max_abs");
    check_site(site, "bitflip_random(1,mant)", "none", false);
  }
}

// Multi-element patterns land at every site exactly where their records say.
TEST(TrainingSites, PatternsLandWhereTheirRecordsSay) {
  torch::set_num_threads(1);
  for (const char* site : {"weight:blocks.0.mlp.fc1.weight", "grad:blocks.0.mlp.fc1.weight", "bucket", "act:blocks.0.mlp.fc1",
                           "gemm:blocks.1.mlp.fc2"})
    for (const char* pattern : {"run(5)", "strided(32,3)", "full_row", "full_col"}) check_site(site, "bitflip", "mant1", false, pattern);
}

TEST(TrainingSites, GemmOutputsAreBf16UnderMixedPrecision) {
  torch::set_num_threads(1);
  check_site("act:blocks.1.mlp.fc1", "bitflip", "exp2", true);
  check_site("actgrad:head", "bitflip_designed", "none", true);
  check_site("grad:blocks.0.mlp.fc1.weight", "bitflip", "exp1", true);  // master gradients stay fp32
  const auto c = config(true);
  EXPECT_EQ(&site_format(parse_fault_site("act:head"), c.model), &bf16());
  EXPECT_EQ(&site_format(parse_fault_site("grad:tok_emb"), c.model), &fp32());
}

TEST(TrainingSites, BadSitesAreNamed) {
  const auto m = config(false).model;
  EXPECT_NE(check_site(parse_fault_site("act:blocks.9.mlp.fc1"), m).find("names no linear layer"), std::string::npos);
  EXPECT_NE(check_site(parse_fault_site("grad:nope"), m).find("names no parameter"), std::string::npos);
  EXPECT_EQ(check_site(parse_fault_site("gemm:all"), m), "");
  EXPECT_THROW(parse_fault_site("weights:x"), value_error);
  EXPECT_THROW(parse_fault_site("act:"), value_error);
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
    std::string why, axis;
    const auto model = parse_fault_model("bitflip");
    inj.plan.spec = {model, *resolve_fault_bits(model, parse_bit_choice("mant23"), fp32(), &why, &axis), site_rule{}};
    inj.plan.rank = 1, inj.fire_at = 6;
    dp_trainer t(c.model, c.optim, c.dp, &d.train);
    replica start = fresh_replica(c.model, 3);
    start.step = 5;
    t.start_from(start);
    t.step(nullptr);  // step 5: clean
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
    std::vector<event> at7;
    for (auto& e : rec.events)
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

}  // namespace
