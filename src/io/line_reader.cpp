#include "io/line_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <optional>

#include "core/error.h"

namespace sift {
namespace {

LineSplitter checked_splitter(int64_t max_line_bytes) {
  if (max_line_bytes < 1) fail("--max-line-bytes must be at least 1, got {}", max_line_bytes);
  return LineSplitter(max_line_bytes);
}

}  // namespace

LineReader::LineReader(std::istream& in, int64_t max_line_bytes) : in_(in), splitter_(checked_splitter(max_line_bytes)) {}

bool LineReader::refill() {
  std::streambuf& buffer = *in_.rdbuf();
  chunk_begin_ = 0;
  // What is buffered already, or one byte (which may wait for more input).
  const std::streamsize available = buffer.in_avail();
  if (available > 0) {
    chunk_end_ = static_cast<size_t>(buffer.sgetn(chunk_.data(), std::min<std::streamsize>(available, kChunk)));
    return chunk_end_ > 0;
  }
  const int c = buffer.sbumpc();
  if (c == std::char_traits<char>::eof()) {
    chunk_end_ = 0;
    if (in_.bad()) fail("input: read error after line {}", splitter_.lines());
    return false;
  }
  chunk_[0] = static_cast<char>(c);
  chunk_end_ = 1;
  return true;
}

bool LineReader::next(InputLine& line) {
  for (;;) {
    if (chunk_begin_ == chunk_end_ && !refill()) return splitter_.finish(line);
    std::string_view unread(chunk_.data() + chunk_begin_, chunk_end_ - chunk_begin_);
    const bool ended = splitter_.take(unread, line);
    chunk_begin_ = chunk_end_ - unread.size();
    if (ended) return true;
  }
}

bool LineReader::has_buffered_input() const { return chunk_begin_ < chunk_end_ || in_.rdbuf()->in_avail() > 0; }

std::string too_long_line_message(const InputLine& line, int64_t max_line_bytes) {
  return fmt::format("line of {} bytes is longer than --max-line-bytes {} (not parsed)", line.bytes, max_line_bytes);
}

std::optional<int64_t> count_lines(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  LineSplitter splitter(0);  // keeps no text: only the count is wanted
  InputLine line;
  std::array<char, 1 << 16> block{};
  while (in) {
    in.read(block.data(), block.size());
    std::string_view piece(block.data(), static_cast<size_t>(in.gcount()));
    while (!piece.empty()) splitter.take(piece, line);
  }
  splitter.finish(line);
  return splitter.lines();
}

}  // namespace sift
