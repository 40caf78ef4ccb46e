#pragma once
// Evaluation metrics (paper §6.2), pure math; the driver that scores rows is
// evaluation_run.h, the command src/apps/cmd_eval.cpp.
//
// A predicted label is YES, NO, or unparsed (nullopt: packed generation gave no answer for
// the item). Against reference labels y (YES = positive class):
//   agreement = #{predicted == y} / n_items          (an unparsed label never agrees)
//   tp = #{YES, y}, fp = #{YES, not y}, fn = #{not YES, y}   (unparsed counts as not YES)
//   precision = tp / (tp + fp), recall = tp / (tp + fn), F1 = 2 tp / (2 tp + fp + fn);
//   each is 0 when its denominator is 0.
//
// Order inconsistency: a row's candidates are shuffled and scored again; item i's label
// under the shuffle is matched to its unshuffled label by identity (through the
// permutation), never by position. A label changes when it differs in any way, YES / NO /
// unparsed being three values. rate = changed / compared over all (item, shuffle) pairs of
// rows with at least 2 items (a single candidate has no order).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sift {

struct LabelCounts {
  int64_t n_items = 0;
  int64_t n_agree = 0;
  int64_t true_positives = 0;
  int64_t false_positives = 0;
  int64_t false_negatives = 0;
  int64_t n_unparsed = 0;

  double agreement() const;
  double precision() const;
  double recall() const;
  double f1() const;
};

// Adds one row's predictions against its reference; Error if the lengths differ.
void add_labels(LabelCounts& counts, std::span<const std::optional<bool>> predicted, const std::vector<bool>& reference);

struct OrderConsistency {
  int64_t n_compared = 0;  // (item, shuffle) pairs
  int64_t n_changed = 0;   // of which the label changed
  int64_t n_score_changed = 0;  // of which the score changed at all (bitwise)
  double max_score_change = 0;  // largest |score shuffled - score unshuffled| (scored modes)

  double rate() const;
};

// A permutation of 0..n-1: element j is the original index of the item put at position j.
// Fisher-Yates driven by splitmix64 of (seed, row, shuffle), so it is the same on every
// platform and standard library.
std::vector<size_t> shuffled_order(size_t n, uint64_t seed, uint64_t row, uint64_t shuffle);

// Compares one shuffled run with the unshuffled one: shuffled[j] belongs to original item
// order[j]. Scores may be nullopt (unparsed); score changes are counted when both exist.
void add_order_comparison(OrderConsistency& consistency, std::span<const std::optional<bool>> labels,
                          std::span<const std::optional<double>> scores,
                          std::span<const std::optional<bool>> shuffled_labels,
                          std::span<const std::optional<double>> shuffled_scores, std::span<const size_t> order);

}  // namespace sift
