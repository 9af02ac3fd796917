// NumPy's legacy global stream (np.random.seed(S) then np.random.randn / rand /
// randint), so that 003's demo scripts (silent_check.py, silent_detect.py in
// 003_dc12117c3d941011.txt) see the very inputs they draw. Facts from NumPy's
// documented legacy generator (RandomState, numpy/random/src/legacy and
// mt19937): an integer seed is MT19937's init_genrand (Boost's mt19937 seeds
// the same way); a double is (a * 2^26 + b) / 2^53 with a = next >> 5, b =
// next >> 6; randn is the polar method, keeping the second value of each pair
// for the next call; randint(low, high) of int32 draws next & mask (mask: all
// ones up to the range's top bit) until it is <= high - 1 - low. The log in the
// polar method is MPFR's correctly rounded one, so the stream is the same bits
// on every CPU (glibc's log agrees wherever it rounds correctly; a test checks
// the stream against NumPy itself).
#pragma once
#include <boost/random/mersenne_twister.hpp>
#include <cstdint>

namespace sdc {

class numpy_legacy_random {
 public:
  explicit numpy_legacy_random(uint32_t seed) : mt_(seed) {}
  uint32_t next_uint32() { return uint32_t(mt_()); }
  double random_sample();            // np.random.rand / random_sample
  double standard_normal();          // np.random.randn
  int32_t randint(int32_t low, int32_t high);  // np.random.randint(low, high, dtype=np.int32), high exclusive

 private:
  boost::random::mt19937 mt_;
  bool has_gauss_ = false;
  double gauss_ = 0;
};

}  // namespace sdc
