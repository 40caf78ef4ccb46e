#include "workflows/evaluation.h"

#include <cmath>
#include <numeric>

#include "core/error.h"

namespace sift {
namespace {

double ratio(int64_t numerator, int64_t denominator) {
  return denominator > 0 ? static_cast<double>(numerator) / static_cast<double>(denominator) : 0.0;
}

// splitmix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator with good mixing.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

double LabelCounts::agreement() const { return ratio(n_agree, n_items); }
double LabelCounts::precision() const { return ratio(true_positives, true_positives + false_positives); }
double LabelCounts::recall() const { return ratio(true_positives, true_positives + false_negatives); }
double LabelCounts::f1() const {
  return ratio(2 * true_positives, 2 * true_positives + false_positives + false_negatives);
}

void add_labels(LabelCounts& counts, std::span<const std::optional<bool>> predicted, const std::vector<bool>& reference) {
  if (predicted.size() != reference.size())
    fail("evaluation: {} predicted labels but {} reference labels", predicted.size(), reference.size());
  for (size_t i = 0; i < predicted.size(); ++i) {
    const bool yes = predicted[i].value_or(false);
    counts.n_items += 1;
    counts.n_unparsed += predicted[i] ? 0 : 1;
    counts.n_agree += predicted[i] && *predicted[i] == reference[i] ? 1 : 0;
    counts.true_positives += yes && reference[i] ? 1 : 0;
    counts.false_positives += yes && !reference[i] ? 1 : 0;
    counts.false_negatives += !yes && reference[i] ? 1 : 0;
  }
}

double OrderConsistency::rate() const { return ratio(n_changed, n_compared); }

std::vector<size_t> shuffled_order(size_t n, uint64_t seed, uint64_t row, uint64_t shuffle) {
  uint64_t state = seed;
  state = splitmix64(state) ^ row;
  state = splitmix64(state) ^ shuffle;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = n; i > 1; --i) {  // Fisher-Yates: position i-1 takes a uniform pick of 0..i-1
    const size_t j = static_cast<size_t>(splitmix64(state) % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

void add_order_comparison(OrderConsistency& consistency, std::span<const std::optional<bool>> labels,
                          std::span<const std::optional<double>> scores,
                          std::span<const std::optional<bool>> shuffled_labels,
                          std::span<const std::optional<double>> shuffled_scores, std::span<const size_t> order) {
  const size_t n = labels.size();
  if (scores.size() != n || shuffled_labels.size() != n || shuffled_scores.size() != n || order.size() != n)
    fail("order comparison: {} labels, {} scores, {} shuffled labels, {} shuffled scores, {} positions", n,
         scores.size(), shuffled_labels.size(), shuffled_scores.size(), order.size());
  for (size_t j = 0; j < n; ++j) {
    const size_t item = order[j];
    if (item >= n) fail("order comparison: position {} holds item {} of {}", j, item, n);
    consistency.n_compared += 1;
    consistency.n_changed += shuffled_labels[j] != labels[item] ? 1 : 0;
    if (scores[item] && shuffled_scores[j]) {
      const double change = std::abs(*shuffled_scores[j] - *scores[item]);
      // Bitwise: the exactness contract says a score is a pure function of (query, item).
      consistency.n_score_changed += *shuffled_scores[j] != *scores[item] ? 1 : 0;
      consistency.max_score_change = std::max(consistency.max_score_change, change);
    }
  }
}

}  // namespace sift
