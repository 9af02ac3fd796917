// Episodes: the one trial protocol of every workload (harness/campaign/trial_driver.cpp).
//
// A trial is an episode of one or more steps on one or more ranks. At every
// step each rank shows the detectors a view (a workload's step_view subclass:
// a GEMM's inputs and output, a rank's gradient log-norms, ...). A detector is
// reset at the start of each episode and may keep state across its steps,
// never across episodes, so results do not depend on which thread ran which
// episode. A kernel-level workload (GEMM, int8, EmbeddingBag, gradient,
// mixture) is a one-step, one-rank episode.
//
// A location says where: a rank, an element (row, col) of the step's output
// (row or col alone: a whole row or column), or nothing. Verdicts blame a
// location; the injection record says where the fault really was.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <typeinfo>

#include "foundation/random/streams.hpp"

namespace sdc {

struct location {
  int rank = -1;                // -1: not stated
  int64_t row = -1, col = -1;   // -1: not stated
  bool stated() const { return rank >= 0 || row >= 0 || col >= 0; }
};

// Whether a verdict's blame names the fault's true location: every coordinate
// both state must agree, and the blame must state at least one coordinate the
// truth states (a rank alone is right for a fault on that rank; an element in
// the fault's row is right for a fault that changed that whole row).
inline bool location_matches(const location& blamed, const location& truth) {
  bool shared = false;
  auto agree = [&](int64_t b, int64_t t) {
    if (b < 0 || t < 0) return true;
    shared = true;
    return b == t;
  };
  return agree(blamed.rank, truth.rank) && agree(blamed.row, truth.row) && agree(blamed.col, truth.col) && shared;
}

// What a detector is told when an episode starts.
struct episode_context {
  trial_kind kind = trial_kind::clean;
  uint64_t trial = 0;
  int ranks = 1;
  int64_t steps = 1;
  // Equal ids mean equal clean data (GEMM faults that share one matrix pair):
  // a detector may keep what is a pure function of that data (checksums of B)
  // across episodes with the same id, never its verdict state.
  uint64_t data_id = 0;
  // Steps of history (workload.hpp, episode_runner::history) shown before step 0.
  int64_t history = 0;
};

// The kinds of view workloads hand detectors (protocol/views/). A detector is
// registered for the kind it reads, so it serves every workload that hands
// that kind (the sample tests: the gradient and mixture workloads).
enum class view_kind { gemm, int8_gemm, embedding_bag, sample, training };
inline const char* view_kind_name(view_kind k) {
  constexpr const char* names[] = {"gemm", "int8_gemm", "embedding_bag", "sample", "training"};
  return names[int(k)];
}

// One rank's view of one step. Workloads derive their view types from it
// (protocol/views/*_view.hpp); detectors read them through view_cast.
class step_view {
 public:
  virtual ~step_view() = default;
  virtual view_kind kind() const = 0;
  int rank = 0;
  int64_t step = 0;
};

// The view as the type a detector family reads; a clear error, not an
// unchecked downcast, when a detector is fed another workload's views.
template <class V>
const V& view_cast(const step_view& v, view_kind expected) {
  if (auto* p = dynamic_cast<const V*>(&v)) return *p;
  throw std::logic_error(std::string("a detector that reads ") + view_kind_name(expected) + " views was given a " + view_kind_name(v.kind()) +
                         " view (" + typeid(v).name() + "): the suite pairs it with the wrong workload");
}

}  // namespace sdc
