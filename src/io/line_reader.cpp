#include "io/line_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <optional>

#include "core/error.h"

namespace sift {

LineReader::LineReader(std::istream& in, int64_t max_line_bytes) : in_(in), max_line_bytes_(max_line_bytes) {
  if (max_line_bytes_ < 1) fail("--max-line-bytes must be at least 1, got {}", max_line_bytes_);
}

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
    if (in_.bad()) fail("input: read error after line {}", number_);
    return false;
  }
  chunk_[0] = static_cast<char>(c);
  chunk_end_ = 1;
  return true;
}

bool LineReader::next(InputLine& line) {
  line.text.clear();
  line.bytes = 0;
  line.too_long = false;
  bool any = false;  // a byte of this line (or its ending) was read
  while (chunk_begin_ < chunk_end_ || refill()) {
    const char* begin = chunk_.data() + chunk_begin_;
    const char* end = chunk_.data() + chunk_end_;
    if (after_cr_) {
      after_cr_ = false;
      if (*begin == '\n') {  // the "\n" of "\r\n"
        ++chunk_begin_;
        continue;
      }
    }
    const char* stop = std::find_if(begin, end, [](char c) { return c == '\n' || c == '\r'; });
    const auto n = static_cast<int64_t>(stop - begin);
    if (n > 0) any = true;
    if (!line.too_long && line.bytes + n <= max_line_bytes_) {
      line.text.append(begin, stop);
    } else if (!line.too_long) {
      line.too_long = true;
      std::string().swap(line.text);  // frees it
    }
    line.bytes += n;
    chunk_begin_ += static_cast<size_t>(n);
    if (stop != end) {
      after_cr_ = *stop == '\r';
      ++chunk_begin_;
      line.number = ++number_;
      return true;
    }
  }
  if (!any) return false;
  line.number = ++number_;
  return true;
}

std::string too_long_line_message(const InputLine& line, int64_t max_line_bytes) {
  return fmt::format("line of {} bytes is longer than --max-line-bytes {} (not parsed)", line.bytes, max_line_bytes);
}

std::optional<int64_t> count_lines(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::array<char, 1 << 16> block{};
  int64_t lines = 0;
  char previous = '\n';
  while (in) {
    in.read(block.data(), block.size());
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      const char c = block[static_cast<size_t>(i)];
      if (c == '\r' || (c == '\n' && previous != '\r')) ++lines;
      previous = c;
    }
  }
  return lines + (previous != '\n' && previous != '\r' ? 1 : 0);
}

}  // namespace sift
