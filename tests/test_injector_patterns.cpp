// Multi-element fault patterns (injectors/site.hpp): run(L), strided(S,L),
// full_row and full_col pick the elements they promise, inside the tensor,
// from a uniform start; inject_pattern applies the model at each and names
// the pattern in every record; a one-element axis refuses them.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "injectors/inject.hpp"

using namespace sdc;

namespace {

TEST(InjectorPatterns, EachPatternPicksWhatItPromisesInsideTheTensor) {
  for (const char* text : {"run(5)", "strided(32,4)", "full_row", "full_col"}) EXPECT_EQ(parse_site_rule(text).text(), text);
  std::set<int64_t> run_starts, strided_starts;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    rng g(seed);
    const auto run = parse_site_rule("run(5)").draw_pattern(7, 9, g);  // 63 elements
    ASSERT_EQ(run.size(), 5u);
    for (size_t e = 1; e < run.size(); ++e) EXPECT_EQ(run[e], run[e - 1] + 1);
    EXPECT_LE(run.back(), 62);
    run_starts.insert(run.front());
    const auto st = parse_site_rule("strided(32,2)").draw_pattern(7, 9, g);
    ASSERT_EQ(st.size(), 2u);
    EXPECT_EQ(st[1] - st[0], 32);
    EXPECT_LE(st[1], 62);
    strided_starts.insert(st[0]);
    const auto row = parse_site_rule("full_row").draw_pattern(7, 9, g);
    ASSERT_EQ(row.size(), 9u);
    EXPECT_EQ(row[0] % 9, 0);
    EXPECT_EQ(row[8], row[0] + 8);
    const auto col = parse_site_rule("full_col").draw_pattern(7, 9, g);
    ASSERT_EQ(col.size(), 7u);
    for (size_t e = 1; e < col.size(); ++e) EXPECT_EQ(col[e], col[e - 1] + 9);
  }
  EXPECT_EQ(run_starts.size(), 59u);      // every start 0..58 drawn in 2000 draws
  EXPECT_EQ(strided_starts.size(), 31u);  // starts 0..30
  rng g(3);
  EXPECT_EQ(parse_site_rule("run(100)").draw_pattern(2, 3, g).size(), 6u);  // cut to the tensor
  EXPECT_EQ(parse_site_rule("strided(4,9)").draw_pattern(2, 3, g).size(), 2u);
  EXPECT_THROW(parse_site_rule("run(0)"), std::exception);
  EXPECT_THROW(parse_site_rule("strided(0,3)"), std::exception);
  EXPECT_THROW(single_site("full_row"), std::exception);
}

TEST(InjectorPatterns, InjectPatternFlipsEveryPickedElementAndNamesThePattern) {
  std::vector<float> v(12, 1.0f);
  tensor_target t(tensor_view{&fp32(), v.data(), 3, 4});
  const fault_spec spec{parse_fault_model("bitflip"), {31}, parse_site_rule("full_col")};
  rng g(5);
  const auto recs = inject_pattern(t, spec, g);
  ASSERT_EQ(recs.size(), 3u);
  int flipped = 0;
  for (float x : v) flipped += x == -1.0f;
  EXPECT_EQ(flipped, 3);
  for (const auto& r : recs) {
    EXPECT_TRUE(r.applied);
    EXPECT_EQ(r.pattern, "full_col");
    EXPECT_EQ(r.col, recs[0].col);
    EXPECT_EQ(v[size_t(r.index)], -1.0f);
  }
  // max_abs goes through the same entry point.
  const fault_spec top{parse_fault_model("multiply(2)"), {}, parse_site_rule("max_abs")};
  v[7] = 5.0f;
  const auto m = inject_pattern(t, top, g);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].index, 7);
  EXPECT_EQ(m[0].pattern, "max_abs");
  EXPECT_EQ(v[7], 10.0f);
}

}  // namespace
