// Random streams, distributions, .npy files and the file(...) specs of tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "foundation/errors.hpp"
#include "foundation/io/npy.hpp"
#include "foundation/io/safetensors.hpp"
#include "foundation/io/tensor_file.hpp"
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

// The file(...) specs of the GEMM's weights and the gradient workload's
// sources: one parser (foundation/io/tensor_file.hpp), each reader's extras
// only where it allows them, and one copy per spec however often it is asked.
TEST(TensorFile, SpecsAndOneCopyPerSpec) {
  const std::filesystem::path dir = sdc::testing::scratch_dir("tensor_file");
  const float vals[6] = {1, 2, 3, 4, 5, 6};
  write_npy((dir / "w.npy").string(), "<f4", {2, 3}, vals, sizeof vals);
  write_safetensors_f32((dir / "c.safetensors").string(), {{"a", {2}}, {"b", {1, 3}}}, {{7, 8}, {9, 10, 11}});
  const tensor_spec_rules plain{.expected = "expected file(...)"}, all{.every_tensor = true, .expected = "x"},
      transposing{.transpose = true, .expected = "y"};
  const tensor_file_spec w = parse_tensor_file_spec("file(w.npy^T)", dir.string(), transposing);
  EXPECT_EQ(w.file, dir / "w.npy");
  EXPECT_TRUE(w.transpose);
  EXPECT_EQ(w.key(), (dir / "w.npy").string() + "^T");
  // ^T is a file name's end to a reader that does not transpose.
  EXPECT_EQ(parse_tensor_file_spec("file(w.npy^T)", dir.string(), plain).file, dir / "w.npy^T");
  for (const char* bad : {"w.npy", "file()", "file(c.safetensors#)", "file(#a)", "file(w.npy"})
    EXPECT_THROW(parse_tensor_file_spec(bad, dir.string(), all), value_error) << bad;
  try {
    parse_tensor_file_spec("file(c.safetensors#*)", dir.string(), plain);
    FAIL() << "#* accepted where every tensor is not allowed";
  } catch (const value_error& e) {
    EXPECT_NE(std::string(e.what()).find("expected file(...); got 'file(c.safetensors#*)'"), std::string::npos) << e.what();
  }
  const auto every = read_tensor_file(parse_tensor_file_spec("file(c.safetensors#*)", dir.string(), all));
  ASSERT_EQ(every.size(), 2u);
  EXPECT_EQ(every[1].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(every[1].values, (std::vector<double>{9, 10, 11}));
  const auto one = read_tensor_file(parse_tensor_file_spec("file(w.npy)", dir.string(), plain));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].values[5], 6.0);
  EXPECT_THROW(read_tensor_file(parse_tensor_file_spec("file(c.safetensors#nope)", dir.string(), plain)), input_error);
  int made = 0;
  auto make = [&] { return ++made; };
  const auto first = load_once<int>("tensor_file_test_key", make), again = load_once<int>("tensor_file_test_key", make);
  EXPECT_EQ(first.get(), again.get());
  EXPECT_EQ(made, 1);
  EXPECT_THROW(load_once<int>("tensor_file_test_failing", []() -> int { throw value_error("no"); }), value_error);
  EXPECT_EQ(load_once<int>("tensor_file_test_failing", [] { return 3; }).operator*(), 3);  // a failure is not cached
}
