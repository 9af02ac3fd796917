// Training data: byte tokens, the Instruction/Input/Response template of 002
// with the loss on the response only, a deterministic generator of instruction
// tasks, a reader of Alpaca JSON files, a plain-text corpus for pretraining,
// and PyTorch's DistributedSampler (shuffle with a seed, pad, stride by rank).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sdc::train {

struct instruction_example {
  std::string instruction, input, output;
};

// 002's template (Alpaca's headers without its preamble, which would fill a
// byte-level context on its own): the prompt, then the response and a NUL end
// byte; only the response bytes and the end byte carry loss.
struct tokenized {
  std::vector<int64_t> tokens;  // seq + 1 bytes: inputs are [0, seq), targets [1, seq]
  std::vector<uint8_t> loss_mask;  // seq entries, for the targets
};
tokenized tokenize_instruction(const instruction_example& e, int seq);
// A pretraining window: every target carries loss.
tokenized tokenize_text(const std::string& text, size_t offset, int seq);

// n examples of arithmetic, reversal, sorting, counting and copy-with-edit
// tasks, a function of the seed alone.
std::vector<instruction_example> generate_instructions(int64_t n, uint64_t seed);

// An Alpaca JSON file: an array of objects with string fields instruction,
// output and (optional) input. Throws value_error naming the file, the entry
// and the field on anything else.
std::vector<instruction_example> read_alpaca(const std::string& path);

// The text of a file, or of every regular file of a folder (sorted by name;
// fortune's index files *.dat are left out); gzip and dictzip (.gz, .dz)
// files are decompressed. Throws input_error if empty or unreadable.
std::string read_corpus(const std::string& path);

// torch.utils.data.DistributedSampler(shuffle=True, drop_last=False): a
// permutation of 0..n-1 drawn from (seed, epoch), padded with its own first
// entries to a multiple of ranks, and every ranks-th entry from rank.
std::vector<int64_t> distributed_indices(int64_t n, int ranks, int rank, uint64_t seed, int64_t epoch);

}  // namespace sdc::train
