// Random streams. Every (suite seed, cell, trial, kind, rank, step, purpose) has its own
// independent Boost.Random mt19937_64 stream, seeded through seed_seq from those
// words. So any trial can be replayed alone, and results do not depend on the
// thread count, the shard, or the order cells are run in. Boost's engines and
// distributions are specified exactly (unlike the std:: distributions), so the
// same seed gives the same numbers with any compiler.
#pragma once
#include <boost/random/mersenne_twister.hpp>
#include <cstdint>
#include <string_view>

namespace sdc {

using rng = boost::random::mt19937_64;

enum class trial_kind : uint32_t { faulty = 1, clean = 2 };
// lifetime: an intermittent fault's bursts; when: a uniform(A,B) schedule's step
enum class stream_purpose : uint32_t { data = 1, fault = 2, detector = 3, lifetime = 4, when = 5 };

rng make_stream(uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind, stream_purpose purpose);
// The stream of one rank at one step of an episode. Rank 0 at step 0 is the
// stream above (so one-step, one-rank episodes keep the streams they had);
// any other (rank, step) appends both to the seed words.
rng make_stream(uint64_t seed, uint64_t cell_hash, uint64_t trial, trial_kind kind, int rank, int64_t step,
                stream_purpose purpose);

// FNV-1a 64 of a string: the cell hash is that of the cell's canonical key.
uint64_t fnv1a64(std::string_view s);

}  // namespace sdc
