#include "injectors/fault_model.hpp"

#include <algorithm>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <fmt/format.h>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

struct model_name {
  std::string_view name;
  fault_model::kind k;
};
constexpr model_name k_plain[] = {
    {"bitflip", fault_model::kind::bitflip},       {"flip_0to1", fault_model::kind::flip_0to1},
    {"flip_1to0", fault_model::kind::flip_1to0},   {"stuck_at_0", fault_model::kind::stuck_at_0},
    {"stuck_at_1", fault_model::kind::stuck_at_1}, {"random_value", fault_model::kind::random_value},
    {"set_max", fault_model::kind::set_max},       {"bitflip_designed", fault_model::kind::bitflip_designed},
    {"exp_growth", fault_model::kind::exp_growth},
};

std::string expected_models() {
  return "bitflip, bitflip_random(K,FIELD), flip_0to1, flip_1to0, stuck_at_0, stuck_at_1, random_value, "
         "multiply(F), add(D), mix(S,N), set_max, bitflip_designed, exp_growth";
}

}  // namespace

std::vector<std::string> fault_model_names() {
  return {"bitflip", "bitflip_random(K,FIELD)", "flip_0to1", "flip_1to0", "stuck_at_0",
          "stuck_at_1", "random_value", "multiply(F)", "add(D)", "mix(S,N)", "set_max", "bitflip_designed", "exp_growth"};
}

std::string fault_model::text() const {
  switch (k) {
    case kind::multiply: return fmt::format("multiply({})", factor);
    case kind::add: return fmt::format("add({})", factor);
    case kind::bitflip_random: return fmt::format("bitflip_random({},{})", count, field.text);
    case kind::mix: return fmt::format("mix({},{})", factor, nonfinite);
    default:
      for (const auto& m : k_plain)
        if (m.k == k) return std::string(m.name);
  }
  return "?";
}

bool fault_model::uses_bit_axis() const {
  return k == kind::bitflip || k == kind::flip_0to1 || k == kind::flip_1to0 || k == kind::stuck_at_0 ||
         k == kind::stuck_at_1 || k == kind::exp_growth;
}

fault_model parse_fault_model(std::string_view text) {
  fault_model m;
  for (const auto& p : k_plain)
    if (text == p.name) {
      m.k = p.k;
      return m;
    }
  auto args_of = [&](std::string_view name) -> std::optional<std::string> {
    if (text.starts_with(name) && text.size() > name.size() + 1 && text[name.size()] == '(' && text.back() == ')')
      return std::string(text.substr(name.size() + 1, text.size() - name.size() - 2));
    return std::nullopt;
  };
  for (const char* name : {"multiply", "add"}) {
    auto a = args_of(name);
    if (!a) continue;
    m.k = std::string_view(name) == "add" ? fault_model::kind::add : fault_model::kind::multiply;
    try {
      size_t used = 0;
      m.factor = std::stod(*a, &used);
      if (used != a->size() || !std::isfinite(m.factor)) throw std::invalid_argument(*a);
    } catch (const std::exception&) {
      throw value_error(std::string(name) + (m.k == fault_model::kind::add ? "(D): D" : "(F): F") +
                        " must be a finite number; got '" + *a + "'");
    }
    return m;
  }
  if (auto a = args_of("mix")) {
    m.k = fault_model::kind::mix;
    const auto comma = a->find(',');
    auto prob = [](const std::string& v) {
      size_t used = 0;
      double p = -1;
      try { p = std::stod(v, &used); } catch (const std::exception&) {}
      if (used != v.size() || !(p >= 0 && p <= 1)) throw value_error("mix(S,N): S and N must be probabilities in [0, 1]; got '" + v + "'");
      return p;
    };
    if (comma == std::string::npos) throw value_error("mix(S,N): expected two arguments; got '" + *a + "'");
    m.factor = prob(a->substr(0, comma)), m.nonfinite = prob(a->substr(comma + 1));
    if (m.factor + m.nonfinite > 1) throw value_error(fmt::format("mix(S,N): S + N must be at most 1; got {} + {}", m.factor, m.nonfinite));
    return m;
  }
  if (auto a = args_of("bitflip_random")) {
    m.k = fault_model::kind::bitflip_random;
    const auto comma = a->find(',');
    if (comma == std::string::npos) throw value_error("bitflip_random(K,FIELD): expected two arguments; got '" + *a + "'");
    try {
      m.count = std::stoi(a->substr(0, comma));
    } catch (const std::exception&) {
      throw value_error("bitflip_random(K,FIELD): K must be an integer >= 1");
    }
    if (m.count < 1) throw value_error("bitflip_random(K,FIELD): K must be >= 1");
    m.field = parse_bit_set_ref(a->substr(comma + 1));
    return m;
  }
  throw value_error("expected a fault model: " + expected_models() + "; got '" + std::string(text) + "'");
}

std::string bit_choice::text() const {
  if (bits.empty()) return "none";
  std::string s;
  for (const auto& b : bits) s += (s.empty() ? "" : "+") + b.text;
  return s;
}

bit_choice parse_bit_choice(std::string_view text) {
  bit_choice c;
  if (text == "none") return c;
  size_t pos = 0;
  for (;;) {
    const size_t plus = text.find('+', pos);
    c.bits.push_back(parse_bit_ref(text.substr(pos, plus == std::string_view::npos ? std::string_view::npos : plus - pos)));
    if (plus == std::string_view::npos) break;
    pos = plus + 1;
  }
  return c;
}

