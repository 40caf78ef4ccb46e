#pragma once
// Lines of the decoded input, each with its number and the position just after it, where a
// resumed run continues. Memory is bounded: a line longer than the limit (default 16 MiB, the
// input line limit of sift's JSON-lines readers) is returned cut short and marked, its
// remaining bytes skipped. A last line without "\n" is a line; the
// empty text after a final "\n" is not.
#include <cstdint>
#include <string>
#include <vector>

#include "batch/input_file.h"
#include "label/jsonl_file.h"

namespace sift::batch {

struct InputLine {
  int64_t number = 0;       // from 1
  std::string text;         // without the "\n"
  bool too_long = false;    // longer than the limit: text holds only its start
  InputPosition next;       // where reading resumes after this line
  int64_t next_offset = 0;  // decoded input bytes up to the end of this line, its "\n" included
  int64_t file_offset = 0;  // file bytes behind the line's end, about (for progress)
};

class LineReader {
 public:
  // Reads `input` from where it stands; the lines before it were `lines_before` lines of
  // `offset_before` decoded bytes.
  LineReader(InputFile& input, int64_t lines_before = 0, int64_t offset_before = 0,
             size_t max_line_bytes = label::kMaxLineBytes);

  bool next(InputLine& line);  // false at the end of the input
  int64_t lines_read() const { return line_number_; }
  int64_t offset() const { return offset_; }

 private:
  InputFile& input_;
  std::vector<char> chunk_;
  size_t chunk_pos_ = 0, chunk_size_ = 0;
  InputPosition chunk_end_;  // the position after the last byte read
  int64_t line_number_, offset_;
  size_t max_line_bytes_;
};

}  // namespace sift::batch
