#include "foundation/formats/bit_fields.hpp"

#include <charconv>

#include "foundation/errors.hpp"

namespace sdc {
namespace {

std::optional<int> parse_int(std::string_view s) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

bit_field field_of(const format& f, int bit) {
  if (f.has_sign() && bit == f.sign_bit()) return bit_field::sign;
  if (!f.is_float()) return bit_field::magnitude;
  return bit >= f.mant_bits ? bit_field::exponent : bit_field::mantissa;
}

std::string bit_alias(const format& f, int bit) {
  switch (field_of(f, bit)) {
    case bit_field::sign: return "sign";
    case bit_field::exponent: return "exp" + std::to_string(f.mant_bits + f.exp_bits - bit);
    case bit_field::mantissa: return "mant" + std::to_string(f.mant_bits - bit);
    case bit_field::magnitude: return "bit" + std::to_string(bit);
  }
  return {};
}

bit_ref parse_bit_ref(std::string_view text) {
  if (auto n = parse_int(text)) {
    if (*n < 0 || *n > 63) throw value_error("bit index " + std::string(text) + " outside 0..63");
    return {std::to_string(*n)};
  }
  if (text == "sign") return {"sign"};
  for (std::string_view prefix : {"exp", "mant"}) {
    if (text.starts_with(prefix)) {
      auto n = parse_int(text.substr(prefix.size()));
      if (n && *n >= 1 && *n <= 52) return {std::string(text)};
    }
  }
  throw value_error("expected a bit: an index counted from the LSB (0..63), 'sign', 'expN' or 'mantN' (N >= 1); got '" +
                    std::string(text) + "'");
}

std::optional<int> bit_ref::resolve(const format& f, std::string* why) const {
  auto fail = [&](std::string reason) -> std::optional<int> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (auto n = parse_int(text)) {
    if (*n >= f.bits) return fail("bit " + text + " outside " + std::string(f.name) + " (" + std::to_string(f.bits) + " bits)");
    return *n;
  }
  if (text == "sign") {
    if (!f.has_sign()) return fail(std::string(f.name) + " has no sign bit");
    return f.sign_bit();
  }
  if (text.starts_with("exp")) {
    if (!f.is_float()) return fail(std::string(f.name) + " is an integer format: it has no exponent bits");
    const int n = *parse_int(std::string_view(text).substr(3));
    if (n > f.exp_bits) return fail(std::string(f.name) + " has " + std::to_string(f.exp_bits) + " exponent bits, not " + std::to_string(n));
    return f.mant_bits + f.exp_bits - n;
  }
  if (!f.is_float()) return fail(std::string(f.name) + " is an integer format: it has no mantissa bits");
  const int n = *parse_int(std::string_view(text).substr(4));
  if (n > f.mant_bits) return fail(std::string(f.name) + " has " + std::to_string(f.mant_bits) + " mantissa bits, not " + std::to_string(n));
  return f.mant_bits - n;
}

bit_set_ref parse_bit_set_ref(std::string_view text) {
  for (std::string_view name : {"exp", "mant", "sign", "all", "value"})
    if (text == name) return {std::string(text)};
  const auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    auto lo = parse_int(text.substr(0, dash));
    auto hi = parse_int(text.substr(dash + 1));
    if (lo && hi && *lo >= 0 && *lo <= *hi && *hi <= 63) return {std::string(text)};
  }
  throw value_error("expected a bit field: exp, mant, sign, all, value, or a range LO-HI of bit indices; got '" +
                    std::string(text) + "'");
}

std::optional<std::vector<int>> bit_set_ref::resolve(const format& f, std::string* why) const {
  std::vector<int> bits;
  auto fail = [&](std::string reason) -> std::optional<std::vector<int>> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (text == "all") {
    for (int b = 0; b < f.bits; ++b) bits.push_back(b);
  } else if (text == "sign") {
    if (!f.has_sign()) return fail(std::string(f.name) + " has no sign bit");
    bits.push_back(f.sign_bit());
  } else if (text == "exp" || text == "mant") {
    if (!f.is_float()) return fail(std::string(f.name) + " is an integer format: it has no " + text + " field");
    const int lo = text == "exp" ? f.mant_bits : 0;
    const int hi = text == "exp" ? f.mant_bits + f.exp_bits : f.mant_bits;
    for (int b = lo; b < hi; ++b) bits.push_back(b);
  } else if (text == "value") {
    if (f.is_float()) return fail(std::string(f.name) + " is a float format: 'value' names integer value bits");
    for (int b = 0; b < (f.has_sign() ? f.bits - 1 : f.bits); ++b) bits.push_back(b);
  } else {
    const auto dash = text.find('-');
    const int lo = std::stoi(text.substr(0, dash)), hi = std::stoi(text.substr(dash + 1));
    if (hi >= f.bits) return fail("bit range " + text + " outside " + std::string(f.name) + " (" + std::to_string(f.bits) + " bits)");
    for (int b = lo; b <= hi; ++b) bits.push_back(b);
  }
  return bits;
}

}  // namespace sdc
