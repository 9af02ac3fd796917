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
#include "workloads/training/trainer/training_run.hpp"
#include "workloads/training/training_sites.hpp"
#include "training_site_events.hpp"

namespace {

using namespace sdc;
using namespace sdc::train;
using namespace sdc::testing;
using torch::Tensor;

std::vector<event> run_sites(const train_config& c, const train_data& d, site_injector* site, test_injector* inj) {
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
    case fault_site::kind::wcode:
    case fault_site::kind::wscale:
    case fault_site::kind::xcode:
    case fault_site::kind::xscale: return false;  // check_mx_site's
    case fault_site::kind::attention: return e.what == fmt::format("attn {} {}", s.name.substr(7), attention_point_name(s.point));
  }
  return false;
}

// An attention fault's record names the element it changed: at its (batch,
// head, row, col) of the [B, H, T, X] tensor, the clean run holds its old bits
// and the faulty run its new ones.
void check_attention_records(const fault_site& s, const site_injector& site, const torch::Tensor& clean,
                             const torch::Tensor& faulty, size_t n) {
  const auto& recs = site.attention_faults();
  ASSERT_EQ(recs.size(), n);
  ASSERT_EQ(faulty.dim(), 4);
  for (const auto& f : recs) {
    EXPECT_EQ(fmt::format("blocks.{}", f.layer), s.name);
    EXPECT_EQ(f.point, s.point);
    if (s.in_softmax()) {
      EXPECT_EQ(f.col, 0);
    }
    const auto at = [&](const torch::Tensor& t) { return torch_target(t.index({f.batch, f.head, f.row, f.col}).reshape({1}).contiguous()).bits_at(0); };
    EXPECT_EQ(at(clean), f.old_bits);
    EXPECT_EQ(at(faulty), f.new_bits);
  }
}

