// 003's CheckSum (matmul_checksum.hpp) as a training detector, on every step,
// not only after a strike-out: the upper bound of what the combined scheme's
// CheckSum can find. bf16 GEMMs only, as the originals, unless bf16_only =
// false; on the GEMMs its original checks (`scope` = original: torch_npu the
// forward attention products, mindspore every linear GEMM) or every linear
// GEMM (`linear`). Blames the rank whose GEMM fails (per_rank()).
#include "detectors/ascend/matmul_checksum.hpp"
#include "detectors/training_gemm_frame.hpp"

namespace sdc {
namespace {

class checksum_check final : public gemm_checks {
 public:
  checksum_check(checksum_variant v, checksum_scope scope, bool bf16_only) : v_(v), scope_(scope), bf16_only_(bf16_only) {}
  detector_needs needs() const override { return checksum_needs(v_, scope_, true); }

 private:
  const std::vector<gemm_record>& records(const training_step& s) const override { return checksum_records(s, v_, scope_); }
  bool wants(const gemm_record& g) const override { return g.bf16 || !bf16_only_; }
  verdict check_gemm(const gemm_record& g) override {
    const checksum_result c = matmul_checksum(checksum_operands(g), v_);
    return {c.failed, c.worst_ratio};
  }
  checksum_variant v_;
  checksum_scope scope_;
  bool bf16_only_;
};

using T = param_spec::type;
SDCBENCH_REGISTER_DETECTOR({view_kind::training, "matmul_checksum",
                            "003's bf16 matmul CheckSum on every step (not only after a strike-out), on its original's GEMMs "
                            "or every linear GEMM; blames the rank whose GEMM fails",
                            {{"variant", T::choice, "mindspore", "mindspore (the bound as is) or torch_npu (x5, recompute)",
                              {"mindspore", "torch_npu"}},
                             {"scope", T::choice, "original",
                              "original (the variant's own: torch_npu the torch.matmul calls, our forward attention "
                              "products; mindspore every 2-D MatMul, our linear GEMMs) or linear (named variant: every "
                              "linear GEMM, forward and backward)",
                              {"original", "linear"}},
                             {"bf16_only", T::boolean, true, "check bf16 GEMMs only, as the originals", {}}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              return std::make_unique<checksum_check>(
                                  p.choice("variant") == "torch_npu" ? checksum_variant::torch_npu : checksum_variant::mindspore,
                                  parse_checksum_scope(p.choice("scope")), p.boolean("bf16_only"));
                            }});

}  // namespace
}  // namespace sdc
