// block_scales: a plain check of a block-scaled GEMM's quantized inputs
// themselves (issue 69's baseline for scale faults; ours, following no
// published check). Per block scale of A and of B:
//   range      the scale is finite, positive, and its binade log2|s| lies
//              within [lo - slack, hi + slack], lo and hi the binades of the
//              clean tensor's scales seen at encode (for A too: the most a
//              check could know of an activation's range);
//   top binade the block's largest |element| is at least 2^emax of the
//              element type, or the block is all zero: what quantization
//              leaves (MX's floor rule, microxcaling mx_ops.py::_quantize_mx,
//              puts amax / scale in [2^emax, 2^(emax+1)); NVFP4's E4M3 scale
//              puts it near 6, TransformerEngine core_nvfp4.cuh): the scale
//              monotonic with its block's codes; and every code is finite.
// NVFP4's tensor scale: finite, positive, binade within slack of the clean one.
// Score = the number of failing blocks (and tensor scales); flagged when > 0.
// It reads the codes and scales only: a block-scaled GEMM cell's (its
// constructor refuses any other).
#include <cmath>

#include <fmt/format.h>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

struct scale_range {
  double lo = INFINITY, hi = -INFINITY, tensor = 0;
};

int binade_of(double s) { return std::ilogb(s); }

scale_range range_of(const block_tensor& t) {
  scale_range r;
  for (uint8_t c : t.scales) {
    const double s = decode_scale(t.fmt->scale, c);
    if (!(std::isfinite(s) && s > 0)) continue;
    r.lo = std::min(r.lo, double(binade_of(s))), r.hi = std::max(r.hi, double(binade_of(s)));
  }
  r.tensor = t.tensor_scale;
  return r;
}

class block_scale_check final : public gemm_detector_t<block_scale_check> {
 public:
  explicit block_scale_check(double slack) : slack_(slack) {}

  template <class T>
  void encode_t(const gemm_data<T>& d) {
    if (d.a_blocks) a_ = range_of(*d.a_blocks);
    if (d.b_blocks) b_ = range_of(*d.b_blocks);
  }

  template <class T>
  verdict verify_t(const gemm_data<T>& d) {
    if (!d.a_blocks || !d.b_blocks) throw value_error("block_scales: the GEMM hands no block-scaled inputs");
    int64_t row = -1, col = -1;
    const int64_t bad_a = failing(*d.a_blocks, a_, &row), bad_b = failing(*d.b_blocks, b_, &col);
    verdict v{bad_a + bad_b > 0, double(bad_a + bad_b)};
    // A failing block of A names its row of C, of B its column (the only one when one tensor fails).
    if (bad_a > 0 && bad_b == 0) v.located_row = row;
    if (bad_b > 0 && bad_a == 0) v.located_col = col;
    return v;
  }

 private:
  bool scale_fails(double s, const scale_range& r) const {
    if (!(std::isfinite(s) && s > 0)) return true;
    const int e = binade_of(s);
    return e < r.lo - slack_ || e > r.hi + slack_;
  }

  // The failing blocks of t; *where: the row (axis 1) or column (axis 0) of the last.
  int64_t failing(const block_tensor& t, const scale_range& r, int64_t* where) const {
    const double top = std::ldexp(1.0, elem_emax(t.fmt->elem));
    int64_t bad = 0;
    for (int64_t b = 0; b < int64_t(t.scales.size()); ++b) {
      const double s = decode_scale(t.fmt->scale, t.scales[size_t(b)]);
      double amax = 0;
      bool finite = true;
      for (int64_t i : t.elements_of_block(b)) {
        const double e = decode_element(t.fmt->elem, t.codes[size_t(i)]);
        finite &= std::isfinite(e);
        amax = std::max(amax, std::fabs(e));
      }
      const bool zero_block = amax == 0 && finite;
      const bool fails = !finite || (!zero_block && (scale_fails(s, r) || amax < top));
      if (!fails) continue;
      ++bad;
      *where = t.axis == 1 ? b / t.scale_cols() : b % t.scale_cols();
    }
    if (t.fmt->tensor_scale) {
      const double ts = t.tensor_scale;
      const bool fails = !(std::isfinite(ts) && ts > 0) || std::abs(binade_of(ts) - binade_of(r.tensor)) > slack_;
      bad += fails;
    }
    return bad;
  }

  double slack_;
  scale_range a_, b_;
};

SDCBENCH_REGISTER_DETECTOR({view_kind::gemm, "block_scales",
                            "block-scaled GEMMs: each block scale finite, positive, within the clean tensor's binades "
                            "(+- slack), and its block's largest code in the element's top binade (ours; baseline for scale faults)",
                            {{"slack", param_spec::type::number, 0.0,
                              "binades a scale may lie outside the clean tensor's range [lo, hi] (>= 0)"}},
                            [](const detector_params& p, const detector_context& c) -> std::unique_ptr<detector> {
                              if (!c.gemm || !c.gemm->block)
                                throw value_error(fmt::format("block_scales: runs on block-scaled GEMM cells (dtype mxfp8_e4m3, ..., "
                                                              "nvfp4), not {}", c.dtype ? c.dtype->name : "this workload"));
                              if (!(p.number("slack") >= 0))
                                throw value_error(fmt::format("block_scales: slack: expected a number >= 0; got {}", p.number("slack")));
                              return std::make_unique<block_scale_check>(p.number("slack"));
                            }});

}  // namespace
}  // namespace sdc
