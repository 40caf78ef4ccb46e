#pragma once
// The one rule by which every sift command splits an input into lines (sift score, cost,
// prompt, eval, calibrate, train, batch, batch merge, label, tokenize, detokenize, tokenizer
// train, loadgen, and their line counts):
//  - A line ends at "\n", "\r\n" or a bare "\r" (a JSON text never holds a raw CR, so a file
//    written with old Mac line endings is read line by line, not as one huge line).
//  - A last line without an ending is a line; the empty text after a final ending is not.
//  - A line longer than the limit is not kept: its text is dropped as soon as it passes the
//    limit (memory stays O(limit) whatever the input), its bytes are counted, and it is
//    marked too_long, to become that line's error without being parsed.
// LineSplitter applies the rule to bytes handed to it piece by piece, as a reader gets them;
// it never needs a byte past a line's end to end the line. A "\r" that is the last byte of a
// piece ends its line at once; a "\n" first in the next piece is then the rest of that
// "\r\n" and is skipped (after_cr). A reader that must know where the ending stops before it
// returns the line (sift batch's resume position) looks at the next byte with
// take_lf_after_cr.
#include <cstdint>
#include <string>
#include <string_view>

namespace sift {

inline constexpr int64_t kDefaultMaxLineBytes = int64_t{64} << 20;  // --max-line-bytes

struct InputLine {
  int64_t number = 0;     // from 1
  std::string text;       // without its line ending; empty when too_long
  int64_t bytes = 0;      // the line's length, its ending not included
  bool too_long = false;  // longer than the limit: `text` was not kept
};

class LineSplitter {
 public:
  // max_line_bytes >= 0 (0 keeps no text: for counting lines); the lines before the first
  // one handed in were `lines_before` lines (a reader that resumes in the middle of a file).
  explicit LineSplitter(int64_t max_line_bytes, int64_t lines_before = 0);

  // Takes bytes from the front of `input` into `line` up to and including the end of the
  // line. True: the line ended, `line` holds it, numbered. False: `input` was all taken and
  // the line goes on in the next piece (hand the same `line` again). The call after a true
  // one starts the next line in `line`, clearing it first.
  bool take(std::string_view& input, InputLine& line);
  // At the end of the input: true when a last line without an ending is in `line` (it is
  // numbered); false when nothing of a line was left.
  bool finish(InputLine& line);

  // The last line ended at a "\r" that was the last byte of its piece: a "\n" first in the
  // next piece is the end of the same "\r\n".
  bool after_cr() const { return after_cr_; }
  // Given the piece after a line that ended with after_cr(): takes that "\n" from the front of
  // `input` when it is there. The ending is then settled either way (an empty `input` means
  // the end of the input).
  void take_lf_after_cr(std::string_view& input);

  int64_t lines() const { return lines_; }  // lines ended so far, lines_before included
  int64_t max_line_bytes() const { return max_line_bytes_; }

 private:
  void append(InputLine& line, std::string_view piece) const;

  int64_t max_line_bytes_;
  int64_t lines_;
  bool in_line_ = false;   // `line` holds the start of a line not ended yet
  bool after_cr_ = false;
};

}  // namespace sift
