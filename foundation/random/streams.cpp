#include "foundation/random/streams.hpp"

#include <boost/random/seed_seq.hpp>

namespace sdc {

rng make_stream(uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind, stream_purpose purpose) {
  const uint32_t words[] = {uint32_t(seed), uint32_t(seed >> 32), uint32_t(cell_hash), uint32_t(cell_hash >> 32),
                            uint32_t(trial), uint32_t(trial >> 32), uint32_t(kind), uint32_t(purpose)};
  boost::random::seed_seq seq(std::begin(words), std::end(words));
  return rng(seq);
}

rng make_stream(uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind, int rank, int64_t step,
                stream_purpose purpose) {
  if (rank == 0 && step == 0) return make_stream(seed, cell_hash, trial, kind, purpose);
  const uint32_t words[] = {uint32_t(seed),  uint32_t(seed >> 32),      uint32_t(cell_hash), uint32_t(cell_hash >> 32),
                            uint32_t(trial), uint32_t(trial >> 32),     uint32_t(kind),      uint32_t(purpose),
                            uint32_t(rank),  uint32_t(uint64_t(step)), uint32_t(uint64_t(step) >> 32)};
  boost::random::seed_seq seq(std::begin(words), std::end(words));
  return rng(seq);
}

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace sdc