std::optional<std::vector<int>> bit_choice::resolve(const format& f, std::string* why) const {
  std::vector<int> out;
  for (const auto& b : bits) {
    auto idx = b.resolve(f, why);
    if (!idx) return std::nullopt;
    if (std::find(out.begin(), out.end(), *idx) != out.end()) {
      if (why) *why = "bit " + b.text + " named twice";
      return std::nullopt;
    }
    out.push_back(*idx);
  }
  return out;
}

std::optional<uint64_t> apply_fault(const fault_model& m, const format& f, const std::vector<int>& bits,
                                    uint64_t old_bits, rng& g) {
  uint64_t mask = 0;
  for (int b : bits) mask |= 1ull << b;
  switch (m.k) {
    case fault_model::kind::bitflip: return old_bits ^ mask;
    case fault_model::kind::flip_0to1:
      if ((old_bits & mask) != 0) return std::nullopt;
      return old_bits | mask;
    case fault_model::kind::flip_1to0:
      if ((old_bits & mask) != mask) return std::nullopt;
      return old_bits & ~mask;
    case fault_model::kind::stuck_at_0: return old_bits & ~mask;
    case fault_model::kind::stuck_at_1: return old_bits | mask;
    case fault_model::kind::bitflip_random: {
      // `bits` holds the field; choose `count` distinct bits from it (partial Fisher-Yates).
      std::vector<int> pool = bits;
      uint64_t flip = 0;
      for (int i = 0; i < m.count; ++i) {
        const size_t j = boost::random::uniform_int_distribution<size_t>(size_t(i), pool.size() - 1)(g);
        std::swap(pool[size_t(i)], pool[j]);
        flip |= 1ull << pool[size_t(i)];
      }
      return old_bits ^ flip;
    }
    case fault_model::kind::mix: {
      const double u = boost::random::uniform_01<double>()(g);
      if (u < m.factor) return old_bits ^ (1ull << boost::random::uniform_int_distribution<int>(0, f.bits - 1)(g));
      if (u < m.factor + m.nonfinite) {
        const uint64_t inf = ((1ull << f.exp_bits) - 1) << f.mant_bits, sign = old_bits & (1ull << f.sign_bit());
        return sign | inf | (boost::random::uniform_int_distribution<int>(0, 1)(g) ? f.quiet_bit() : 0);
      }
      fault_model r;
      r.k = fault_model::kind::random_value;
      return apply_fault(r, f, bits, old_bits, g);
    }
    case fault_model::kind::random_value: {
      boost::random::uniform_int_distribution<uint64_t> u(0, f.mask());
      for (;;) {
        const uint64_t b = u(g);
        if (b != old_bits) return b;
      }
    }
    case fault_model::kind::multiply: return encode(f, decode(f, old_bits) * m.factor);
    case fault_model::kind::add: return encode(f, decode(f, old_bits) + m.factor);
    case fault_model::kind::bitflip_designed: {
      if (!f.is_float()) return std::nullopt;  // no exponent (resolve_fault_bits refuses it first)
      for (int b = f.mant_bits + f.exp_bits - 1; b >= f.mant_bits; --b)
        if (!((old_bits >> b) & 1)) return old_bits | (1ull << b);
      return std::nullopt;  // exponent all ones: Inf or NaN already
    }
    case fault_model::kind::exp_growth: {  // eq. 2: bit b of the exponent field weighs 2^(b - mant_bits)
      double x = decode(f, old_bits);
      for (int b : bits) x = std::ldexp(x, 1 << (b - f.mant_bits));
      return encode(f, x);
    }
    case fault_model::kind::set_max: {
      const double old = decode(f, old_bits);
      if (!f.is_float() && f.has_sign() && old < 0) return encode(f, -f.max_finite() - 1);
      return encode(f, std::signbit(old) ? -f.max_finite() : f.max_finite());
    }
  }
  return std::nullopt;
}

std::optional<std::vector<int>> resolve_fault_bits(const fault_model& m, const bit_choice& bits, const format& f,
                                                   std::string* why, std::string* axis) {
  *axis = "bit";
  if (m.uses_bit_axis()) {
    if (bits.bits.empty()) {
      *why = "fault model " + m.text() + " needs a bit";
      return std::nullopt;
    }
    auto r = bits.resolve(f, why);
    if (r && m.k == fault_model::kind::exp_growth)
      for (int b : *r)
        if (!f.is_float() || b < f.mant_bits || b >= f.mant_bits + f.exp_bits) {
          *why = fmt::format("exp_growth (000's eq. 2) takes exponent bits; bit {} of {} is not one", b, f.name);
          return std::nullopt;
        }
    return r;
  }
  if (!bits.bits.empty()) {
    *why = "fault model " + m.text() + " takes no bit (use bit=none)";
    return std::nullopt;
  }
  if (m.k == fault_model::kind::bitflip_designed && !f.is_float()) {
    *axis = "fault";
    *why = "bitflip_designed sets an exponent bit: " + std::string(f.name) + " has no exponent";
    return std::nullopt;
  }
  if (m.k == fault_model::kind::mix && m.nonfinite > 0 && (!f.is_float() || f.specials != special_style::ieee)) {
    *axis = "fault";
    *why = m.text() + ": NaN and Inf need an IEEE float format; " + std::string(f.name) + " has none";
    return std::nullopt;
  }
  if (m.k == fault_model::kind::bitflip_random) {
    *axis = "fault";
    auto field = m.field.resolve(f, why);
    if (field && int(field->size()) < m.count) {
      *why = fmt::format("{}: field {} of {} has only {} bits", m.text(), m.field.text, f.name, field->size());
      return std::nullopt;
    }
    return field;
  }
  return std::vector<int>{};
}

}  // namespace sdc
