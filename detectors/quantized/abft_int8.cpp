// ABFT for the quantized GEMM of 004_0d1fcb03aeacfeeb.txt (Algorithm 1).
//
// abft_int8: B is encoded once with its row sums reduced modulo `modulus`
//   (default 127, a prime: section IV-C), stored as one extra s8 column packed
//   with B (section IV-A3), so A x [B | s] yields C and A s in one GEMM. Each
//   row of C is checked modulo the modulus: sum_j C[i][j] = C'[i][n] (mod M).
// abft_int8_exact: the same row check without the modulus: int64 row sums of B
//   kept in a separate vector and A x S_B evaluated as a matrix-vector product
//   (the "straightforward implementation" of section IV-A3). It misses only
//   faults that leave C unchanged; the difference to abft_int8 is what the
//   modulus costs in detection.
// Both report `rows_flagged` (errCount of Algorithm 1) as the score.
#include <fmt/format.h>

#include <cmath>

#include "detectors/quantized/quantized_detectors.hpp"
#include "foundation/errors.hpp"

namespace sdc {
namespace {

int64_t mod_pos(int64_t x, int64_t m) {
  const int64_t r = x % m;
  return r < 0 ? r + m : r;
}

// The values a fault can leave in an element whose clean bits are `old`, each
// equally likely; empty when the model has no such closed description here.
// Integer targets only: s8 (B) and s32 (C). random_value over s32 has 2^32 - 1
// outcomes and is counted, not listed (see below).
std::vector<int64_t> fault_outcomes(const int8_fault_context& f, int width) {
  const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
  auto as_signed = [&](uint64_t b) {
    b &= mask;
    return (b >> (width - 1)) & 1 ? int64_t(b) - int64_t(1ull << width) : int64_t(b);
  };
  std::vector<int64_t> out;
  switch (f.model.k) {
    case fault_model::kind::bitflip: {
      uint64_t flip = 0;
      for (int b : f.bits) flip |= 1ull << b;
      out.push_back(as_signed(f.old_bits ^ flip));
      break;
    }
    case fault_model::kind::bitflip_random:
      if (f.model.count == 1)
        for (int b : f.bits) out.push_back(as_signed(f.old_bits ^ (1ull << b)));
      break;
    case fault_model::kind::random_value:
      if (width <= 16)
        for (uint64_t b = 0; b <= mask; ++b)
          if (b != (f.old_bits & mask)) out.push_back(as_signed(b));
      break;
    default:
      break;
  }
  return out;
}

// P(check misses) for one outcome with difference d in B[r][*]: every row p
// sees d * A[p][r]; the check misses iff all of them vanish modulo M (M = 0:
// exact check, misses iff all vanish).
bool b_outcome_missed(const int8_gemm_data& d, int64_t r, int64_t delta, int64_t M) {
  for (int64_t p = 0; p < d.m; ++p) {
    const int64_t e = delta * int64_t(d.A[p * d.lda + r]);
    if (M ? mod_pos(e, M) != 0 : e != 0) return false;
  }
  return true;
}

// Exact P(detect | clean data, site) for a modular (M > 0) or exact (M = 0) row check.
std::optional<double> conditional_detect_prob(const int8_gemm_data& d, const int8_fault_context& f, int64_t M) {
  if (f.target == int8_target::B) {
    const auto outs = fault_outcomes(f, 8);
    if (outs.empty()) return std::nullopt;
    const int64_t old = int64_t(int8_t(uint8_t(f.old_bits)));
    double missed = 0;
    for (int64_t v : outs) missed += b_outcome_missed(d, f.row, v - old, M);
    return 1.0 - missed / double(outs.size());
  }
  if (f.target != int8_target::C) return std::nullopt;
  const int64_t old = int64_t(int32_t(uint32_t(f.old_bits)));
  if (f.model.k == fault_model::kind::random_value) {
    if (M == 0) return 1.0;
    // c' uniform over the other 2^32 - 1 int32 values; missed iff c' = c (mod M).
    const int64_t lo = INT32_MIN, hi = INT32_MAX;
    const int64_t r = mod_pos(old, M);
    const int64_t first = lo + mod_pos(r - lo, M);  // smallest value >= lo congruent to c
    const int64_t same_class = (hi - first) / M + 1;
    return 1.0 - double(same_class - 1) / double((int64_t(1) << 32) - 1);
  }
  const auto outs = fault_outcomes(f, 32);
  if (outs.empty()) return std::nullopt;
  double missed = 0;
  for (int64_t v : outs) missed += M ? mod_pos(v - old, M) == 0 : v == old;
  return 1.0 - missed / double(outs.size());
}

// The paper's closed forms (section IV-C) as printed, for its own assumptions
// (modulus 127, A uniform on [0, 255]), evaluated at the cell's m.
std::optional<double> paper_formula(const int8_gemm_data& d, const int8_fault_context& f, int64_t M) {
  if (M != 127) return std::nullopt;
  const bool random_bit = f.model.k == fault_model::kind::bitflip_random && f.model.count == 1 &&
                          f.bits.size() == (f.target == int8_target::B ? 8u : 32u);
  const bool random_value = f.model.k == fault_model::kind::random_value;
  const double m = double(d.m);
  if (f.target == int8_target::B && random_bit) return 1.0 - std::pow(3.0 / 256.0, m);            // 98.83 % at m = 1
  if (f.target == int8_target::B && random_value) return 1.0 - std::pow(1018.0 / 32640.0, m);    // 96.89 % at m = 1
  if (f.target == int8_target::C && random_bit) return 1.0;                                      // 100 %
  if (f.target == int8_target::C && random_value) return 1.0 - 1.0 / 127.0;                      // 99.21 %
  return std::nullopt;
}

class abft_int8 final : public int8_gemm_detector {
 public:
  explicit abft_int8(int64_t modulus) : M_(modulus) {}
  int extra_columns() const override { return 1; }
  void encode(const int8_t* B, int64_t k, int64_t n, int64_t ldb, int8_t* ext, int64_t ld_ext) override {
    for (int64_t i = 0; i < k; ++i) {
      int64_t s = 0;
      for (int64_t j = 0; j < n; ++j) s += B[i * ldb + j];
      ext[i * ld_ext] = int8_t(mod_pos(s, M_));  // in [0, M - 1], M <= 128: fits s8
    }
  }
  verdict verify(const int8_gemm_data& d) override {
    int64_t bad = 0;
    rows_.resize(size_t(d.m));
    for (int64_t i = 0; i < d.m; ++i) {
      const int64_t got = mod_pos(row_sum_i32(d.C + i * d.ldc, d.n), M_), want = mod_pos(d.extra[i * d.ldc], M_);
      rows_[size_t(i)] = {got, want};
      bad += got != want;
    }
    verdict v{bad > 0, double(bad)};
    v.metrics.emplace_back("rows_flagged", double(bad));
    return v;
  }
  std::vector<std::pair<std::string, double>> detection_theory(const int8_gemm_data& d,
                                                               const int8_fault_context& f) const override {
    std::vector<std::pair<std::string, double>> out;
    if (auto p = conditional_detect_prob(d, f, M_)) out.emplace_back("theory_detect", *p);
    if (auto p = paper_formula(d, f, M_)) out.emplace_back("paper_formula_detect", *p);
    return out;
  }
  nlohmann::json explain() const override {
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < rows_.size(); ++i)
      rows.push_back({{"index", i}, {"row_sum_mod", rows_[i].first}, {"checksum_mod", rows_[i].second},
                      {"failed", rows_[i].first != rows_[i].second}});
    return {{"modulus", M_}, {"rows", rows}};
  }

