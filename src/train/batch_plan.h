#pragma once
// Which examples go into which optimiser step, for every step of a run: a pure function of
// (example lengths, batch size, seed), so a resumed run sees the same batches from its step on.
//
// An example is one training sequence: a single (query, candidate) pair, or with --pack a
// whole row (query and all its candidates, MIS layout) carrying n_labels answer rows.
// A batch holds about batch_size labeled pairs in both modes (whole rows when packing: rows
// are added while the total stays <= batch_size, at least one), so a step means the same
// amount of supervision either way.
//
// Epoch e's order (length-bucketed, little padding):
//   1. shuffle the examples (SplitMix64-seeded Fisher-Yates on (seed, e))
//   2. cut into windows of kBucketWindow batches' worth, sort each window by token count
//   3. cut each window into batches, then shuffle the batches (same generator)
#include <cstdint>
#include <vector>

namespace sift::train {

struct ExampleSize {
  int32_t n_tokens = 0;
  int32_t n_labels = 0;
};

inline constexpr int64_t kBucketWindow = 32;  // batches per length-sorted window

// Deterministic generator for data order (independent of torch's RNG).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  uint64_t below(uint64_t n);  // uniform in [0, n)
 private:
  uint64_t state_;
};

// Batches (lists of example indices) of one epoch.
std::vector<std::vector<int32_t>> epoch_batches(const std::vector<ExampleSize>& examples, int64_t batch_size,
                                                uint64_t seed, int64_t epoch);

// The batches of a whole run: whole epochs while fewer than max_steps (when > 0) and
// fewer than n_epochs (when > 0); truncated to max_steps. At least one of them is > 0.
std::vector<std::vector<int32_t>> run_batches(const std::vector<ExampleSize>& examples, int64_t batch_size,
                                              uint64_t seed, int64_t n_epochs, int64_t max_steps);

}  // namespace sift::train
