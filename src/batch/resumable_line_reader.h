#pragma once
// ResumableLineReader: the lines (ResumableLine) of the decoded input of `sift batch`
// (ResumableInput), split by LineSplitter's rule
// (io/line_splitter.h), each with its number and the position just after it, where a resumed
// run continues. Unlike a reader of a terminal, this one reads files and may read ahead: a
// line that ends at a "\r" as the last byte of a chunk is returned only once the next chunk
// says whether a "\n" follows, so that `next` is after the whole "\r\n" (a resumed run that
// started at the "\n" would read an extra empty line and shift every line number after it).
// Memory is bounded: a line longer than the limit is returned marked too_long, without its
// text (io/line_splitter.h).
#include <cstdint>
#include <memory>
#include <string>

#include "batch/resumable_input.h"
#include "io/line_splitter.h"

namespace sift::batch {

struct ResumableLine : sift::InputLine {  // number, text, bytes, too_long, and where it ends:
  InputPosition next;       // where reading resumes after this line
  int64_t next_offset = 0;  // decoded input bytes up to the end of this line, its ending included
  int64_t file_offset = 0;  // file bytes behind the line's end, about (for progress)
};

inline constexpr size_t kDefaultChunkBytes = size_t(1) << 20;

class ResumableLineReader {
 public:
  // Reads `input` from where it stands; the lines before it were `lines_before` lines of
  // `offset_before` decoded bytes. chunk_bytes: how much is decoded per read (tests use tiny
  // chunks to put line endings on chunk boundaries).
  ResumableLineReader(ResumableInput& input, int64_t lines_before = 0, int64_t offset_before = 0,
             int64_t max_line_bytes = kDefaultMaxLineBytes, size_t chunk_bytes = kDefaultChunkBytes);

  bool next(ResumableLine& line);  // false at the end of the input
  int64_t lines_read() const { return splitter_.lines(); }
  int64_t offset() const { return offset_; }
  int64_t max_line_bytes() const { return splitter_.max_line_bytes(); }

 private:
  bool refill();  // decodes the next chunk; false at the end of the input
  std::string_view unread() const { return {chunk_.get() + chunk_pos_, chunk_size_ - chunk_pos_}; }
  void consumed_to(std::string_view rest);  // the bytes before `rest` (the tail of unread()) were taken
  InputPosition position() const;           // of the next unread byte

  ResumableInput& input_;
  LineSplitter splitter_;
  std::unique_ptr<char[]> chunk_;
  size_t chunk_bytes_;
  size_t chunk_pos_ = 0, chunk_size_ = 0;
  InputPosition chunk_end_;  // the position after the last byte read
  int64_t offset_;
};

}  // namespace sift::batch
