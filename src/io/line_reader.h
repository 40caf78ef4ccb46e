#pragma once
// LineReader: the lines of a JSON-lines input stream, for every command that reads rows from
// --input or stdin, split by LineSplitter's rule (io/line_splitter.h) with the limit
// --max-line-bytes (default 64 MiB). It reads only what the stream has buffered, or one byte
// when nothing is, so rows typed one by one on a terminal are read as they come: it never
// waits for a byte past a line's end (a "\r" ends its line at once; a "\n" right after it is
// skipped when the next line is read).
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>

#include "io/line_splitter.h"

namespace sift {

class LineReader {
 public:
  // An Error when max_line_bytes < 1 (it is --max-line-bytes).
  explicit LineReader(std::istream& in, int64_t max_line_bytes = kDefaultMaxLineBytes);

  // The next line; false at the end of the input. Error on a read error.
  bool next(InputLine& line);
  // Bytes of the input are at hand (read or buffered already): the next line can start
  // without waiting. A reader that batches lines stops a batch when there are none, so rows
  // typed one by one are answered as they come.
  bool has_buffered_input() const;
  int64_t max_line_bytes() const { return splitter_.max_line_bytes(); }

 private:
  static constexpr size_t kChunk = 1 << 16;
  bool refill();  // reads the next chunk; false at the end

  std::istream& in_;
  LineSplitter splitter_;
  std::string chunk_ = std::string(kChunk, '\0');
  size_t chunk_begin_ = 0, chunk_end_ = 0;  // the unread part of chunk_
};

// "line of 70000000 bytes is longer than --max-line-bytes 67108864 (not parsed)"
std::string too_long_line_message(const InputLine& line, int64_t max_line_bytes);

// Lines in a file by the same rule (the total of a progress line); nullopt when `path` is
// not a regular file (stdin, a pipe) or cannot be opened.
std::optional<int64_t> count_lines(const std::filesystem::path& path);

}  // namespace sift
