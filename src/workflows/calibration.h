#pragma once
// Threshold calibration (paper §3.3): choose the operating point label = score >= t on
// validation data, without retraining. Pure math; the command is src/apps/cmd_calibrate.cpp.
//
// The precision-recall curve has one point per distinct score t (label = score >= t, ties
// YES), highest threshold first. With P = number of reference positives:
//   tp(t) = #{i : s_i >= t and y_i},  fp(t) = #{i : s_i >= t and not y_i}
//   precision = tp / (tp + fp)   (tp + fp >= 1: the item scoring t itself is predicted YES)
//   recall    = tp / P,   f1 = 2 * tp / (2 * tp + fp + (P - tp))   (= 2PR / (P + R), 0 when tp = 0)
//   agreement = (tp + (n - P - fp)) / n   (labels equal to the reference: true YES + true NO)
//
// Choosing a point, never one another point dominates (as good on both axes, better on one):
//   f1           : the highest F1; ties -> the higher threshold (fewer YES at equal F1).
//   agreement    : the highest agreement with the reference (the metric the paper reports);
//                  ties -> the higher threshold. The trainer's validation (train/evaluate.h)
//                  reads a labeler's agreement at this point too.
//   precision=P  : the highest recall among points with precision >= P (recall falls as t
//                  rises, so this is the lowest such threshold unless lower thresholds only
//                  add negatives); ties in recall -> the higher precision, then the higher
//                  threshold.
//   recall=R     : the highest precision among points with recall >= R; ties in precision
//                  -> the higher recall, then the higher threshold.
// A target no point meets is an Error naming the best value that can be reached; so is a
// curve of one class (every reference label YES: precision_recall_curve refuses all NO).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sift {

struct PrPoint {
  double threshold = 0;
  int64_t true_positives = 0;
  int64_t false_positives = 0;
  double precision = 0;
  double recall = 0;
  double f1 = 0;
  double agreement = 0;
};

struct PrCurve {
  int64_t n_items = 0;
  int64_t n_positive = 0;       // reference YES
  std::vector<PrPoint> points;  // one per distinct score, threshold descending
};

// Throws Error when the inputs differ in length, are empty, hold a score outside [0, 1] or
// NaN, or have no reference positive (recall is then undefined).
PrCurve precision_recall_curve(std::span<const double> scores, const std::vector<bool>& reference);

struct CalibrationTarget {
  enum class Kind { F1, Agreement, Precision, Recall };
  Kind kind = Kind::F1;
  double value = 0;  // P or R for Precision / Recall, in (0, 1]

  std::string name() const;  // "f1", "agreement", "precision=0.9", "recall=0.8": what parse accepts
};

// Average precision, the area under the step-wise curve (scikit-learn's definition): with the
// points in descending threshold order and R_0 = 0,
//   AP = sum_k (R_k - R_{k-1}) * P_k
// 1 for a ranking with every positive above every negative; the positive rate for a random one.
double average_precision(const PrCurve& curve);

// Whether the scores tell the reference classes apart, so that a threshold chosen on them
// means something: `sift calibrate` refuses a calibration that fails this unless --force.
// Scores that separate nothing (random or untrained weights, a prompt that does not suit them)
// show one of two signs:
//   - the average precision closes less than kSeparationMargin of the gap from the positive
//     rate (what scores in a random order get) to 1: AP < rate + margin * (1 - rate), a bar
//     every rate leaves room above (0.44 at a rate of 0.38; 0.9955 at 0.995);
//   - the chosen point labels kMaxYesShare or more of the items YES while the reference labels
//     a smaller share so: "label everything YES", what the best F1 or recall of such scores
//     often is when most labels are YES. (A threshold labeling nearly every item NO is no sign:
//     a precision target asks for one, and the report shows its recall.)
// "" when neither shows, else what shows, with its numbers.
inline constexpr double kSeparationMargin = 0.1;
inline constexpr double kMaxYesShare = 0.99;
std::string separation_problem(const PrCurve& curve, const PrPoint& chosen);

// Scores in n_bins equal bins over [0, 1] (bin b = [b/n, (b+1)/n), the last one closed),
// counted apart by reference label: what the histogram panel of the plot shows.
struct ScoreHistogram {
  std::vector<int64_t> positives;  // reference YES per bin
  std::vector<int64_t> negatives;  // reference NO per bin
};
ScoreHistogram score_histogram(std::span<const double> scores, const std::vector<bool>& reference, int n_bins);

// Parses "f1", "agreement", "precision=P" or "recall=R" (P, R in (0, 1]); Error otherwise.
CalibrationTarget parse_calibration_target(std::string_view text);

// The chosen point of the curve (see the rules above); Error if the target cannot be met.
const PrPoint& choose_operating_point(const PrCurve& curve, const CalibrationTarget& target);

}  // namespace sift
