#include "foundation/random/distributions.hpp"

#include <boost/random/normal_distribution.hpp>
#include <boost/random/gamma_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"

namespace sdc {
namespace {

struct dist_syntax {
  std::string_view name;
  distribution::kind k;
  int nparams;
  std::string_view params;
};
constexpr dist_syntax k_syntax[] = {
    {"normal", distribution::kind::normal, 2, "mu,sigma"},
    {"uniform", distribution::kind::uniform, 2, "a,b"},
    {"trunc_normal", distribution::kind::trunc_normal, 4, "mu,sigma,lo,hi"},
    {"abs_normal", distribution::kind::abs_normal, 2, "mu,sigma"},
    {"log_magnitude", distribution::kind::log_magnitude, 2, "mu,sigma"},
    {"uniform_int", distribution::kind::uniform_int, 2, "a,b"},
    {"sparse_int", distribution::kind::sparse_int, 3, "p0,a,b"},
    {"lognormal", distribution::kind::lognormal, 2, "mu,sigma"},
    {"gamma", distribution::kind::gamma, 2, "k,theta"},
};

std::string all_forms() {
  std::string s;
  for (const auto& d : k_syntax) s += fmt::format("{}({}), ", d.name, d.params);
  return s + "npy(PATH)";
}

std::string num(double v) { return fmt::format("{}", v); }  // shortest round-trip form

}  // namespace

std::string distribution::text() const {
  if (k == kind::npy) return "npy(" + path + ")";
  for (const auto& d : k_syntax) {
    if (d.k != k) continue;
    std::string s = std::string(d.name) + "(";
    for (int i = 0; i < d.nparams; ++i) {
      if (i) s += ',';  // appended apart: GCC 12 warns falsely on "," + std::string here in some unity files
      s += num(p[i]);
    }
    return s + ")";
  }
  return "?";
}

double distribution::sample(rng& g) const {
  switch (k) {
    case kind::normal: return boost::random::normal_distribution<double>(p[0], p[1])(g);
    case kind::uniform: return boost::random::uniform_real_distribution<double>(p[0], p[1])(g);
    case kind::trunc_normal: {
      boost::random::normal_distribution<double> n(p[0], p[1]);
      for (;;) {
        const double x = n(g);
        if (x >= p[2] && x <= p[3]) return x;
      }
    }
    case kind::abs_normal: return std::fabs(boost::random::normal_distribution<double>(p[0], p[1])(g));
    case kind::log_magnitude: {
      const double e = boost::random::normal_distribution<double>(p[0], p[1])(g);
      const double s = boost::random::uniform_int_distribution<int>(0, 1)(g) ? 1.0 : -1.0;
      return s * std::exp2(e);
    }
    case kind::uniform_int:
      return double(boost::random::uniform_int_distribution<int64_t>(int64_t(p[0]), int64_t(p[1]))(g));
    case kind::lognormal: return std::exp(boost::random::normal_distribution<double>(p[0], p[1])(g));
    case kind::gamma: return boost::random::gamma_distribution<double>(p[0], p[1])(g);
    case kind::sparse_int:
      if (boost::random::uniform_real_distribution<double>(0, 1)(g) < p[0]) return 0.0;
      return double(boost::random::uniform_int_distribution<int64_t>(int64_t(p[1]), int64_t(p[2]))(g));
    case kind::npy: {
      const auto& v = *values;
      return v[boost::random::uniform_int_distribution<size_t>(0, v.size() - 1)(g)];
    }
  }
  return 0;
}

void distribution::fill(rng& g, std::span<double> out) const {
  for (auto& x : out) x = sample(g);
}

distribution parse_distribution(std::string_view text, const std::string& base_dir) {
  const auto open = text.find('(');
  if (open == std::string_view::npos || text.back() != ')')
    throw value_error("expected a distribution: " + all_forms() + "; got '" + std::string(text) + "'");
  const std::string_view name = text.substr(0, open);
  const std::string_view args = text.substr(open + 1, text.size() - open - 2);
  distribution d;
  if (name == "npy") {
    d.k = distribution::kind::npy;
    d.path = std::string(args);
    std::filesystem::path full = d.path;
    if (full.is_relative() && !base_dir.empty()) full = std::filesystem::path(base_dir) / full;
    auto t = read_npy(full.string());
    auto vals = std::make_shared<std::vector<double>>(t.values());
    if (vals->empty()) throw value_error("npy(" + d.path + "): the file holds no values to draw from");
    d.values = vals;
    return d;
  }
  for (const auto& s : k_syntax) {
    if (s.name != name) continue;
    d.k = s.k;
    int n = 0;
    size_t pos = 0;
    std::string a(args);
    while (n < 4 && pos <= a.size()) {
      const size_t comma = a.find(',', pos);
      const std::string tok = a.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      try {
        size_t used = 0;
        d.p[n] = std::stod(tok, &used);
        if (used != tok.size()) throw std::invalid_argument(tok);
      } catch (const std::exception&) {
        throw value_error(fmt::format("{}({}): parameter '{}' is not a number", s.name, s.params, tok));
      }
      ++n;
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (n != s.nparams)
      throw value_error(fmt::format("{} takes {} parameters ({}); got '{}'", s.name, s.nparams, s.params, text));
    if ((d.k == distribution::kind::normal || d.k == distribution::kind::trunc_normal ||
         d.k == distribution::kind::abs_normal || d.k == distribution::kind::log_magnitude ||
         d.k == distribution::kind::lognormal) &&
        !(d.p[1] > 0))
      throw value_error(fmt::format("{}: sigma must be > 0; got {}", text, d.p[1]));
    if ((d.k == distribution::kind::uniform || d.k == distribution::kind::uniform_int) && !(d.p[0] < d.p[1]))
      throw value_error(fmt::format("{}: need a < b", text));
    if (d.k == distribution::kind::gamma && !(d.p[0] > 0 && d.p[1] > 0))
      throw value_error(fmt::format("{}: need k > 0 and theta > 0", text));
    if (d.k == distribution::kind::sparse_int && !(d.p[0] >= 0 && d.p[0] <= 1 && d.p[1] < d.p[2]))
      throw value_error(fmt::format("{}: need 0 <= p0 <= 1 and a < b", text));
    if (d.k == distribution::kind::trunc_normal && !(d.p[2] < d.p[3]))
      throw value_error(fmt::format("{}: need lo < hi", text));
    return d;
  }
  throw value_error("unknown distribution '" + std::string(name) + "'; expected one of " + all_forms());
}

}  // namespace sdc
