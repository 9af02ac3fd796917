// Differential fuzz target (as simdjson does across its implementations):
// random shapes and values, raw bits included (NaN, Inf, subnormals), through
// each fast kernel, at every SIMD level the CPU runs, and its reference twin.
// The documented bound of every pair here is "equal bit for bit" (a NaN
// equals any NaN): the GEMM per accumulation order and its row/column
// recompute, the int8 GEMM, the int64 row sums and requantization, the
// EmbeddingBag, the log-norm sums, 001's checks verified incrementally
// against a full verification, and the protected GEMM (its sums at every
// SIMD level, its verdict) against the separate check.
#include <bit>
#include <tuple>
#include <cmath>
#include <vector>

#include "detectors/gemm/gemm_detector.hpp"
#include "foundation/formats/format.hpp"
#include "tests/fuzz/fuzz_target.hpp"
#include "foundation/kernels/gemm/gemm_check_sums.hpp"
#include "foundation/kernels/gemm/gemm_kernels.hpp"
#include "foundation/kernels/log_norms/log_norms.hpp"
#include "foundation/kernels/int8/int8_kernels.hpp"

namespace {

using sdc::fuzz::byte_source;

template <class T>
bool same(T a, T b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  return std::bit_cast<U>(a) == std::bit_cast<U>(b);
}
void check(bool ok) {
  if (!ok) std::abort();  // libFuzzer keeps the input
}

sdc::accumulation_order order_of(byte_source& in) {
  sdc::accumulation_order o;
  switch (in.range(0, 2)) {
    case 0: o.k = sdc::accumulation_order::kind::sequential; break;
    case 1: o.k = sdc::accumulation_order::kind::kblock, o.block = int(in.range(1, 64)); break;
    default: o.k = sdc::accumulation_order::kind::pairwise;
  }
  return o;
}

template <class T>
void gemm_twins(byte_source& in) {
  const sdc::gemm_shape s{in.range(1, 48), in.range(1, 48), in.range(1, 80)};
  const auto o = order_of(in);
  std::vector<T> A(size_t(s.m * s.k)), B(size_t(s.k * s.n)), C(size_t(s.m * s.n)), R(C.size()), P(C.size());
  for (auto& x : A) x = in.raw<T>();
  for (auto& x : B) x = in.raw<T>();
  sdc::gemm_reference(A.data(), B.data(), R.data(), s, o);
  for (const sdc::gemm_kernel_variant v : sdc::supported_gemm_variants()) {  // every dispatched path this CPU runs
    sdc::gemm_fixed_order_at(v, A.data(), B.data(), C.data(), s, o);
    for (size_t e = 0; e < C.size(); ++e) check(same(C[e], R[e]));
  }
  sdc::gemm_fixed_order(A.data(), B.data(), C.data(), s, o);
  for (size_t e = 0; e < C.size(); ++e) check(same(C[e], R[e]));
  const int64_t i = in.range(0, s.m - 1), j = in.range(0, s.n - 1);
  sdc::gemm_row_fixed_order(A.data(), B.data(), P.data(), s, o, i);
  for (int64_t c = 0; c < s.n; ++c) check(same(P[size_t(i * s.n + c)], C[size_t(i * s.n + c)]));
  sdc::gemm_col_fixed_order(A.data(), B.data(), P.data(), s, o, j);
  for (int64_t r = 0; r < s.m; ++r) check(same(P[size_t(r * s.n + j)], C[size_t(r * s.n + j)]));
}

void int8_twins(byte_source& in) {
  const int64_t m = in.range(1, 40), n = in.range(1, 40), k = in.range(1, 96);
  std::vector<uint8_t> A(size_t(m * k));
  std::vector<int8_t> B(size_t(k * n));
  for (auto& x : A) x = in.raw<uint8_t>();
  for (auto& x : B) x = in.raw<int8_t>();
  std::vector<int32_t> C(size_t(m * n)), R(C.size());
  sdc::gemm_u8s8s32_reference(m, n, k, A.data(), k, B.data(), n, R.data(), n);
  sdc::gemm_u8s8s32(m, n, k, A.data(), k, B.data(), n, C.data(), n);  // oneDNN where exact, else widened
  check(C == R);
  for (const sdc::simd_level l : sdc::supported_simd_levels()) {
    std::fill(C.begin(), C.end(), -1);
    sdc::gemm_u8s8s32_widened_at(l, m, n, k, A.data(), k, B.data(), n, C.data(), n);
    check(C == R);
  }
  for (auto& x : C) x = in.raw<int32_t>();  // any int32s: the sums are int64 and may not wrap
  const int64_t want = sdc::row_sum_i32_reference(C.data(), int64_t(C.size()));
  for (const sdc::simd_level l : sdc::supported_simd_levels()) check(sdc::row_sum_i32_at(l, C.data(), int64_t(C.size())) == want);
  const float mult = std::ldexp(float(in.range(1, 1 << 20)), int(in.range(-40, 0)));
  const int32_t zp = int32_t(in.range(-300, 300));
  std::vector<uint8_t> q(C.size()), qr(C.size());
  std::vector<int64_t> rs(static_cast<size_t>(m)), rsr(static_cast<size_t>(m));
  sdc::requantize_u8_reference(C.data(), n, m, n, mult, zp, qr.data(), rsr.data());
  for (const sdc::simd_level l : sdc::supported_simd_levels()) {
    sdc::requantize_u8_at(l, C.data(), n, m, n, mult, zp, q.data(), rs.data());
    check(q == qr && rs == rsr);
  }
}

void embedding_bag_twins(byte_source& in) {
  sdc::quantized_table t;
  t.rows = in.range(1, 24), t.dim = in.range(1, 70), t.bits = in.range(0, 1) ? 8 : 4, t.with_row_sums = in.range(0, 1);
  t.data.resize(size_t(t.rows * t.stride()));
  for (auto& b : t.data) b = in.raw<uint8_t>();  // codes, alpha and beta: any bits
  sdc::bag_batch b;
  const int64_t bags = in.range(1, 8);
  for (int64_t g = 0; g < bags; ++g) {
    b.offsets.push_back(int64_t(b.indices.size()));
    for (int64_t l = in.range(0, 6); l > 0; --l) b.indices.push_back(in.range(0, t.rows - 1));
  }
  if (in.range(0, 1))
    for (size_t e = 0; e < b.indices.size(); ++e) b.weights.push_back(in.raw<float>());
  std::vector<float> f(size_t(bags * t.dim)), r(f.size());
  const int prefetch = int(in.range(0, 16));
  sdc::embedding_bag_reference(t, b, r.data());
  for (const sdc::simd_level l : sdc::supported_simd_levels()) {
    sdc::embedding_bag_fast_at(l, t, b, f.data(), prefetch);
    for (size_t e = 0; e < f.size(); ++e) check(same(f[e], r[e]));
  }
}

void log_norm_twins(byte_source& in) {
  const int64_t n = in.range(0, 300);
  std::vector<float> x(static_cast<size_t>(n));
  std::vector<uint16_t> h(static_cast<size_t>(n));
  for (auto& v : x) v = in.raw<float>();
  for (auto& v : h) v = in.raw<uint16_t>();
  for (const sdc::simd_level l : sdc::supported_simd_levels()) {
    check(same(sdc::sum_squares_at(l, x.data(), n), sdc::sum_squares_reference(x.data(), n)));
    check(same(sdc::sum_squares_bf16_at(l, h.data(), n), sdc::sum_squares_bf16_reference(h.data(), n)));
  }
  check(same(sdc::log_norm_fast(x.data(), n), sdc::log_norm_reference(x.data(), n)));
}

// 001's checks: the clean pair's checks patched where the data changed
// (verify_change) against verification in full, on arbitrary values.
template <class T>
void incremental_checks(byte_source& in, const sdc::format& f) {
  static const std::pair<const char*, const char*> policies[] = {
      {"vabft", "{}"}, {"vabft", R"({"point":"fused"})"}, {"vabft", R"({"checks":"rows","weights":"sinh"})"},
      {"vabft_exact_variance", "{}"}, {"aabft", R"({"y":"computed"})"}, {"higham", "{}"}, {"fixed_rel", "{}"}, {"fixed_abs", "{}"}};
  const char* name = nullptr; const char* params = nullptr;  // named: the lambda below captures them
  std::tie(name, params) = policies[in.range(0, 7)];
  const sdc::gemm_shape s{in.range(1, 24), in.range(1, 24), in.range(1, 40)};
  std::vector<T> A(size_t(s.m * s.k)), B(size_t(s.k * s.n)), C(size_t(s.m * s.n));
  const bool raw = in.range(0, 1);  // raw bits, or moderate values
  auto value = [&] { return raw ? in.raw<T>() : T(in.range(-1000, 1000)) / T(128); };
  for (auto& x : A) x = value();
  for (auto& x : B) x = value();
  sdc::gemm_fixed_order(A.data(), B.data(), C.data(), s, sdc::accumulation_order{});
  const auto* info = sdc::find_detector(sdc::view_kind::gemm, name);
  sdc::detector_context ctx{&f, &f, {{"accumulation", "sequential"}, {"shape", s.text()}}, sdc::gemm_context{s, sdc::accumulation_order{}}};
  auto make = [&] {
    auto d = info->make(sdc::detector_params(sdc::validate_params(*info, nlohmann::json::parse(params)), &f), ctx);
    return sdc::detector_cast<sdc::gemm_detector>(std::move(d), name, "gemm");
  };
  auto full = make(), inc = make();
  sdc::gemm_data<T> clean{&f, &f, s, {}, A.data(), B.data(), C.data(), C.data(), nullptr};
  full->encode(clean), inc->encode(clean), inc->baseline(clean);
  for (int change = 0; change < 3; ++change) {
    std::vector<T> a = A, b = B, c = C;
    sdc::gemm_change ch;
    switch (in.range(0, 2)) {
      case 0:
        ch = {sdc::gemm_change::kind::output_element, in.range(0, s.m - 1), in.range(0, s.n - 1)};
        c[size_t(ch.i * s.n + ch.j)] = value();
        break;
      case 1:
        ch = {sdc::gemm_change::kind::a_row, in.range(0, s.m - 1), -1};
        a[size_t(ch.i * s.k + in.range(0, s.k - 1))] = value();
        sdc::gemm_fixed_order(a.data(), b.data(), c.data(), s, sdc::accumulation_order{});
        break;
      default:
        ch = {sdc::gemm_change::kind::b_col, -1, in.range(0, s.n - 1)};
        b[size_t(in.range(0, s.k - 1) * s.n + ch.j)] = value();
        sdc::gemm_fixed_order(a.data(), b.data(), c.data(), s, sdc::accumulation_order{});
    }
    sdc::gemm_data<T> d = clean;
    d.A = a.data(), d.B = b.data(), d.C = d.acc = c.data();
    const sdc::verdict x = full->verify(d), y = inc->verify_change(d, ch);
    check(x.flagged == y.flagged && same(x.score, y.score) && x.located_row == y.located_row && x.located_col == y.located_col);
    check(same(x.corrected_value, y.corrected_value) && x.metrics.size() == y.metrics.size());
    for (size_t m = 0; m < x.metrics.size(); ++m) check(x.metrics[m].first == y.metrics[m].first && same(x.metrics[m].second, y.metrics[m].second));
  }
}

// The protected GEMM (gemm_check_sums.hpp) on arbitrary values: C and its
// sums the same at every level, and the verdict the separate check's.
template <class T>
void protected_checks(byte_source& in, const sdc::format& f) {
  static const std::pair<const char*, const char*> policies[] = {
      {"vabft", "{}"}, {"vabft", R"({"point":"fused"})"}, {"vabft", R"({"checks":"rows","weights":"sinh"})"},
      {"vabft_exact_variance", "{}"}, {"aabft", R"({"y":"computed"})"}, {"fixed_abs", "{}"}};
  const char* name = nullptr; const char* params = nullptr;
  std::tie(name, params) = policies[in.range(0, 5)];
  const sdc::gemm_shape s{in.range(1, 24), in.range(1, 40), in.range(1, 300)};
  sdc::accumulation_order o = order_of(in);
  if (o.k == sdc::accumulation_order::kind::pairwise) o.k = sdc::accumulation_order::kind::sequential;
  std::vector<T> A(size_t(s.m * s.k)), B(size_t(s.k * s.n)), C(size_t(s.m * s.n)), F(C.size());
  const bool raw = in.range(0, 1);
  auto value = [&] { return raw ? in.raw<T>() : T(in.range(-1000, 1000)) / T(128); };
  for (auto& x : A) x = value();
  for (auto& x : B) x = value();
  sdc::gemm_fixed_order(A.data(), B.data(), C.data(), s, o);
  const auto* info = sdc::find_detector(sdc::view_kind::gemm, name);
  sdc::detector_context ctx{&f, &f, {{"accumulation", o.text()}, {"shape", s.text()}}, sdc::gemm_context{s, o}};
  auto make = [&] {
    auto d = info->make(sdc::detector_params(sdc::validate_params(*info, nlohmann::json::parse(params)), &f), ctx);
    return sdc::detector_cast<sdc::gemm_detector>(std::move(d), name, "gemm");
  };
  auto sep = make(), fused = make();
  sdc::gemm_data<T> d{&f, &f, s, o, A.data(), B.data(), C.data(), C.data(), nullptr};
  sep->encode(d), fused->encode(d);
  if (in.range(0, 1)) A[size_t(in.range(0, int64_t(A.size()) - 1))] = value();  // a fault after encoding
  sdc::gemm_fixed_order(A.data(), B.data(), C.data(), s, o);
  sdc::verdict y;
  check(fused->protected_gemm(d, F.data(), &y));
  for (size_t e = 0; e < C.size(); ++e) check(same(F[e], C[e]));
  const sdc::verdict x = sep->verify(d);
  check(x.flagged == y.flagged && same(x.score, y.score) && x.located_row == y.located_row && x.located_col == y.located_col);
  check(same(x.corrected_value, y.corrected_value) && x.metrics.size() == y.metrics.size());
  for (size_t m = 0; m < x.metrics.size(); ++m) check(same(x.metrics[m].second, y.metrics[m].second));
  std::vector<T> ones(size_t(s.k), T(1)), wn(size_t(s.n), T(1));
  const sdc::check_sums_spec<T> spec{ones.data(), ones.data(), wn.data(), ones.data(), ones.data(), true};
  sdc::check_sums<T> first, other;
  sdc::gemm_fixed_order_checked(A.data(), B.data(), F.data(), s, o, spec, first);
  for (const sdc::gemm_kernel_variant v : sdc::supported_gemm_variants()) {
    sdc::gemm_fixed_order_checked_at(v, A.data(), B.data(), F.data(), s, o, spec, other);
    for (size_t e = 0; e < C.size(); ++e) check(same(F[e], C[e]));
    for (auto [a, b] : {std::pair{&first.s1, &other.s1}, {&first.s2, &other.s2}, {&first.row_ref, &other.row_ref},
                        {&first.c1, &other.c1}, {&first.col_ref, &other.col_ref}})
      for (size_t e = 0; e < a->size(); ++e) check(same((*a)[e], (*b)[e]));
    for (size_t e = 0; e < first.a_sum.size(); ++e)
      check(same(first.a_sum[e], other.a_sum[e]) && same(first.a_max[e], other.a_max[e]) && same(first.a_min[e], other.a_min[e]));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  byte_source in(data, size);
  switch (in.range(0, 7)) {
    case 0: gemm_twins<float>(in); break;
    case 1: gemm_twins<double>(in); break;
    case 2: int8_twins(in); break;
    case 3: embedding_bag_twins(in); break;
    case 4: log_norm_twins(in); break;
    case 5: incremental_checks<float>(in, sdc::fp32()); break;
    case 6: incremental_checks<double>(in, sdc::fp64()); break;
    default:
      if (in.range(0, 1)) protected_checks<double>(in, sdc::fp64());
      else protected_checks<float>(in, sdc::fp32());
  }
  return 0;
}
