// Data distributions for workload inputs. Each has a canonical text form used
// in suites, on the command line (--axis distribution=...) and in result keys:
//   normal(mu,sigma)            N(mu, sigma^2)
//   uniform(a,b)                U(a, b)
//   trunc_normal(mu,sigma,lo,hi) N(mu, sigma^2) conditioned on [lo, hi] (rejection)
//   abs_normal(mu,sigma)        |N(mu, sigma^2)|  (the e_max calibration data of 001)
//   log_magnitude(mu,sigma)     s * 2^N(mu, sigma^2), s = +-1 equally likely (000, Table 3)
//   uniform_int(a,b)            integers uniform on [a, b]
//   lognormal(mu,sigma)         exp(N(mu, sigma^2))
//   gamma(k,theta)              Gamma with shape k and scale theta (skewed)
//   sparse_int(p0,a,b)          0 with probability p0, else uniform_int(a,b)
//                               (post-ReLU activations quantized with zero point 0)
//   npy(PATH)                   values drawn uniformly, with replacement, from a .npy file
// Samples are drawn in double and rounded (RNE) to the workload's format.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/random/streams.hpp"

namespace sdc {

struct distribution {
  enum class kind { normal, uniform, trunc_normal, abs_normal, log_magnitude, uniform_int, sparse_int, lognormal, gamma, npy };
  kind k = kind::normal;
  double p[4] = {0, 1, 0, 0};
  std::string path;                                  // npy
  std::shared_ptr<const std::vector<double>> values;  // npy: loaded once

  std::string text() const;  // canonical form
  double sample(rng& g) const;
  void fill(rng& g, std::span<double> out) const;
};

// Parses the canonical form; throws value_error with the expected syntax.
// `base_dir` resolves relative npy paths (the suite file's folder).
distribution parse_distribution(std::string_view text, const std::string& base_dir = "");

}  // namespace sdc
