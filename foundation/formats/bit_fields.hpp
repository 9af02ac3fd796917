// Bit addressing. One canonical index: the bit number in the storage word,
// counted from the least significant bit (bf16: mantissa 0..6, exponent 7..14,
// sign 15; as in 001_e8c16cbdc32a8eac.txt Table 8). Aliases: `sign`, `exp1` =
// exponent MSB (the "type-1" fault of 000_60f7924e74842bcb.txt), `exp2`, ...,
// `mant1` = mantissa MSB, .... METHODOLOGY.md maps each paper's convention.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "foundation/formats/format.hpp"

namespace sdc {

enum class bit_field { sign, exponent, mantissa, magnitude /* integer value bits */ };

// The field a canonical bit index belongs to in `f`.
bit_field field_of(const format& f, int bit);
// Canonical name of a bit: "exp1", "mant3", "sign", or "bit5" for integer value bits.
std::string bit_alias(const format& f, int bit);

// A bit written in a suite: a number, or an alias resolved per format.
struct bit_ref {
  std::string text;  // canonical text: "9", "exp1", "mant2", "sign"
  // The canonical index in f, or the reason it does not exist there.
  // Returns nullopt and sets `why` when the bit has no meaning in f.
  std::optional<int> resolve(const format& f, std::string* why) const;
};
// Parses "7", "exp1", "mant12", "sign"; throws value_error on anything else.
bit_ref parse_bit_ref(std::string_view text);

// A set of bits named by a field: "exp", "mant", "sign", "all", "value"
// (integer value bits), or a range "LO-HI" of canonical indices (inclusive).
struct bit_set_ref {
  std::string text;
  std::optional<std::vector<int>> resolve(const format& f, std::string* why) const;
};
bit_set_ref parse_bit_set_ref(std::string_view text);

}  // namespace sdc
