#include "detectors/gemm/abft_checksums.hpp"

#include "foundation/errors.hpp"

namespace sdc {

checksum_weights parse_checksum_weights(const std::string& s) {
  if (s == "linear") return checksum_weights::linear;
  if (s == "centred") return checksum_weights::centred;
  if (s == "sinh") return checksum_weights::sinh;
  throw value_error("expected weights linear, centred or sinh; got '" + s + "'");
}

double checksum_weight(checksum_weights w, int64_t j, int64_t n) {
  switch (w) {
    case checksum_weights::linear: return double(j + 1);
    case checksum_weights::centred: return double(j) - 0.5 * double(n - 1);
    case checksum_weights::sinh: {
      if (n < 2) return 0.0;
      const double x = (2.0 * double(j) - double(n - 1)) / double(n - 1);
      return 0.5 * double(n) * std::sinh(2.0 * x) / std::sinh(2.0);
    }
  }
  return 0;
}

double invert_checksum_weight(checksum_weights w, double value, int64_t n) {
  switch (w) {
    case checksum_weights::linear: return value - 1.0;
    case checksum_weights::centred: return value + 0.5 * double(n - 1);
    case checksum_weights::sinh: {
      if (n < 2) return 0.0;
      const double x = std::asinh(value * std::sinh(2.0) / (0.5 * double(n))) / 2.0;
      return 0.5 * (x * double(n - 1) + double(n - 1));
    }
  }
  return 0;
}

std::vector<param_spec> abft_common_params() {
  return {
      {"point", param_spec::type::choice, "offline", "verify the stored output (offline) or the fp32 accumulator (fused)",
       {"offline", "fused"}},
      {"weights", param_spec::type::choice, "linear", "position weights for localization (eqs. (1), (9))",
       {"linear", "centred", "sinh"}},
      {"checks", param_spec::type::choice, "rows+cols", "which checksums are verified", {"rows", "rows+cols"}},
      {"localize", param_spec::type::choice, "auto",
       "find the column by weights (D2/D1, eq. 9), the worst column check, or auto (columns if checked)",
       {"auto", "weights", "columns"}},
      {"threshold_scale", param_spec::type::number, 1.0, "multiplies every threshold (threshold sweeps)"},
      {"checksum_rounding", param_spec::type::choice, "output",
       "offline: reference checksums rounded to the output format (the encoded GEMM of 001) or kept in the accumulator",
       {"output", "accumulator"}},
      {"tightness", param_spec::type::boolean, true,
       "report threshold / MPFR-exact actual difference on clean runs (slow on large GEMMs)"},
  };
}

abft_options read_abft_options(const detector_params& p) {
  abft_options o;
  o.fused = p.choice("point") == "fused";
  o.weights = parse_checksum_weights(p.choice("weights"));
  o.check_columns = p.choice("checks") == "rows+cols";
  const std::string l = p.choice("localize");
  o.localize = l == "weights" ? localize_by::weights : l == "columns" ? localize_by::columns : localize_by::automatic;
  o.threshold_scale = p.number("threshold_scale");
  o.round_reference_to_output = p.choice("checksum_rounding") == "output";
  o.tightness = p.boolean("tightness");
  return o;
}

}  // namespace sdc