void check_site(const std::string& site_text, const std::string& model_text, const std::string& bit, bool bf16,
                const std::string& element = "uniform") {
  SCOPED_TRACE(site_text + " / " + model_text + " / " + bit + (bf16 ? " / bf16" : " / fp32") + " / " + element);
  const fault_site s = parse_fault_site(site_text);
  train_config c = config(bf16);
  c.model = model_for_site(s, c.model);
  const auto d = load_train_data(c);
  ASSERT_EQ(check_site(s, c.model), "");
  test_injector inj;
  inj.plan.spec = spec_for(model_text, bit, site_format(s, c.model), parse_site_rule(element));
  inj.plan.rank = 1, inj.fire_at = 6;  // the second step: run_sites() starts from a replica at step 5
  site_injector site(s, c.model, 1.0);
  const auto clean = run_sites(c, d, nullptr, nullptr);
  const auto faulty = run_sites(c, d, &site, &inj);
  ASSERT_EQ(clean.size(), faulty.size());
  ASSERT_FALSE(inj.done.empty()) << "nothing injected";
  size_t rec = 0, hit = 0;
  for (size_t k = 0; k < clean.size() && rec < inj.done.size(); ++k) {
    const event& a = clean[k];
    const event& b = faulty[k];
    ASSERT_EQ(a.what, b.what);
    const bool target = b.step == inj.fire_at && b.rank == inj.plan.rank && expected_event(s, c.model, b);
    if (!target) {
      if (hit == 0) {
        ASSERT_TRUE(torch::equal(a.value, b.value)) << b.what << " step " << b.step << " rank " << b.rank << " changed before the fault";
      }
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
      if (s.k == fault_site::kind::attention) check_attention_records(s, site, a.value, b.value, n_here);
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

// Every attention site, forward and backward, in fp32 and bf16: the records'
// elements change and nothing else, at the promised step and rank.
TEST(TrainingSites, AttentionSitesLandWhereTheirRecordsSay) {
  torch::set_num_threads(1);
  for (const char* point : {"scores", "softmax_in", "row_max", "row_sum", "probs", "context", "scores_grad", "probs_grad",
                            "context_grad"}) {
    const std::string site = fmt::format("attn_{}:blocks.1", point);
    check_site(site, "bitflip", "mant1", false);
    check_site(site, "multiply(1000)", "none", false, "max_abs");
    check_site(site, "bitflip", "exp1", true);
  }
  check_site("attn_probs:blocks.0", "bitflip", "mant1", false, "full_row");
  check_site("attn_scores_grad:blocks.0", "bitflip_random(1,mant)", "none", false, "run(5)");
}

// Multi-element patterns land at every site exactly where their records say.
TEST(TrainingSites, PatternsLandWhereTheirRecordsSay) {
  torch::set_num_threads(1);
  for (const char* site : {"weight:blocks.0.mlp.fc1.weight", "grad:blocks.0.mlp.fc1.weight", "bucket", "act:blocks.0.mlp.fc1",
                           "gemm:blocks.1.mlp.fc2", "attn_softmax_in:blocks.0", "attn_row_sum:blocks.1", "attn_context_grad:blocks.1"})
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

// Precision mxfp8: a fault in the forward GEMM's quantized weight or
// activation (codes or block scales). Up to it every event is the clean
// run's; there exactly the recorded codes or scales differ, with the recorded
// bits, and exactly the elements the block records name move, with their
// recorded values, each within its code's element or its scale's block.
void check_mx_site(const std::string& site_text, const std::string& model_text, const std::string& bit) {
  SCOPED_TRACE(site_text + " / " + model_text + " / " + bit);
  const train_config c = config(true, true);
  const auto d = load_train_data(c);
  const fault_site s = parse_fault_site(site_text);
  ASSERT_EQ(check_site(s, c.model), "");
  test_injector inj;
  inj.plan.spec = spec_for(model_text, bit, site_format(s, c.model), parse_site_rule("uniform"));
  inj.plan.rank = 1, inj.fire_at = 6;
  site_injector site(s, c.model, 1.0);
  const auto clean = run_sites(c, d, nullptr, nullptr);
  const auto faulty = run_sites(c, d, &site, &inj);
  ASSERT_EQ(clean.size(), faulty.size());
  ASSERT_EQ(inj.done.size(), 1u);
  ASSERT_EQ(site.block_records().size(), 1u);
  const auto& br = site.block_records()[0];
  const bool weight = s.k == fault_site::kind::wcode || s.k == fault_site::kind::wscale;
  const bool scale = s.k == fault_site::kind::wscale || s.k == fault_site::kind::xscale;
  EXPECT_EQ(br.part, scale ? block_part::block_scale : block_part::code);
  const auto layers = linear_names(c.model);
  const std::string at = fmt::format("quant {} forward {}", std::find(layers.begin(), layers.end(), s.name) - layers.begin(), weight ? 1 : 0);
  size_t k = 0;
  for (; k < clean.size(); ++k) {
    const bool target = faulty[k].step == inj.fire_at && faulty[k].rank == inj.plan.rank && faulty[k].what == at;
    if (target) break;
    ASSERT_TRUE(torch::equal(clean[k].value, faulty[k].value)) << faulty[k].what << " changed before the fault";
  }
  ASSERT_LT(k + 2, clean.size()) << "the site's event never came";
  // The part: exactly the recorded code or scale, with its recorded bits.
  const size_t part = k + (scale ? 2 : 1);
  const Tensor pc = clean[part].value, pf = faulty[part].value;
  for (int64_t i = 0; i < pc.numel(); ++i) {
    const uint8_t a = pc[i].item<uint8_t>(), b = pf[i].item<uint8_t>();
    if (i == inj.done[0].index) EXPECT_TRUE(a == inj.done[0].old_bits && b == inj.done[0].new_bits) << "the recorded one";
    else EXPECT_EQ(a, b) << "index " << i << " changed without a record";
  }
  // The values: exactly the moved elements, within the fault's reach.
  const Tensor vc = clean[k].value.flatten(), vf = faulty[k].value.flatten();
  std::vector<int64_t> moved;
  for (int64_t i = 0; i < vc.numel(); ++i)
    if (std::bit_cast<uint32_t>(vc[i].item<float>()) != std::bit_cast<uint32_t>(vf[i].item<float>())) moved.push_back(i);
  EXPECT_EQ(moved, br.moved);
  for (size_t i = 0; i < br.moved.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(vf[br.moved[i]].item<float>()), std::bit_cast<uint32_t>(br.new_values[i]));
  EXPECT_LE(br.moved.size(), scale ? 32u : 1u);
  if (scale) EXPECT_GE(br.moved.size(), 1u) << "a scale's exponent flip moves its block's nonzero elements";
}

TEST(TrainingSites, MxfpOperandSitesChangeExactlyTheirRecords) {
  torch::set_num_threads(1);
  for (const char* site : {"wcode:blocks.0.mlp.fc1", "wscale:blocks.1.attn.qkv", "xcode:blocks.1.mlp.fc2", "xscale:head"}) {
    const bool scale = std::string(site).find("scale") != std::string::npos;
    check_mx_site(site, "bitflip", scale ? "exp8" : "exp1");
    check_mx_site(site, "bitflip_random(1,all)", "none");
  }
  const auto c = config(true, true);
  EXPECT_EQ(&site_format(parse_fault_site("wscale:head"), c.model), &e8m0());
  EXPECT_EQ(&site_format(parse_fault_site("xcode:head"), c.model), &element_format(elem_type::fp8_e4m3));
  EXPECT_NE(check_site(parse_fault_site("wcode:head"), config(true).model).find("only with model precision mxfp8"), std::string::npos);
  EXPECT_NE(check_site(parse_fault_site("xscale:all"), c.model), "");
}

TEST(TrainingSites, BadSitesAreNamed) {
  const auto m = config(false).model;
  EXPECT_NE(check_site(parse_fault_site("act:blocks.9.mlp.fc1"), m).find("names no linear layer"), std::string::npos);
  EXPECT_NE(check_site(parse_fault_site("grad:nope"), m).find("names no parameter"), std::string::npos);
  EXPECT_EQ(check_site(parse_fault_site("gemm:all"), m), "");
  EXPECT_THROW(parse_fault_site("weights:x"), value_error);
  EXPECT_THROW(parse_fault_site("act:"), value_error);
  EXPECT_NE(check_site(parse_fault_site("attn_scores:blocks.2"), m).find("names no block"), std::string::npos);
  EXPECT_NE(check_site(parse_fault_site("attn_probs:head"), m).find("names no block"), std::string::npos);
  EXPECT_NE(check_site(parse_fault_site("attn_probs:blocks.01"), m).find("names no block"), std::string::npos);
  EXPECT_EQ(check_site(parse_fault_site("attn_row_sum:blocks.1"), m), "");
  EXPECT_EQ(parse_fault_site("attn_scores_grad:blocks.0").point, attention_point::scores_grad);
  EXPECT_EQ(parse_fault_site("attn_scores_grad:blocks.0").text(), "attn_scores_grad:blocks.0");
  EXPECT_TRUE(parse_fault_site("attn_row_max:blocks.0").in_softmax());
  EXPECT_FALSE(model_for_site(parse_fault_site("attn_probs:blocks.0"), m).explicit_softmax);
  EXPECT_THROW(parse_fault_site("attn_qk:blocks.0"), value_error);
}

}  // namespace
