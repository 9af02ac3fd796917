// Random streams, distributions and .npy files.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/random/distributions.hpp"
#include "scratch.hpp"

using namespace sdc;

TEST(Streams, IndependentAndReplayable) {
  rng a = make_stream(1, 2, 3, trial_kind::faulty, stream_purpose::data);
  rng b = make_stream(1, 2, 3, trial_kind::faulty, stream_purpose::data);
  rng c = make_stream(1, 2, 4, trial_kind::faulty, stream_purpose::data);
  rng d = make_stream(1, 2, 3, trial_kind::clean, stream_purpose::data);
  rng e = make_stream(1, 2, 3, trial_kind::faulty, stream_purpose::fault);
  const auto x = a();
  EXPECT_EQ(x, b());
  EXPECT_NE(x, c());
  EXPECT_NE(x, d());
  EXPECT_NE(x, e());
  // Boost's mt19937_64 is specified exactly: pin the first value so a change of
  // seeding (which would silently change every published result) fails here.
  // The values were taken from the seeding every committed result set used.
  rng pinned = make_stream(0, 0, 0, trial_kind::faulty, stream_purpose::data);
  EXPECT_EQ(pinned(), 18226187773544139049ull);
  EXPECT_EQ(pinned(), 9736455751802029359ull);
  EXPECT_EQ(pinned(), 12018710608866954093ull);
}

TEST(Streams, RankAndStepKeys) {
  // Rank 0 at step 0 is the one-step stream: kernel-level results keep their streams.
  rng a = make_stream(5, 6, 7, trial_kind::faulty, 0, 0, stream_purpose::fault);
  rng b = make_stream(5, 6, 7, trial_kind::faulty, stream_purpose::fault);
  EXPECT_EQ(a(), b());
  // Every other (rank, step) has its own stream; pinned like the one above.
  rng pinned = make_stream(20261121, 0x1234, 7, trial_kind::faulty, 2, 5, stream_purpose::fault);
  EXPECT_EQ(pinned(), 15345612768719585728ull);
  EXPECT_EQ(pinned(), 6573180278775985137ull);
  const uint64_t r0s1 = make_stream(5, 6, 7, trial_kind::faulty, 0, 1, stream_purpose::fault)();
  const uint64_t r1s0 = make_stream(5, 6, 7, trial_kind::faulty, 1, 0, stream_purpose::fault)();
  const uint64_t r1s1 = make_stream(5, 6, 7, trial_kind::faulty, 1, 1, stream_purpose::fault)();
  EXPECT_NE(r0s1, r1s0);
  EXPECT_NE(r0s1, r1s1);
  EXPECT_NE(r1s0, r1s1);
  EXPECT_NE(r0s1, make_stream(5, 6, 7, trial_kind::faulty, stream_purpose::fault)());
}

TEST(Distributions, CanonicalTextAndRanges) {
  for (const char* t : {"normal(1,1)", "uniform(-1,1)", "trunc_normal(0,1,-1,1)", "abs_normal(1,1)",
                        "log_magnitude(0,2.42)", "normal(1e-06,1)", "uniform_int(-128,127)"})
    EXPECT_EQ(parse_distribution(t).text(), t);
  EXPECT_EQ(parse_distribution("normal(1.0, 1)").text(), "normal(1,1)");
  rng g = make_stream(3, 3, 3, trial_kind::clean, stream_purpose::data);
  auto tn = parse_distribution("trunc_normal(0,1,-1,1)");
  auto an = parse_distribution("abs_normal(1,1)");
  auto ui = parse_distribution("uniform_int(-3,3)");
  double sum = 0;
  for (int i = 0; i < 20000; ++i) {
    const double x = tn.sample(g);
    EXPECT_TRUE(x >= -1 && x <= 1);
    EXPECT_GE(an.sample(g), 0);
    const double k = ui.sample(g);
    EXPECT_EQ(k, std::round(k));
    EXPECT_TRUE(k >= -3 && k <= 3);
    sum += parse_distribution("normal(2,0.5)").sample(g);
  }
  EXPECT_NEAR(sum / 20000, 2.0, 0.02);
  EXPECT_THROW(parse_distribution("normal(0)"), value_error);
  EXPECT_THROW(parse_distribution("uniform(1,1)"), value_error);
}

TEST(Npy, RoundTripAndErrors) {
  const std::filesystem::path dir = sdc::testing::scratch_dir("npy");
  const std::string p = (dir / "m.npy").string();
  const float vals[6] = {1.5f, -2.0f, 0.25f, 3.0f, 1e-3f, -7.0f};
  write_npy(p, "<f4", {2, 3}, vals, sizeof vals);
  auto a = read_npy(p);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  auto v = a.values();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v[size_t(i)], double(vals[i]));
  auto d = parse_distribution("npy(m.npy)", dir.string());
  rng g = make_stream(1, 1, 1, trial_kind::clean, stream_purpose::data);
  for (int i = 0; i < 50; ++i) {
    const double x = d.sample(g);
    EXPECT_NE(std::find(v.begin(), v.end(), x), v.end());
  }
  // Truncated data.
  {
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "cut.npy", std::ios::binary) << bytes.substr(0, bytes.size() - 5);
  }
  try {
    read_npy((dir / "cut.npy").string());
    FAIL() << "truncated file accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "data");
    EXPECT_NE(std::string(e.what()).find("cut.npy"), std::string::npos);
  }
  std::ofstream(dir / "junk.npy") << "not a numpy file";
  EXPECT_THROW(read_npy((dir / "junk.npy").string()), input_error);
  EXPECT_THROW(read_npy((dir / "absent.npy").string()), input_error);
}
