#pragma once
// Seeded randomness that gives the same numbers on every platform and standard library:
// splitmix64 for both seed derivation and the stream itself. (std::uniform_*_distribution
// is implementation-defined, so it is never used in the generator.)
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sift::synth {

// One splitmix64 step: a bijective 64-bit mix with good avalanche.
inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Independent seed for (seed, stream, index): e.g. the text of member 17 is stream 1, its
// label noise stream 2, its split stream 3. Members never share a stream, so they can be
// generated in any order or in parallel with identical results.
inline uint64_t derive_seed(uint64_t seed, uint64_t stream, uint64_t index) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ index);
}

// Uniform double in [0, 1) from the top 53 bits.
inline double to_unit_interval(uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; }

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return to_unit_interval(next()); }
  bool chance(double p) { return uniform() < p; }
  // Uniform integer in [0, n), n > 0 (modulo bias < n / 2^64: irrelevant here).
  size_t below(size_t n) { return size_t(next() % n); }
  // Uniform integer in [lo, hi].
  int between(int lo, int hi) { return lo + int(below(size_t(hi - lo + 1))); }

  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[below(items.size())];
  }
  template <typename T>
  void shuffle(std::vector<T>& items) {  // Fisher-Yates
    for (size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
  }

 private:
  uint64_t state_;
};

}  // namespace sift::synth
