// The floating-point GEMM workload: C = A x B for fp64, fp32, and bf16/fp16
// inputs with fp32 accumulation and output rounding (offline verification
// point of 001_e8c16cbdc32a8eac.txt section 3.6; the fp32 accumulator is also
// handed to detectors for the fused point).
//
// Axes: dtype, distribution, shape (MxKxN), accumulation, fault, bit, target
// (A, B: inputs, after any encoding; C: stored output; acc: fp32 accumulator
// before output rounding), site. A trial is a one-step episode: the pair's
// data, the kernel, the fault in a copy of the target, the views; ground
// truth: the worst changed output element against MPFR (err_ulps, err_rel,
// err_over_noise), and each located correction judged against the exact value.
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/random/distributions.hpp"
#include "protocol/views/gemm_view.hpp"
#include "protocol/typed_workload.hpp"
#include "workloads/gemm/gemm_cell.hpp"
#include "workloads/gemm/gemm_runner.hpp"

namespace sdc {
namespace {

class gemm_workload final : public typed_workload<gemm_cell> {
 public:
  gemm_workload() {
    auto simple = [](auto parse) {
      return [parse](const std::string& v, const std::string&) { return parse(v); };
    };
    axes_ = {
        {"dtype", "element format: bf16, fp16 (fp32 accumulation, output rounded), fp32, fp64; block-scaled: mxfp8_e4m3, "
         "mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4_e2m1, mxint8, nvfp4 (A and B quantized along K, the hardware's product)",
         {"fp32"},
         simple([](const std::string& v) {
           return is_block_dtype(v) ? std::string(block_format_by_name(v).name) : std::string(format_by_name(v).name);
         })},
        {"distribution", "input values: normal(mu,sigma), uniform(a,b), trunc_normal(mu,sigma,lo,hi), abs_normal(mu,sigma), log_magnitude(mu,sigma), npy(PATH)",
         {"normal(0,1)"},
         [](const std::string& v, const std::string& dir) { return parse_distribution(v, dir).text(); }},
        {"shape", "MxKxN: A is MxK, B is KxN (the papers' (M, K, N))", {"64x256x64"},
         simple([](const std::string& v) { return parse_gemm_shape(v).text(); })},
        {"accumulation", "per-element order: sequential, kblock(B), pairwise, openblas", {"sequential"},
         simple([](const std::string& v) { return parse_accumulation(v).text(); })},
        fault_axis({"bitflip"}),
        bit_axis("floating-point formats", {"exp1"}),
        {"target", "where the fault lands: A, B (inputs after encoding), C (stored output), acc (fp32 accumulator)",
         {"C"}, simple([](const std::string& v) { return std::string(gemm_target_name(parse_gemm_target(v))); })},
        element_axis("site", false, {"uniform"}),
        {"weights", "B from a file: none, file(PATH) (.npy), file(PATH#TENSOR) (.safetensors); ^T transposes", {"none"},
         [](const std::string& v, const std::string& dir) {
           if (v != "none") load_weights(v, dir);  // fails early on a bad file
           return v;
         }},
        {"faults_per_pair", "faulty trials that share one matrix pair (each with its own fault)", {"1"},
         simple([](const std::string& v) { return std::to_string(parse_integer_at_least(v, 1, "faults_per_pair")); })},
        // Block-scaled cells' axes (issue 69), appended last and keyless at
        // their defaults: the plain GEMM's cells keep their keys.
        {"part", "block-scaled dtypes: the part of A or B a fault lands in: code, block_scale, tensor_scale (nvfp4)", {"code"},
         simple([](const std::string& v) { return std::string(block_part_name(parse_block_part(v))); }), "code"},
        {"encode", "block-scaled dtypes: the checks' checksums taken before_quant (fp32 inputs) or after_quant (dequantized)",
         {"after_quant"}, simple([](const std::string& v) { return std::string(encode_point_name(parse_encode_point(v))); }),
         "after_quant"},
        {"check_at", "block-scaled dtypes: the output checked: before_output_quant (fp32) or after_output_quant",
         {"before_output_quant"},
         simple([](const std::string& v) { return std::string(check_point_name(parse_check_point(v))); }),
         "before_output_quant"},
        {"out_quant", "block-scaled dtypes: the output re-quantized along N: none or a block format", {"none"},
         simple([](const std::string& v) {
           const block_format* f = parse_out_quant(v);
           return f ? std::string(f->name) : std::string("none");
         }),
         "none"},
    };
  }
  std::string name() const override { return "gemm"; }
  view_kind view() const override { return view_kind::gemm; }
  std::string summary() const override { return "C = A x B in fp64, fp32, bf16/fp16 (fp32 accumulation)"; }
  const std::vector<axis_def>& axes() const override { return axes_; }