 private:
  int64_t M_;
  std::vector<std::pair<int64_t, int64_t>> rows_;  // last verify: (sum_j C[i][j], C'[i][n]) mod M
};

class abft_int8_exact final : public int8_gemm_detector {
 public:
  void encode(const int8_t* B, int64_t k, int64_t n, int64_t ldb, int8_t*, int64_t) override {
    sums_.assign(size_t(k), 0);
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) sums_[size_t(i)] += B[i * ldb + j];
  }
  verdict verify(const int8_gemm_data& d) override {
    int64_t bad = 0;
    rows_.resize(size_t(d.m));
    for (int64_t i = 0; i < d.m; ++i) {
      int64_t expect = 0;
      for (int64_t p = 0; p < d.k; ++p) expect += int64_t(d.A[i * d.lda + p]) * sums_[size_t(p)];
      rows_[size_t(i)] = {row_sum_i32(d.C + i * d.ldc, d.n), expect};
      bad += rows_[size_t(i)].first != expect;
    }
    verdict v{bad > 0, double(bad)};
    v.metrics.emplace_back("rows_flagged", double(bad));
    return v;
  }
  std::vector<std::pair<std::string, double>> detection_theory(const int8_gemm_data& d,
                                                               const int8_fault_context& f) const override {
    if (auto p = conditional_detect_prob(d, f, 0)) return {{"theory_detect", *p}};
    return {};
  }
  nlohmann::json explain() const override {
    nlohmann::json rows = nlohmann::json::array();
    for (size_t i = 0; i < rows_.size(); ++i)
      rows.push_back({{"index", i}, {"row_sum", rows_[i].first}, {"expected", rows_[i].second},
                      {"failed", rows_[i].first != rows_[i].second}});
    return {{"rows", rows}};
  }

 private:
  std::vector<int64_t> sums_;
  std::vector<std::pair<int64_t, int64_t>> rows_;  // last verify: (sum_j C[i][j], A_i S_B)
};

SDCBENCH_REGISTER_DETECTOR({view_kind::int8_gemm, "abft_int8",
                            "004 Algorithm 1: B's row sums mod M packed as an extra s8 column; row check of C mod M "
                            "(score = rows flagged)",
                            {{"modulus", param_spec::type::integer, 127,
                              "M, 2..128 (the residues fill an s8 column); the paper's 127 is prime"}},
                            [](const detector_params& p, const detector_context&) -> std::unique_ptr<detector> {
                              const int64_t M = p.integer("modulus");
                              if (M < 2 || M > 128)
                                throw value_error(fmt::format(
                                    "parameter 'modulus' of detector 'abft_int8': expected 2..128 (residues must fit "
                                    "the s8 checksum column); got {}", M));
                              return std::make_unique<abft_int8>(M);
                            },
                            false,
                            {"paper_formula_detect", "theory_detect"}});

SDCBENCH_REGISTER_DETECTOR({view_kind::int8_gemm, "abft_int8_exact",
                            "004 Algorithm 1 without the modulus: int64 row sums of B, A x S_B as a GEMV, exact row "
                            "check (score = rows flagged)",
                            {},
                            [](const detector_params&, const detector_context&) -> std::unique_ptr<detector> {
                              return std::make_unique<abft_int8_exact>();
                            },
                            false,
                            {"theory_detect"}});

}  // namespace
}  // namespace sdc
