#pragma once
// LineReader: the lines of a JSON-lines input, for every command that reads rows.
//  - A line ends at "\n", "\r\n" or a bare "\r" (a JSON text never holds a raw CR, so a file
//    written with old Mac line endings is read line by line, not as one huge line).
//  - A line longer than the limit (--max-line-bytes, default 64 MiB) is not kept in memory:
//    it is skipped to its end and returned as too_long, to become that row's error without
//    being parsed. Memory stays O(limit) whatever the input.
//  - It reads what the stream has buffered and never waits for more than one more byte, so
//    rows typed one by one on a terminal are read as they come.
#include <cstdint>
#include <filesystem>
#include <istream>
#include <optional>
#include <string>

namespace sift {

inline constexpr int64_t kDefaultMaxLineBytes = int64_t{64} << 20;

struct InputLine {
  int64_t number = 0;     // from 1
  std::string text;       // without its line ending; empty when too_long
  int64_t bytes = 0;      // the line's length
  bool too_long = false;  // longer than the limit: `text` was not kept
};

class LineReader {
 public:
  explicit LineReader(std::istream& in, int64_t max_line_bytes = kDefaultMaxLineBytes);

  // The next line; false at the end of the input. Error on a read error.
  bool next(InputLine& line);
  int64_t max_line_bytes() const { return max_line_bytes_; }

 private:
  static constexpr size_t kChunk = 1 << 16;
  bool refill();  // reads the next chunk; false at the end

  std::istream& in_;
  int64_t max_line_bytes_;
  std::string chunk_ = std::string(kChunk, '\0');
  size_t chunk_begin_ = 0, chunk_end_ = 0;  // the unread part of chunk_
  int64_t number_ = 0;
  bool after_cr_ = false;  // the last line ended at "\r": a "\n" right after it belongs to it
};

// "line of 70000000 bytes is longer than --max-line-bytes 67108864 (not parsed)"
std::string too_long_line_message(const InputLine& line, int64_t max_line_bytes);

// Lines in a file by the same rules (the total of a progress line); nullopt when `path` is
// not a regular file (stdin, a pipe).
std::optional<int64_t> count_lines(const std::filesystem::path& path);

}  // namespace sift