  gemm_cell parse_cell(const cell& c) const override { return parse_gemm_cell(c); }

  std::optional<skip_info> skip(const gemm_cell& g) const override {
    if (auto s = skip_block(g)) return s;
    if (g.target == gemm_target::acc && (g.dtype == &fp32() || g.dtype == &fp64()))
      return skip_info{"target", fmt::format("{} output is its accumulator: no separate acc target (use C)", g.dtype->name)};
    std::string why, axis;
    if (!fault_spec_for(g.faults, target_format(g), &why, &axis)) return skip_info{axis, why};
    if (!g.block && g.dtype != &fp64() && g.dtype != &fp32() && g.dtype != &bf16() && g.dtype != &fp16())
      return skip_info{"dtype", fmt::format("the gemm workload runs bf16, fp16, fp32 and fp64, not {}", g.dtype->name)};
    const auto [rows, cols] = target_dims(g);
    if (auto w = g.faults.element.check(rows, cols); !w.empty()) return skip_info{"site", w};
    if (g.weights && (g.weights->rows != g.shape.k || g.weights->cols != g.shape.n))
      return skip_info{"weights", fmt::format("{} is {}x{} (K x N); the cell's shape {} needs {}x{}", g.weights_spec,
                                              g.weights->rows, g.weights->cols, g.shape.text(), g.shape.k, g.shape.n)};
    return std::nullopt;
  }

  detector_context context_of(const gemm_cell& g) const override {
    detector_context ctx{g.dtype, g.out_fmt};
    ctx.gemm = gemm_context{g.shape, g.order, g.block};
    return ctx;
  }
  std::vector<std::string> truth_metrics() const override {
    return {"err_ulps", "err_rel", "err_over_noise", "dev_rel_quantized", "err_rel_unquantized", "err_over_quant_error"};
  }

  fault_plan plan_for(const gemm_cell& g) const override { return plan_of(g.faults, target_format(g)); }

  std::unique_ptr<episode_runner> runner(const gemm_cell& g, uint64_t seed,
                                         const std::vector<detector_needs>& needs) const override {
    return g.block ? make_block_gemm_runner(g, seed, needs) : make_gemm_runner(g, seed, needs);
  }

 private:
  // What a block-scaled axis asks of a cell, and what a block-scaled cell
  // cannot run (each skipped on the axis to blame).
  static std::optional<skip_info> skip_block(const gemm_cell& g) {
    if (!g.block) {
      if (g.part != block_part::code) return skip_info{"part", "part applies to block-scaled dtypes only"};
      if (g.encode != encode_point::after_quant) return skip_info{"encode", "encode applies to block-scaled dtypes only"};
      if (g.check_at != check_point::before_output_quant) return skip_info{"check_at", "check_at applies to block-scaled dtypes only"};
      if (g.out_quant) return skip_info{"out_quant", "out_quant applies to block-scaled dtypes only"};
      return std::nullopt;
    }
    if (g.target != gemm_target::A && g.target != gemm_target::B)
      return skip_info{"target", "a block-scaled GEMM's faults land in its quantized inputs: target A or B (with part)"};
    if (g.part == block_part::tensor_scale && !g.block->tensor_scale)
      return skip_info{"part", fmt::format("{} has no tensor scale", g.block->name)};
    if (g.check_at == check_point::after_output_quant && !g.out_quant)
      return skip_info{"check_at", "out_quant none: the output is not re-quantized, nothing to check after it"};
    if (g.out_quant && g.out_quant->tensor_scale)
      return skip_info{"out_quant", "the output is re-quantized to an MX format (NVFP4's tensor amax refuses a non-finite output)"};
    if (g.order.k != accumulation_order::kind::sequential)
      return skip_info{"accumulation", "a block-scaled GEMM adds its blocks' fp32 values in one fixed order (sequential)"};
    if (g.weights) return skip_info{"weights", "block-scaled cells draw B from the distribution"};
    if (g.faults_per_pair != 1) return skip_info{"faults_per_pair", "block-scaled cells draw a pair per trial"};
    return std::nullopt;
  }

  std::vector<axis_def> axes_;
};

const bool gemm_workload_registered = register_workload(std::make_unique<gemm_workload>());

}  // namespace
}  // namespace sdc
