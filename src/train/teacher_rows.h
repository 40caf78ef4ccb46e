#pragma once
// Teacher rows for `sift train --targets scores` (distillation): lines of `sift score --echo`
// or `sift batch --echo` (formats/score_io.h: echoed_row_to_json), the row as it was read plus
// the teacher's output:
//   {"id", "query", "items": [...], ..., "scores": [P(YES) per item], "labels": [...],
//    "usage": {...}, "artifact": {"version", "threshold", "threshold_on"?}}
//
// What is read of a line:
//   scores   the soft target t_i of item i, the teacher's raw P(YES) (never "probabilities",
//            the calibrated map: the student learns the teacher's score, and a calibration is
//            fitted to the student afterwards, `sift calibrate`);
//   labels   the teacher's label of item i, what validation agreement compares with: the
//            line's own "labels" (the teacher's decision at its threshold, calibrated or not);
//            for a line without them (or an item whose label is null), t_i >= the line's
//            artifact.threshold when it is a threshold on the raw score, else t_i >= 0.5;
//   artifact.threshold  (teacher_threshold) the threshold the student's sift.json starts with.
//
// Per line, as `sift train` treats rows today: a line that cannot be read (invalid JSON, a
// missing query or items, a "scores" list of the wrong length), the error line of a row the
// teacher could not score ({"line", "error"}), and a line with a null score (an item the
// teacher did not score) are that line's RowError: left out with a warning. A score that is
// not a probability (a number outside [0, 1], a string, or NaN/Infinity, which Python's json
// module writes bare although JSON has no such literal) is not a teacher's output at all:
// TeacherScoreError, which refuses the whole run, naming the line and the item.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "io/line_reader.h"
#include "workflows/labeled_rows.h"

namespace sift::train {

struct TeacherRow {
  LabeledRow labeled;           // labels: the teacher's labels (see above)
  std::vector<float> scores;    // t_i in [0, 1], one per item
  std::optional<double> teacher_threshold;  // artifact.threshold when it applies to the raw score
};

struct TeacherRows {
  std::vector<TeacherRow> rows;
  std::vector<RowError> errors;  // lines left out, in input order
};

// A score that is not a probability; what() names the item ("scores[3] is 1.5, ...").
class TeacherScoreError : public Error {
 public:
  using Error::Error;
};

// One line: Error (the line is left out) or TeacherScoreError (the run is refused).
TeacherRow parse_teacher_row(std::string_view line);

// Every line of `path` (stdin for "" and "-"). Error when no row could be read, and
// "<path>:<line>: <what>" when a line holds a score that is not a probability.
TeacherRows read_teacher_rows(const std::string& path, int64_t max_line_bytes = kDefaultMaxLineBytes);

// The threshold every row's teacher applied to its raw scores, when they all name the same
// one; std::nullopt otherwise (none named, or several).
std::optional<double> common_teacher_threshold(const std::vector<TeacherRow>& rows);

}  // namespace sift::train
