// The training workload's data (workloads/training/trainer/data.*): the prompt
// template, the DistributedSampler, generated tasks and the Alpaca reader.
// The configuration, the model and the trainer are in test_training.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "foundation/errors.hpp"
#include "workloads/training/trainer/training_run.hpp"
#include "scratch.hpp"

namespace {

using namespace sdc::train;
namespace fs = std::filesystem;

std::string temp_file(const std::string& name, const std::string& text) {
  static const fs::path dir = sdc::testing::scratch_dir("training");
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST(TrainingData, SamplerShufflesPadsAndStridesLikeDistributedSampler) {
  const int64_t n = 10;
  const int R = 3;
  std::vector<int64_t> all;
  for (int r = 0; r < R; ++r) {
    const auto mine = distributed_indices(n, R, r, 7, 0);
    ASSERT_EQ(mine.size(), 4u);  // ceil(10 / 3)
    EXPECT_EQ(mine, distributed_indices(n, R, r, 7, 0));
    all.insert(all.end(), mine.begin(), mine.end());
  }
  // Interleave back: entry i of the padded permutation is rank i % R's entry i / R.
  std::vector<int64_t> padded(12);
  for (int r = 0; r < R; ++r) {
    const auto mine = distributed_indices(n, R, r, 7, 0);
    for (size_t k = 0; k < mine.size(); ++k) padded[k * R + size_t(r)] = mine[k];
  }
  std::set<int64_t> first(padded.begin(), padded.begin() + n);
  EXPECT_EQ(first.size(), size_t(n));  // a permutation of 0..n-1
  EXPECT_EQ(padded[10], padded[0]);    // padded with its own first entries
  EXPECT_EQ(padded[11], padded[1]);
  EXPECT_NE(distributed_indices(n, R, 0, 7, 1), distributed_indices(n, R, 0, 7, 0));  // epochs reshuffle
  EXPECT_NE(distributed_indices(n, R, 0, 8, 0), distributed_indices(n, R, 0, 7, 0));  // seeds differ
}

TEST(TrainingData, TemplateCarriesLossOnTheResponseAndEndByteOnly) {
  const instruction_example e{"Reverse the word.", "abc", "cba"};
  const tokenized t = tokenize_instruction(e, 96);
  const std::string prompt = "### Instruction:\nReverse the word.\n### Input:\nabc\n### Response:\n";
  std::string text;
  for (size_t i = 0; i < prompt.size() + 3; ++i) text.push_back(char(t.tokens[i]));
  EXPECT_EQ(text, prompt + "cba");
  EXPECT_EQ(t.tokens[prompt.size() + 3], 0);  // end byte
  for (size_t i = 0; i < t.loss_mask.size(); ++i) {
    const bool response_target = i + 1 >= prompt.size() && i + 1 <= prompt.size() + 3;  // c, b, a, end
    EXPECT_EQ(t.loss_mask[i], response_target ? 1 : 0) << "target " << i;
  }
}

TEST(TrainingData, LongPromptLosesItsHeadNotTheResponse) {
  const instruction_example e{std::string(300, 'x'), "", "answer"};
  const tokenized t = tokenize_instruction(e, 64);
  int loss = 0;
  for (auto m : t.loss_mask) loss += m;
  EXPECT_EQ(loss, 7);  // "answer" + end byte
  std::string tail;
  for (size_t i = 65 - 7 - 14; i < 65 - 7; ++i) tail.push_back(char(t.tokens[i]));
  EXPECT_EQ(tail, "### Response:\n");
}

TEST(TrainingData, GeneratedTasksAreRightAndDeterministic) {
  const auto a = generate_instructions(300, 5);
  const auto b = generate_instructions(300, 5);
  int adds = 0, reverses = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].output, b[i].output);
    if (a[i].instruction == "Add the two numbers.") {
      const auto plus = a[i].input.find('+');
      EXPECT_EQ(std::stol(a[i].input.substr(0, plus)) + std::stol(a[i].input.substr(plus + 1)), std::stol(a[i].output));
      ++adds;
    }
    if (a[i].instruction == "Reverse the word.") {
      EXPECT_EQ(std::string(a[i].input.rbegin(), a[i].input.rend()), a[i].output);
      ++reverses;
    }
  }
  EXPECT_GT(adds, 20);
  EXPECT_GT(reverses, 20);
  EXPECT_NE(generate_instructions(5, 6)[0].input + generate_instructions(5, 6)[1].input, a[0].input + a[1].input);
}

TEST(TrainingData, AlpacaReaderNamesFileEntryAndField) {
  const auto good = temp_file("good.json", R"([{"instruction": "Say hi.", "input": "", "output": "hi"},
                                              {"instruction": "Echo.", "output": "x"}])");
  const auto ex = read_alpaca(good);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[1].input, "");
  auto expect_error = [](const std::string& text, const std::string& field) {
    const auto f = temp_file("bad.json", text);
    try {
      read_alpaca(f);
      ADD_FAILURE() << "accepted " << text;
    } catch (const sdc::input_error& e) {
      EXPECT_EQ(e.file(), f);
      EXPECT_NE(e.field().find(field), std::string::npos) << e.what();
    }
  };
  expect_error(R"({"instruction": "x"})", "top level");
  expect_error(R"([])", "top level");
  expect_error(R"([{"instruction": "a", "output": "b"}, {"instruction": "a"}])", "[1].output");
  expect_error(R"([{"instruction": "a", "output": 3}])", "[0].output");
  expect_error(R"([7])", "[0]");
  EXPECT_THROW(read_alpaca(temp_file("trunc.json", R"([{"instruction": "a", "outp)")), sdc::input_error);
  EXPECT_THROW(read_alpaca("/nonexistent/alpaca.json"), sdc::input_error);
}
