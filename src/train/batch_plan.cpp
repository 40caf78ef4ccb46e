#include "train/batch_plan.h"

#include <algorithm>
#include <numeric>

#include "core/error.h"

namespace sift::train {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t n) {
  // Lemire's multiply-shift; the tiny bias (n << 2^64) does not matter for shuffling.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
}

namespace {

template <typename T>
void shuffle(std::vector<T>& v, SplitMix64& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// Consecutive examples of `order` into batches of about batch_size labels.
void cut_batches(const std::vector<ExampleSize>& examples, const std::vector<int32_t>& order, int64_t batch_size,
                 std::vector<std::vector<int32_t>>& out) {
  std::vector<int32_t> batch;
  int64_t labels = 0;
  for (int32_t e : order) {
    const int64_t n = examples[static_cast<size_t>(e)].n_labels;
    if (!batch.empty() && labels + n > batch_size) {
      out.push_back(std::move(batch));
      batch.clear();
      labels = 0;
    }
    batch.push_back(e);
    labels += n;
  }
  if (!batch.empty()) out.push_back(std::move(batch));
}

}  // namespace

std::vector<std::vector<int32_t>> epoch_batches(const std::vector<ExampleSize>& examples, int64_t batch_size,
                                                uint64_t seed, int64_t epoch) {
  if (batch_size < 1) fail("batch size must be at least 1, got {}", batch_size);
  SplitMix64 rng(seed * 0x2545f4914f6cdd1dULL + static_cast<uint64_t>(epoch) + 1);
  std::vector<int32_t> order(examples.size());
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, rng);

  int64_t labels_per_example = 0;
  for (const ExampleSize& e : examples) labels_per_example += e.n_labels;
  labels_per_example = std::max<int64_t>(1, labels_per_example / std::max<int64_t>(1, examples.size()));
  const auto window = static_cast<size_t>(std::max<int64_t>(1, kBucketWindow * batch_size / labels_per_example));

  std::vector<std::vector<int32_t>> batches;
  for (size_t begin = 0; begin < order.size(); begin += window) {
    std::vector<int32_t> chunk(order.begin() + begin, order.begin() + std::min(order.size(), begin + window));
    std::stable_sort(chunk.begin(), chunk.end(), [&](int32_t a, int32_t b) {
      return examples[static_cast<size_t>(a)].n_tokens < examples[static_cast<size_t>(b)].n_tokens;
    });
    cut_batches(examples, chunk, batch_size, batches);
  }
  shuffle(batches, rng);
  return batches;
}

std::vector<std::vector<int32_t>> run_batches(const std::vector<ExampleSize>& examples, int64_t batch_size,
                                              uint64_t seed, int64_t n_epochs, int64_t max_steps) {
  if (n_epochs <= 0 && max_steps <= 0) fail("give the number of epochs or of steps");
  if (examples.empty()) fail("no training examples");
  std::vector<std::vector<int32_t>> batches;
  for (int64_t epoch = 0; n_epochs <= 0 || epoch < n_epochs; ++epoch) {
    if (max_steps > 0 && static_cast<int64_t>(batches.size()) >= max_steps) break;
    for (auto& b : epoch_batches(examples, batch_size, seed, epoch)) batches.push_back(std::move(b));
  }
  if (max_steps > 0 && static_cast<int64_t>(batches.size()) > max_steps) batches.resize(static_cast<size_t>(max_steps));
  return batches;
}

}  // namespace sift::train
